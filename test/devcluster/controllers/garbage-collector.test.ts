// Garbage collector over real HTTPS: background, foreground (blockOwnerDeletion) and orphan deletion, custom
// resources as owners and dependents, owners that are missing or have another uid, and cyclic ownerReferences.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Obj } from '../../../src/devcluster/store.ts';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { metaOf, until } from '../../helpers/workloads.ts';

let dev: TestDevCluster;
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  devRequest(dev, method, path, body, headers);
const CM = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/gc.example.com/v1/namespaces/default/widgets';
const stored = (res: string, name: string) => dev.store.get(res, 'default', name)?.obj;

async function create(path: string, body: Obj): Promise<Obj> {
  const r = await call('POST', path, body);
  assert.equal(r.status, 201, r.text);
  return r.body as Obj;
}

const refTo = (o: Obj, extra: Obj = {}) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: metaOf(o).name,
  uid: metaOf(o).uid,
  ...extra,
});
const cm = (name: string, ownerReferences?: Obj[], finalizers?: string[]) => ({
  metadata: { name, ...(ownerReferences ? { ownerReferences } : {}), ...(finalizers ? { finalizers } : {}) },
});

describe('garbage collector', { timeout: 60_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
    await create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'widgets.gc.example.com' },
      spec: {
        group: 'gc.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
  });
  after(async () => {
    await dev?.close();
  });

  it('background: a custom resource owner takes its built-in and custom dependents with it', async () => {
    const owner = await create(WIDGETS, {
      apiVersion: 'gc.example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
    });
    await create(CM, cm('w1-config', [refTo(owner)]));
    await create(WIDGETS, {
      apiVersion: 'gc.example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1-child', ownerReferences: [refTo(owner)] },
    });
    assert.equal((await call('DELETE', `${WIDGETS}/w1`)).status, 200);
    assert.equal(stored('gc.example.com/widgets', 'w1'), undefined, 'the owner goes at once');
    await until(
      () => !stored('/configmaps', 'w1-config') && !stored('gc.example.com/widgets', 'w1-child'),
      'dependents collected',
    );
  });

  it('foreground: the owner waits with foregroundDeletion until blocking dependents are gone', async () => {
    const owner = await create(CM, cm('fg-owner'));
    await create(CM, cm('fg-blocker', [refTo(owner, { blockOwnerDeletion: true })], ['example.com/hold']));
    await create(CM, cm('fg-free', [refTo(owner)]));
    const del = await call('DELETE', `${CM}/fg-owner`, { propagationPolicy: 'Foreground' });
    assert.equal(del.status, 200);
    assert.ok(metaOf(del.body as Obj).deletionTimestamp);
    assert.deepEqual(metaOf(del.body as Obj).finalizers, ['foregroundDeletion']);
    await until(() => !stored('/configmaps', 'fg-free'), 'the non-blocking dependent deleted');
    await until(
      () =>
        !!stored('/configmaps', 'fg-blocker') &&
        !!metaOf(stored('/configmaps', 'fg-blocker') as Obj).deletionTimestamp,
      'the blocker marked deleted',
    );
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(stored('/configmaps', 'fg-owner'), 'the owner waits for its blocking dependent');
    await call(
      'PATCH',
      `${CM}/fg-blocker`,
      { metadata: { finalizers: null } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    await until(() => !stored('/configmaps', 'fg-owner'), 'the owner removed after its dependent');
  });

  it('orphan: dependents stay without the ownerReference, other owners kept', async () => {
    const owner = await create(CM, cm('or-owner'));
    const other = await create(CM, cm('or-other'));
    await create(CM, cm('or-dep', [refTo(owner), refTo(other)]));
    const del = await call('DELETE', `${CM}/or-owner?propagationPolicy=Orphan`);
    assert.equal(del.status, 200);
    await until(() => !stored('/configmaps', 'or-owner'), 'the owner removed');
    const dep = stored('/configmaps', 'or-dep') as Obj;
    assert.deepEqual(
      (metaOf(dep).ownerReferences as Obj[]).map((r) => r.name),
      ['or-other'],
    );
  });

  it('an owner that does not exist, or has another uid, means the dependent is collected', async () => {
    await create(
      CM,
      cm('dangling', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: 'no-such-uid' }]),
    );
    const real = await create(CM, cm('real-owner'));
    await create(CM, cm('stale-uid', [{ ...refTo(real), uid: '00000000-0000-0000-0000-000000000000' }]));
    await create(
      CM,
      cm('half', [refTo(real), { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: 'gone-uid' }]),
    );
    await until(
      () => !stored('/configmaps', 'dangling') && !stored('/configmaps', 'stale-uid'),
      'dependents of missing owners collected',
    );
    await until(
      () => (metaOf(stored('/configmaps', 'half') as Obj).ownerReferences as Obj[]).length === 1,
      'the missing owner reference dropped',
    );
    assert.ok(stored('/configmaps', 'real-owner'));
  });

  it('cyclic ownerReferences never loop: foreground and background deletion both finish', async () => {
    for (const policy of ['Foreground', 'Background']) {
      const n = policy.toLowerCase();
      const a = await create(CM, cm(`cyc-a-${n}`));
      const b = await create(CM, cm(`cyc-b-${n}`, [refTo(a, { blockOwnerDeletion: true })]));
      const patched = await call(
        'PATCH',
        `${CM}/cyc-a-${n}`,
        { metadata: { ownerReferences: [refTo(b, { blockOwnerDeletion: true })] } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
      assert.equal(patched.status, 200);
      assert.equal((await call('DELETE', `${CM}/cyc-a-${n}`, { propagationPolicy: policy })).status, 200);
      await until(
        () => !stored('/configmaps', `cyc-a-${n}`) && !stored('/configmaps', `cyc-b-${n}`),
        `the ${policy} cycle collected`,
      );
    }
    const r = await call('GET', CM);
    assert.equal(r.status, 200, 'the dev cluster still answers');
  });
});
