// Server-side apply and managedFields bookkeeping.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyStrategicMergePatch,
  type ManagedFieldsEntry,
  type Obj,
  serverSideApply,
  updateManagedFields,
} from '../../src/devcluster/patch/index.ts';
import { StatusError } from '../../src/k8s/status.ts';

const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };
const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };
const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:00Z';
const T2 = '2025-01-01T00:02:00Z';

function manifest(replicas: number, image = 'nginx:1.25', labels: Obj = { app: 'web' }): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }] },
      },
    },
  };
}

/** What the dev cluster stores after a create: system metadata added. */
function stored(obj: Obj): Obj {
  return {
    ...obj,
    metadata: { ...(obj.metadata as Obj), uid: 'u-1', resourceVersion: '5', creationTimestamp: T0 },
  };
}

const entry = (mf: ManagedFieldsEntry[], manager: string, operation = 'Apply') =>
  mf.find((e) => e.manager === manager && e.operation === operation);

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return err;
  }
  assert.fail('expected a conflict');
}

describe('serverSideApply', () => {
  it('creates the object and records ownership in the FieldsV1 encoding', () => {
    const { object, managedFields } = serverSideApply({
      live: undefined,
      applied: manifest(2),
      manager: 'kubectl',
      force: false,
      gvk: DEPLOYMENT,
      now: T0,
    });
    assert.equal((object.spec as Obj).replicas, 2);
    assert.deepEqual(managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  'k:{"name":"nginx"}': {
                    '.': {},
                    'f:image': {},
                    'f:name': {},
                    'f:ports': {
                      'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ]);
    assert.deepEqual((object.metadata as Obj).managedFields, managedFields);
  });

  it('a second apply by the same manager changes fields without conflict', () => {
    const first = serverSideApply({
      live: undefined,
      applied: manifest(2),
      manager: 'kubectl',
      force: false,
      gvk: DEPLOYMENT,
      now: T0,
    });
    const { object, managedFields } = serverSideApply({
      live: stored(first.object),
      applied: manifest(3, 'nginx:1.26'),
      manager: 'kubectl',
      force: false,
      gvk: DEPLOYMENT,
      now: T1,
    });
    assert.equal((object.spec as Obj).replicas, 3);
    const c = (object.spec as { template: { spec: { containers: Obj[] } } }).template.spec.containers;
    assert.equal(c[0].image, 'nginx:1.26');
    assert.equal(managedFields.length, 1);
    assert.equal(managedFields[0].time, T1);
    assert.equal((object.metadata as Obj).uid, 'u-1', 'system metadata is kept');
  });

  it('removes fields the manager no longer applies when nobody else owns them', () => {
    const first = serverSideApply({
      live: undefined,
      applied: manifest(2, 'nginx', { app: 'web', tier: 'front' }),
      manager: 'kubectl',
      force: false,
      gvk: DEPLOYMENT,
      now: T0,
    });
    const { object, managedFields } = serverSideApply({
      live: stored(first.object),
      applied: manifest(2, 'nginx', { app: 'web' }),
      manager: 'kubectl',
      force: false,
      gvk: DEPLOYMENT,
      now: T1,
    });
    assert.deepEqual((object.metadata as Obj).labels, { app: 'web' });
    assert.ok(!JSON.stringify(managedFields).includes('f:tier'));
  });

  it('removes a dropped list item (container) as a whole', () => {
    const two = manifest(1);
    const spec = (two.spec as { template: { spec: { containers: Obj[] } } }).template.spec;
    spec.containers.push({ name: 'sidecar', image: 'busybox' });
    const first = serverSideApply({
      live: undefined,
      applied: two,
      manager: 'm',
      force: false,
      gvk: DEPLOYMENT,
      now: T0,
    });
    const { object } = serverSideApply({
      live: stored(first.object),
      applied: manifest(1),
      manager: 'm',
      force: false,
      gvk: DEPLOYMENT,
      now: T1,
    });
    const names = (object.spec as { template: { spec: { containers: Obj[] } } }).template.spec.containers.map(
      (c) => c.name,
    );
    assert.deepEqual(names, ['nginx']);
  });

  it('keeps a dropped field that another manager also owns', () => {
    const first = serverSideApply({
      live: undefined,
      applied: manifest(2, 'nginx', { app: 'web', tier: 'front' }),
      manager: 'a',
      force: false,
      gvk: DEPLOYMENT,
      now: T0,
    });
    const second = serverSideApply({
      live: stored(first.object),
      applied: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', labels: { tier: 'front' } },
      },
      manager: 'b',
      force: false,
      gvk: DEPLOYMENT,
      now: T1,
    });
    const third = serverSideApply({
      live: second.object,
      applied: manifest(2, 'nginx', { app: 'web' }),
      manager: 'a',
      force: false,
      gvk: DEPLOYMENT,
      now: T2,
    });
    assert.deepEqual((third.object.metadata as Obj).labels, { app: 'web', tier: 'front' });
    assert.ok(JSON.stringify(entry(third.managedFields, 'b')?.fieldsV1).includes('f:tier'));
    assert.ok(!JSON.stringify(entry(third.managedFields, 'a')?.fieldsV1).includes('f:tier'));
  });

  function clientSideCreated(): Obj {
    // `kubectl create` / client-side apply: an Update by kubectl-client-side-apply.
    return updateManagedFields(
      undefined,
      stored(manifest(2)),
      'kubectl-client-side-apply',
      'Update',
      'apps/v1',
      T0,
    ).object;
  }

  it('a changed field owned by another manager is a 409 with FieldManagerConflict causes', () => {
    const err = conflictOf(() =>
      serverSideApply({
        live: clientSideCreated(),
        applied: manifest(5),
        manager: 'kubectl',
        force: false,
        gvk: DEPLOYMENT,
        now: T1,
      }),
    );
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(
      err.message,
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
    );
    assert.deepEqual(err.toStatus().details?.causes, [
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl-client-side-apply" using apps/v1',
        field: '.spec.replicas',
      },
    ]);
  });

  it('several conflicts are listed per manager', () => {
    const err = conflictOf(() =>
      serverSideApply({
        live: clientSideCreated(),
        applied: manifest(5, 'nginx:2'),
        manager: 'kubectl',
        force: false,
        gvk: DEPLOYMENT,
        now: T1,
      }),
    );
    assert.match(
      err.message,
      /^Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using apps\/v1:/,
    );
    const fields = err
      .toStatus()
      .details?.causes?.map((c) => c.field)
      .sort();
    assert.deepEqual(fields, ['.spec.replicas', '.spec.template.spec.containers[name="nginx"].image']);
  });

  it('applying the same values as another manager shares ownership without conflict', () => {
    const { managedFields } = serverSideApply({
      live: clientSideCreated(),
      applied: manifest(2),
      manager: 'kubectl',
      force: false,
      gvk: DEPLOYMENT,
      now: T1,
    });
    assert.ok(JSON.stringify(entry(managedFields, 'kubectl')?.fieldsV1).includes('f:replicas'));
    assert.ok(
      JSON.stringify(entry(managedFields, 'kubectl-client-side-apply', 'Update')?.fieldsV1).includes(
        'f:replicas',
      ),
    );
  });

  it('force takes ownership of conflicting fields', () => {
    const { object, managedFields } = serverSideApply({
      live: clientSideCreated(),
      applied: manifest(5),
      manager: 'kubectl',
      force: true,
      gvk: DEPLOYMENT,
      now: T1,
    });
    assert.equal((object.spec as Obj).replicas, 5);
    assert.ok(JSON.stringify(entry(managedFields, 'kubectl')?.fieldsV1).includes('f:replicas'));
    const other = entry(managedFields, 'kubectl-client-side-apply', 'Update');
    assert.ok(other, 'the other manager keeps its other fields');
    assert.ok(!JSON.stringify(other.fieldsV1).includes('f:replicas'));
    assert.deepEqual(
      managedFields.map((e) => e.operation),
      ['Apply', 'Update'],
      'Apply entries are listed before Update entries',
    );
  });

  it('a kubectl scale (Update) after an apply makes a later apply of replicas conflict', () => {
    const applied = serverSideApply({
      live: undefined,
      applied: manifest(2),
      manager: 'kubectl',
      force: false,
      gvk: DEPLOYMENT,
      now: T0,
    }).object;
    const scaled = applyStrategicMergePatch(stored(applied), { spec: { replicas: 4 } }, DEPLOYMENT);
    const afterScale = updateManagedFields(stored(applied), scaled, 'kubectl', 'Update', 'apps/v1', T1);
    const upd = entry(afterScale.managedFields, 'kubectl', 'Update');
    assert.deepEqual(upd?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.ok(!JSON.stringify(entry(afterScale.managedFields, 'kubectl')?.fieldsV1).includes('f:replicas'));
    const err = conflictOf(() =>
      serverSideApply({
        live: afterScale.object,
        applied: manifest(2),
        manager: 'kubectl',
        force: false,
        gvk: DEPLOYMENT,
        now: T2,
      }),
    );
    assert.match(err.message, /conflict with "kubectl" using apps\/v1: \.spec\.replicas/);
  });

  const badInput: { name: string; applied: Obj; manager?: string; code: number }[] = [
    { name: 'a missing fieldManager', applied: manifest(1), manager: '', code: 422 },
    { name: 'a missing apiVersion', applied: { kind: 'Deployment', metadata: { name: 'x' } }, code: 400 },
    { name: 'a missing kind', applied: { apiVersion: 'apps/v1', metadata: { name: 'x' } }, code: 400 },
    {
      name: 'a kind other than the request',
      applied: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
      code: 400,
    },
    {
      name: 'managedFields in the configuration',
      applied: { ...manifest(1), metadata: { name: 'web', managedFields: [{ manager: 'x' }] } },
      code: 400,
    },
  ];
  for (const c of badInput) {
    it(`rejects ${c.name} with ${c.code}`, () => {
      const err = conflictOf(() =>
        serverSideApply({
          live: undefined,
          applied: c.applied,
          manager: c.manager ?? 'kubectl',
          force: false,
          gvk: DEPLOYMENT,
          now: T0,
        }),
      );
      assert.equal(err.code, c.code);
    });
  }
});

describe('updateManagedFields', () => {
  const cm = (data: Obj, labels?: Obj): Obj => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'default',
      uid: 'u',
      resourceVersion: '1',
      ...(labels ? { labels } : {}),
    },
    data,
  });

  it('a create gives the manager every field it set, except system metadata', () => {
    const { object, managedFields } = updateManagedFields(
      undefined,
      cm({ a: '1' }),
      'kubectl-create',
      'Update',
      'v1',
      T0,
    );
    assert.deepEqual(managedFields, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
      },
    ]);
    assert.deepEqual((object.metadata as Obj).managedFields, managedFields);
    assert.equal((object.metadata as Obj).uid, 'u');
  });

  it('an update by another manager takes the changed fields', () => {
    const v1 = updateManagedFields(undefined, cm({ a: '1', b: '2' }), 'creator', 'Update', 'v1', T0).object;
    const next = {
      ...cm({ a: '1', b: '20' }, { x: 'y' }),
      metadata: { ...(v1.metadata as Obj), labels: { x: 'y' } },
    };
    const { managedFields } = updateManagedFields(v1, next, 'kubectl-label', 'Update', 'v1', T1);
    assert.deepEqual(entry(managedFields, 'creator', 'Update')?.fieldsV1, {
      'f:data': { '.': {}, 'f:a': {} },
    });
    assert.deepEqual(entry(managedFields, 'kubectl-label', 'Update')?.fieldsV1, {
      'f:data': { 'f:b': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } },
    });
  });

  it('a removed field leaves every manager', () => {
    const v1 = updateManagedFields(undefined, cm({ a: '1', b: '2' }), 'creator', 'Update', 'v1', T0).object;
    const next = { ...v1, data: { a: '1' } };
    const { managedFields } = updateManagedFields(v1, next, 'editor', 'Update', 'v1', T1);
    assert.deepEqual(
      managedFields.map((e) => e.manager),
      ['creator'],
    );
    assert.ok(!JSON.stringify(managedFields).includes('f:b'));
  });

  it('a no-op update keeps entries and timestamps', () => {
    const v1 = updateManagedFields(undefined, cm({ a: '1' }), 'creator', 'Update', 'v1', T0).object;
    const { managedFields } = updateManagedFields(v1, structuredClone(v1), 'creator', 'Update', 'v1', T1);
    assert.equal(managedFields.length, 1);
    assert.equal(managedFields[0].time, T0);
    const other = updateManagedFields(v1, structuredClone(v1), 'someone', 'Update', 'v1', T1).managedFields;
    assert.deepEqual(
      other.map((e) => e.manager),
      ['creator'],
      'no empty entry for a manager that changed nothing',
    );
  });

  it('status changes are tracked only for the status subresource', () => {
    const pod = (phase: string): Obj => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
      status: { phase },
    });
    const created = updateManagedFields(undefined, pod('Pending'), 'kubectl-run', 'Update', 'v1', T0);
    assert.ok(!JSON.stringify(created.managedFields).includes('f:status'));
    const { managedFields } = updateManagedFields(
      created.object,
      { ...created.object, status: { phase: 'Running' } },
      'kubelet',
      'Update',
      'v1',
      T1,
      'status',
    );
    assert.deepEqual(entry(managedFields, 'kubelet', 'Update'), {
      manager: 'kubelet',
      operation: 'Update',
      apiVersion: 'v1',
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:phase': {} } },
      subresource: 'status',
    });
  });

  it('works for kinds without a schema (custom resources): lists are atomic', () => {
    const cr = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { items: [1, 2] },
    };
    const { managedFields } = updateManagedFields(undefined, cr, 'm', 'Update', 'example.com/v1', T0);
    assert.deepEqual(managedFields[0].fieldsV1, { 'f:spec': { 'f:items': {} } });
  });

  it('configmaps applied server-side own data keys individually', () => {
    const { managedFields } = serverSideApply({
      live: undefined,
      applied: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } },
      manager: 'm',
      force: false,
      gvk: CONFIGMAP,
      now: T0,
    });
    assert.deepEqual(managedFields[0].fieldsV1, { 'f:data': { 'f:k': {} } });
  });
});
