// The controller framework over a real dev cluster's store: initial list, de-duplication, requeue-after,
// retry with backoff after a failing reconcile, conflicts retried, and the API staying responsive.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Controller,
  type ControllerContext,
  ControllerManager,
  type IndexReads,
  OwnerIndex,
  ownKey,
} from '../../../src/devcluster/controllers/framework.ts';
import type { StoreEvent } from '../../../src/devcluster/store.ts';
import { StatusError } from '../../../src/k8s/status.ts';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';

let dev: TestDevCluster;

function contextOf(d: TestDevCluster): Omit<ControllerContext, IndexReads> {
  return {
    rest: d.rest,
    store: d.store,
    registry: d.rest.registry,
    now: Date.now,
    def: (group, resource) => {
      const found = d.rest.registry.anyVersion(group, resource);
      if (!found) throw new Error(`${group}/${resource} not served`);
      return found;
    },
  };
}

const configMap = (name: string) => ({ metadata: { name }, data: { v: '1' } });
const cmDef = () => {
  const d = dev.rest.registry.find('', 'v1', 'configmaps');
  if (!d) throw new Error('configmaps not served');
  return d;
};

describe('controller framework', { timeout: 60_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
  });
  after(async () => {
    await dev?.close();
  });

  it('offers stored objects at start and de-duplicates a burst of events for one key', async () => {
    dev.rest.create(cmDef(), 'default', configMap('before-start'));
    const seen: string[] = [];
    const c: Controller = {
      name: 'recorder',
      watches: [{ res: '/configmaps', keys: ownKey }],
      reconcile: (key) => {
        seen.push(key);
        return undefined;
      },
    };
    const m = new ControllerManager(contextOf(dev));
    m.add(c);
    m.start();
    // Several writes in one tick: the key is queued once.
    const e = dev.rest.create(cmDef(), 'default', configMap('burst'));
    for (let i = 2; i < 6; i++)
      dev.rest.update(cmDef(), 'default', 'burst', { ...configMap('burst'), data: { v: String(i) } });
    await m.idle();
    m.stop();
    assert.ok(seen.includes('default/before-start'), 'the initial list is offered');
    assert.equal(seen.filter((k) => k === 'default/burst').length, 1, `one reconcile for a burst: ${seen}`);
    assert.ok(e.rv > 0);
  });

  it('retries a failing reconcile with backoff, quietly on conflicts, and honours requeue-after', async () => {
    let failures = 0;
    let conflicts = 0;
    let runs = 0;
    const c: Controller = {
      name: 'flaky',
      watches: [{ res: '/configmaps', keys: (ev) => (ev.name === 'flaky' ? ownKey(ev) : []) }],
      reconcile: () => {
        runs++;
        if (failures < 3) {
          failures++;
          throw new Error('boom');
        }
        if (conflicts < 2) {
          conflicts++;
          throw new StatusError(409, 'Conflict', 'the object has been modified');
        }
        return runs < 7 ? 1 : undefined;
      },
    };
    const m = new ControllerManager(contextOf(dev));
    m.add(c);
    m.start();
    dev.rest.create(cmDef(), 'default', configMap('flaky'));
    await m.idle(60_000);
    m.stop();
    assert.equal(failures, 3);
    assert.equal(conflicts, 2);
    assert.equal(runs, 7, 'three failures, two conflicts, then requeued after until done');
  });

  it('yields to the event loop: the API answers while a long queue is worked', async () => {
    let done = 0;
    const c: Controller = {
      name: 'slow',
      watches: [
        {
          res: '/configmaps',
          keys: (ev) => (ev.name === 'trigger' ? Array.from({ length: 400 }, (_, i) => `trigger-${i}`) : []),
        },
      ],
      reconcile: () => {
        const until = performance.now() + 1;
        while (performance.now() < until) {
          // 1 ms of work per key: 400 ms in all
        }
        done++;
        return undefined;
      },
    };
    await dev.controllers.idle(); // the cluster's own controllers have written their ConfigMaps (kube-root-ca.crt)
    const m = new ControllerManager(contextOf(dev));
    m.add(c);
    m.start();
    dev.rest.create(cmDef(), 'default', configMap('trigger'));
    // Keys are per name: the kube-root-ca.crt of every namespace is one set of keys.
    const total = 400;
    const r = await devRequest(dev, 'GET', '/api/v1/namespaces/default/configmaps/trigger');
    assert.equal(r.status, 200);
    assert.ok(done < total, `answered after ${done} of ${total} reconciles`);
    await m.idle();
    assert.equal(done, total);
    m.stop();
  });
  it('indexes the objects no controller owns, per resource and namespace', () => {
    const index = new OwnerIndex();
    const pod = (name: string, controller: boolean) => ({
      metadata: {
        name,
        uid: `uid-${name}`,
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller },
        ],
      },
    });
    const ev = (type: StoreEvent['type'], obj: ReturnType<typeof pod>, ns = 'a'): StoreEvent => ({
      type,
      res: '/pods',
      ns,
      name: obj.metadata.name,
      rv: 1,
      obj,
      json: '',
    });
    index.observe(ev('ADDED', pod('free', false)));
    index.observe(ev('ADDED', pod('owned', true)));
    index.observe(ev('ADDED', pod('elsewhere', false), 'b'));
    index.observe(ev('ADDED', pod('adopted', false)));
    index.observe(ev('MODIFIED', pod('adopted', true)));
    assert.deepEqual(
      index.orphans('/pods', 'a').map((r) => r.name),
      ['free'],
    );
    index.observe(ev('DELETED', pod('free', false)));
    assert.deepEqual(index.orphans('/pods', 'a'), []);
    assert.deepEqual(
      index.orphans('/pods', 'b').map((r) => r.name),
      ['elsewhere'],
    );
  });
  it('a slice scheduled before stop does not run (the store may be closed by then)', async () => {
    const own = await startTestDevCluster({ seedDemoData: false });
    let ran = 0;
    const m = new ControllerManager(contextOf(own));
    m.add({ name: 'late', watches: [{ res: '/configmaps', keys: ownKey }], reconcile: () => void ran++ });
    m.start(); // offers the stored configmaps: a slice is scheduled
    m.stop();
    own.controllers.stop();
    own.store.close();
    await new Promise((r) => setImmediate(r));
    assert.equal(ran, 0);
    await own.close();
  });
});
