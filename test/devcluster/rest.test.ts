// Kubernetes API semantics of the dev cluster over real HTTPS: discovery, finalizers, namespace lifecycle,
// preconditions, garbage collection, deletecollection, selector-filtered watch, CRD subresources, encodings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devRequest, devWatch, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';

type Obj = Record<string, unknown>;
let dev: TestDevCluster;

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  devRequest(dev, method, path, body, headers);
const merge = { 'Content-Type': 'application/merge-patch+json' };
const meta = (o: unknown) => (o as { metadata: Obj }).metadata;

/** Opens a watch and collects its events until `stop()`. */
const watch = (path: string) => devWatch(dev, path);

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(cond(), `timed out waiting for ${what}`);
}

describe('dev cluster REST semantics', { timeout: 120_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster();
  });
  after(async () => {
    await dev?.close();
  });

  it('discovery lists verbs, short names, categories and subresources', async () => {
    const v = await call('GET', '/version');
    assert.equal((v.body as Obj).minor, '33');
    const core = (await call('GET', '/api/v1')).body as { resources: Obj[] };
    const pods = core.resources.find((r) => r.name === 'pods');
    assert.deepEqual(pods?.shortNames, ['po']);
    assert.deepEqual(pods?.categories, ['all']);
    assert.equal(pods?.singularName, 'pod');
    assert.ok((pods?.verbs as string[] | undefined)?.includes('watch'));
    for (const sub of ['pods/status', 'pods/log', 'nodes/status', 'namespaces/finalize'])
      assert.ok(
        core.resources.some((r) => r.name === sub),
        sub,
      );
    const apps = (await call('GET', '/apis/apps/v1')).body as { resources: Obj[] };
    const scale = apps.resources.find((r) => r.name === 'deployments/scale');
    assert.equal(scale?.kind, 'Scale');
    assert.equal(scale?.group, 'autoscaling');
    const groups = (await call('GET', '/apis')).body as { groups: { name: string }[] };
    for (const g of [
      'apps',
      'batch',
      'rbac.authorization.k8s.io',
      'coordination.k8s.io',
      'apiextensions.k8s.io',
    ])
      assert.ok(
        groups.groups.some((x) => x.name === g),
        g,
      );
    const agg = await call('GET', '/apis', undefined, {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    assert.match(String(agg.headers['content-type']), /as=APIGroupDiscoveryList/);
    const items = (agg.body as { items: { metadata: { name: string }; versions: { resources: Obj[] }[] }[] })
      .items;
    const appsAgg = items.find((i) => i.metadata.name === 'apps');
    assert.ok(
      appsAgg?.versions[0].resources.some((r) => r.resource === 'deployments' && r.scope === 'Namespaced'),
    );
    const unknown = await call('GET', '/apis/nope.example.com/v1/things');
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body as Obj).kind, 'Status');
  });

  it('finalizers keep a deleted object until they are removed', async () => {
    const c = await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'fin', finalizers: ['example.com/hold'] },
    });
    assert.equal(c.status, 201);
    const d = await call('DELETE', '/api/v1/namespaces/default/configmaps/fin');
    assert.equal(d.status, 200);
    assert.ok(meta(d.body).deletionTimestamp);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/fin')).status, 200);
    const p = await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/fin',
      { metadata: { finalizers: null } },
      merge,
    );
    assert.equal(p.status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/fin')).status, 404);
  });

  it('namespace deletion terminates, refuses new content, removes contents, then the namespace', async () => {
    assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
    await call('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'plain' } });
    await call('POST', '/api/v1/namespaces/doomed/configmaps', {
      metadata: { name: 'held', finalizers: ['x.io/y'] },
    });
    const d = await call('DELETE', '/api/v1/namespaces/doomed');
    assert.equal(((d.body as Obj).status as Obj).phase, 'Terminating');
    await until(() => dev.store.get('/configmaps', 'doomed', 'plain') === undefined, 'contents to go');
    const refused = await call('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'new' } });
    assert.equal(refused.status, 403);
    const ns = await call('GET', '/api/v1/namespaces/doomed');
    assert.equal(((ns.body as Obj).status as Obj).phase, 'Terminating');
    await call(
      'PATCH',
      '/api/v1/namespaces/doomed/configmaps/held',
      { metadata: { finalizers: null } },
      merge,
    );
    await until(() => dev.store.get('/namespaces', '', 'doomed') === undefined, 'the namespace to go');
    assert.equal((await call('GET', '/api/v1/namespaces/doomed')).status, 404);
  });

  it('delete preconditions, garbage collection of dependents, orphaning, deletecollection', async () => {
    const owner = (
      await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } })
    ).body;
    const uid = String(meta(owner).uid);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid };
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'dep', ownerReferences: [ref] },
    });
    const wrong = await call('DELETE', '/api/v1/namespaces/default/configmaps/owner', {
      preconditions: { uid: 'nope' },
    });
    assert.equal(wrong.status, 409);
    assert.equal(
      (await call('DELETE', '/api/v1/namespaces/default/configmaps/owner', { preconditions: { uid } }))
        .status,
      200,
    );
    await until(() => dev.store.get('/configmaps', 'default', 'dep') === undefined, 'the collector');
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/dep')).status, 404);

    const owner2 = (
      await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner2' } })
    ).body;
    const ref2 = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner2', uid: meta(owner2).uid };
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'dep2', ownerReferences: [ref2] },
    });
    await call('DELETE', '/api/v1/namespaces/default/configmaps/owner2?propagationPolicy=Orphan');
    await until(() => dev.store.get('/configmaps', 'default', 'owner2') === undefined, 'the orphaning');
    const dep2 = await call('GET', '/api/v1/namespaces/default/configmaps/dep2');
    assert.equal(dep2.status, 200);
    assert.equal(meta(dep2.body).ownerReferences, undefined);

    for (const n of ['dc-a', 'dc-b', 'dc-keep'])
      await call('POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: n, labels: { batch: n === 'dc-keep' ? 'no' : 'yes' } },
      });
    const dc = await call('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=batch%3Dyes');
    assert.equal(dc.status, 200);
    assert.deepEqual(
      (dc.body as { items: Obj[] }).items.map((i) => meta(i).name),
      ['dc-a', 'dc-b'],
    );
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/dc-keep')).status, 200);
  });

  it('generation moves only with the spec; stale updates conflict; invalid objects are 422 with causes', async () => {
    const body = {
      metadata: { name: 'gen' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: {
          metadata: { labels: { a: 'b' } },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    };
    const c = await call('POST', '/apis/apps/v1/namespaces/default/deployments', body);
    assert.equal(meta(c.body).generation, 1);
    assert.equal(((c.body as Obj).spec as Obj).replicas, 1, 'defaulted');
    const l = await call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/gen',
      { metadata: { labels: { x: 'y' } } },
      merge,
    );
    assert.equal(meta(l.body).generation, 1);
    const s = await call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/gen',
      { spec: { replicas: 3 } },
      merge,
    );
    assert.equal(meta(s.body).generation, 2);
    const stale = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/gen', c.body);
    assert.equal(stale.status, 409);
    assert.equal((stale.body as Obj).reason, 'Conflict');
    const bad = await call('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'Bad_Name' },
      spec: { containers: [] },
    });
    assert.equal(bad.status, 422);
    assert.equal((bad.body as Obj).reason, 'Invalid');
    const noName = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: {} });
    assert.equal(noName.status, 422);
  });

  it('watch filtered by a label selector turns label changes into ADDED/DELETED', async () => {
    const w = await watch(
      `/api/v1/namespaces/default/configmaps?watch=true&labelSelector=app%3Dw&resourceVersion=${dev.store.currentRv}`,
    );
    try {
      await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'lw' } });
      await call(
        'PATCH',
        '/api/v1/namespaces/default/configmaps/lw',
        { metadata: { labels: { app: 'w' } } },
        merge,
      );
      await call('PATCH', '/api/v1/namespaces/default/configmaps/lw', { data: { k: 'v' } }, merge);
      await call(
        'PATCH',
        '/api/v1/namespaces/default/configmaps/lw',
        { metadata: { labels: { app: null } } },
        merge,
      );
      await until(() => w.events.length >= 3, 'three events');
      assert.deepEqual(
        w.events.map((e) => e.type),
        ['ADDED', 'MODIFIED', 'DELETED'],
      );
    } finally {
      w.stop();
    }
  });

  it('watch with sendInitialEvents ends the initial state with an annotated bookmark', async () => {
    const w = await watch(
      '/api/v1/namespaces?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan',
    );
    try {
      await until(() => w.events.some((e) => e.type === 'BOOKMARK'), 'the bookmark');
      const bm = w.events.find((e) => e.type === 'BOOKMARK');
      assert.equal((meta(bm?.object).annotations as Obj)['k8s.io/initial-events-end'], 'true');
      assert.ok(w.events.filter((e) => e.type === 'ADDED').length >= 4);
    } finally {
      w.stop();
    }
  });

  it('CRD status and scale subresources, printer columns, removal with the CRD', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
            },
            additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { replicas: { type: 'integer', default: 1 } } },
                  status: { type: 'object', properties: { replicas: { type: 'integer' } } },
                },
              },
            },
          },
        ],
      },
    };
    const c = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.equal(c.status, 201, c.text);
    const conds = (((c.body as Obj).status as Obj).conditions as Obj[]).map((x) => x.type);
    assert.ok(conds.includes('Established'));
    const g = await call('POST', '/apis/example.com/v1/namespaces/default/gadgets', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g1' },
      spec: {},
    });
    assert.equal(g.status, 201, g.text);
    assert.equal(((g.body as Obj).spec as Obj).replicas, 1);
    const st = await call('PUT', '/apis/example.com/v1/namespaces/default/gadgets/g1/status', {
      ...(g.body as Obj),
      status: { replicas: 1 },
      spec: { replicas: 9 },
    });
    assert.equal(((st.body as Obj).status as Obj).replicas, 1);
    assert.equal(((st.body as Obj).spec as Obj).replicas, 1, 'status update ignores spec');
    const sc = await call(
      'PATCH',
      '/apis/example.com/v1/namespaces/default/gadgets/g1/scale',
      { spec: { replicas: 4 } },
      merge,
    );
    assert.equal(sc.status, 200, sc.text);
    assert.equal(((sc.body as Obj).spec as Obj).replicas, 4);
    const smp = await call(
      'PATCH',
      '/apis/example.com/v1/namespaces/default/gadgets/g1',
      { spec: {} },
      { 'Content-Type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(smp.status, 415);
    const table = await call('GET', '/apis/example.com/v1/namespaces/default/gadgets', undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    const t = table.body as {
      kind: string;
      columnDefinitions: { name: string }[];
      rows: { cells: unknown[] }[];
    };
    assert.equal(t.kind, 'Table');
    assert.ok(t.columnDefinitions.some((x) => x.name === 'Replicas'));
    assert.ok(t.rows[0].cells.includes(4));
    assert.equal(
      (await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com'))
        .status,
      200,
    );
    assert.equal((await call('GET', '/apis/example.com/v1')).status, 404);
    assert.equal(dev.store.list('example.com/gadgets').length, 0);
  });

  it('accepts YAML bodies and rejects oversized or undecodable ones with a Status', async () => {
    const y = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      'metadata:\n  name: from-yaml\ndata:\n  a: "1"\n',
      {
        'Content-Type': 'application/yaml',
      },
    );
    assert.equal(y.status, 201, y.text);
    const badRv = await call('GET', '/api/v1/configmaps?watch=true&resourceVersion=abc');
    assert.equal(badRv.status, 400);
    const junk = await call('POST', '/api/v1/namespaces/default/configmaps', '{not json', {
      'Content-Type': 'application/json',
    });
    assert.equal(junk.status, 400);
    const big = await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'big' },
      data: { a: 'x'.repeat(4 * 1024 * 1024) },
    });
    assert.equal(big.status, 413);
    const proto = await call('POST', '/api/v1/namespaces/default/configmaps', 'k8s\u0000garbage', {
      'Content-Type': 'application/vnd.kubernetes.protobuf',
    });
    assert.ok(proto.status === 400 || proto.status === 415, String(proto.status));
  });
});
