// resources.kubesphere.io/v1alpha3 end to end: dev cluster -> informers -> kapiserver, with a real admin token.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PodUsage, podUsage } from '../../src/k8s/pod-resources.ts';
import { formatBytes, formatCpu } from '../../src/k8s/quantity.ts';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';

const R = '/kapis/resources.kubesphere.io/v1alpha3';
let s: KapisStack;

const names = (body: Json): string[] => body.items.map((i: Json) => i.metadata.name);

function pod(
  name: string,
  node: string,
  cpu: string,
  memory: string,
  labels: Record<string, string> = {},
): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: {
      nodeName: node,
      containers: [
        {
          name: 'c',
          image: 'nginx',
          resources: { requests: { cpu, memory }, limits: { cpu: '1', memory: '1Gi' } },
        },
      ],
    },
  };
}

before(async () => {
  s = await startKapisStack();
  const mk = async (path: string, body: Json) => {
    const r = await s.kube('POST', path, body);
    assert.ok(r.status === 201 || r.status === 200, `create ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await mk('/api/v1/namespaces', { metadata: { name: 'team-a', labels: { team: 'a' } } });
  await mk('/api/v1/namespaces', { metadata: { name: 'team-b', labels: { team: 'b' } } });
  const web = await mk('/apis/apps/v1/namespaces/team-a/deployments', {
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      // No replicas: the dev cluster's controllers would add pods beside the hand-written ones below.
      replicas: 0,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  });
  await mk('/api/v1/namespaces/team-a/pods', {
    ...pod('web-1', 'node1', '250m', '128Mi', { app: 'web', tier: '' }),
    metadata: {
      name: 'web-1',
      labels: { app: 'web', tier: '' },
      annotations: { 'kubesphere.io/alias-name': 'Web One', note: 'x' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-rs', uid: web.metadata.uid }],
    },
  });
  await mk('/api/v1/namespaces/team-a/pods', pod('web-2', 'node1', '500m', '256Mi', { app: 'web' }));
  await mk('/api/v1/namespaces/team-b/pods', pod('db-1', 'node2', '1', '1Gi', { app: 'db' }));
  await mk('/api/v1/namespaces/team-a/secrets', {
    metadata: {
      name: 'creds',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"c2VjcmV0"}}' },
    },
    type: 'Opaque',
    data: { password: 'c2VjcmV0' },
    stringData: { token: 'plain' },
  });
  await mk('/api/v1/namespaces/team-a/configmaps', {
    metadata: { name: 'cfg', labels: { empty: '' } },
    data: {},
  });
  // The simulated kubelets run the pods; then the informers have seen everything.
  await until(async () => {
    const r = await s.call('GET', `${R}/pods?limit=100&status=Running`);
    return ['web-1', 'web-2', 'db-1'].every((n) => names(r.body).includes(n));
  }, 'running pods in the cache');
});

after(async () => {
  await s?.close();
});

describe('node list (seed 4.2)', () => {
  test('items carry the seed metadata fields and totalItems', async () => {
    const r = await s.call('GET', `${R}/nodes`);
    assert.equal(r.status, 200);
    assert.equal(r.body.totalItems, 3);
    assert.deepEqual(Object.keys(r.body), ['items', 'totalItems']);
    for (const n of r.body.items) {
      const m = n.metadata;
      assert.equal(typeof m.name, 'string');
      assert.equal(m.selfLink, `/api/v1/nodes/${m.name}`);
      assert.match(m.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(typeof m.resourceVersion, 'string');
      assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(typeof m.labels, 'object');
      assert.equal(typeof m.annotations, 'object');
      assert.equal(m.managedFields, undefined);
    }
    const roles = r.body.items
      .flatMap((n: Json) => Object.entries(n.metadata.labels))
      .filter(([k]: string[]) => k.startsWith('node-role.kubernetes.io/'));
    assert.ok(roles.length > 0 && roles.every(([, v]: string[]) => v === ''), 'empty label values kept');
  });

  test('node annotations: requests/limits of non-terminated pods and fractions of allocatable', async () => {
    // Besides the test's pods, node1 may run demo pods the scheduler put there (coredns tolerates its taint).
    const onNode1 = (await s.kube('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode1')).body.items;
    const others = onNode1
      .filter((p: Json) => !['web-1', 'web-2'].includes(p.metadata.name))
      .map((p: Json) => podUsage(p));
    const sum = (k: keyof PodUsage, base: number) =>
      others.reduce((n: number, u: PodUsage) => n + u[k], base);
    const r = await s.call('GET', `${R}/nodes/node1`);
    assert.equal(r.status, 200);
    const a = r.body.metadata.annotations;
    assert.equal(a['node.kubesphere.io/cpu-requests'], formatCpu(sum('cpuReq', 750)));
    assert.equal(a['node.kubesphere.io/memory-requests'], formatBytes(sum('memReq', 384 * 2 ** 20)));
    assert.equal(a['node.kubesphere.io/cpu-limits'], formatCpu(sum('cpuLim', 2000)));
    assert.equal(a['node.kubesphere.io/memory-limits'], formatBytes(sum('memLim', 2 * 2 ** 30)));
    assert.match(a['node.kubesphere.io/cpu-requests-fraction'], /^\d+%$/);
    assert.match(a['node.kubesphere.io/memory-limits-fraction'], /^\d+%$/);
    // A pod that finishes stops counting.
    const done = await s.kube('PUT', '/api/v1/namespaces/team-a/pods/web-2/status', {
      ...(await s.kube('GET', '/api/v1/namespaces/team-a/pods/web-2')).body,
      status: { phase: 'Succeeded' },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    await until(async () => {
      const n = await s.call('GET', `${R}/nodes/node1`);
      return n.body.metadata.annotations['node.kubesphere.io/cpu-requests'] === formatCpu(sum('cpuReq', 250));
    }, 'usage update after the pod succeeded');
  });

  test('status filter: running, unschedulable, warning', async () => {
    const running = await s.call('GET', `${R}/nodes?status=running`);
    assert.equal(running.body.totalItems, 3);
    const node3 = (await s.kube('GET', '/api/v1/nodes/node3')).body;
    node3.spec.unschedulable = true;
    assert.equal((await s.kube('PUT', '/api/v1/nodes/node3', node3)).status, 200);
    const unsched = await until(async () => {
      const r = await s.call('GET', `${R}/nodes?status=unschedulable`);
      return r.body.totalItems === 1 ? r : undefined;
    }, 'unschedulable node');
    assert.deepEqual(names(unsched.body), ['node3']);
    const node2 = (await s.kube('GET', '/api/v1/nodes/node2')).body;
    node2.status.conditions = [{ type: 'Ready', status: 'False' }];
    assert.equal((await s.kube('PUT', '/api/v1/nodes/node2/status', node2)).status, 200);
    const warn = await until(async () => {
      const r = await s.call('GET', `${R}/nodes?status=warning`);
      return r.body.totalItems === 1 ? r : undefined;
    }, 'warning node');
    assert.deepEqual(names(warn.body), ['node2']);
    assert.equal((await s.call('GET', `${R}/nodes?status=bogus`)).body.totalItems, 0);
  });
});

describe('query parameters', () => {
  test('sortBy, ascending, page and limit', async () => {
    const byName = await s.call('GET', `${R}/namespaces?sortBy=name&ascending=true`);
    const all = names(byName.body);
    assert.deepEqual(all, [...all].sort());
    const desc = await s.call('GET', `${R}/namespaces?sortBy=name`);
    assert.deepEqual(names(desc.body), [...all].reverse(), 'default is descending');
    const p2 = await s.call('GET', `${R}/namespaces?sortBy=name&ascending=true&limit=2&page=2`);
    assert.deepEqual(names(p2.body), all.slice(2, 4));
    assert.equal(p2.body.totalItems, all.length);
    const past = await s.call('GET', `${R}/namespaces?limit=5&page=100`);
    assert.deepEqual(past.body.items, []);
    assert.equal(past.body.totalItems, all.length);
    // Default: creationTimestamp, newest first (ties broken by name, descending).
    const created = await s.call('GET', `${R}/namespaces`);
    const ts = created.body.items.map((i: Json) => i.metadata.creationTimestamp);
    assert.deepEqual(ts, [...ts].sort().reverse());
    const asc = await s.call('GET', `${R}/namespaces?sortBy=createTime&ascending=true`);
    assert.deepEqual(names(asc.body), [...names(created.body)].reverse());
  });

  test('name, names, uid, namespace, label, annotation, alias, ownerReference, ownerKind, labelSelector', async () => {
    assert.deepEqual(names((await s.call('GET', `${R}/namespaces?name=team`)).body).sort(), [
      'team-a',
      'team-b',
    ]);
    assert.deepEqual(names((await s.call('GET', `${R}/namespaces?names=team-a,default`)).body).sort(), [
      'default',
      'team-a',
    ]);
    const teamA = (await s.call('GET', `${R}/namespaces/team-a`)).body;
    assert.deepEqual(names((await s.call('GET', `${R}/namespaces?uid=${teamA.metadata.uid}`)).body), [
      'team-a',
    ]);
    assert.deepEqual(names((await s.call('GET', `${R}/pods?namespace=team-b`)).body), ['db-1']);
    assert.deepEqual(names((await s.call('GET', `${R}/namespaces/team-a/pods?label=tier`)).body), ['web-1']);
    assert.deepEqual(names((await s.call('GET', `${R}/namespaces/team-b/pods?label=app=db`)).body), ['db-1']);
    assert.deepEqual(names((await s.call('GET', `${R}/namespaces/team-a/pods?label=app!=db`)).body).sort(), [
      'web-1',
      'web-2',
    ]);
    assert.deepEqual(names((await s.call('GET', `${R}/namespaces/team-a/pods?annotation=note=x`)).body), [
      'web-1',
    ]);
    assert.deepEqual(names((await s.call('GET', `${R}/pods?alias=One`)).body), ['web-1']);
    const web = (await s.kube('GET', '/apis/apps/v1/namespaces/team-a/deployments/web')).body;
    assert.deepEqual(names((await s.call('GET', `${R}/pods?ownerReference=${web.metadata.uid}`)).body), [
      'web-1',
    ]);
    assert.deepEqual(names((await s.call('GET', `${R}/pods?namespace=team-a&ownerKind=ReplicaSet`)).body), [
      'web-1',
    ]);
    assert.deepEqual(
      names(
        (
          await s.call(
            'GET',
            `${R}/namespaces/team-a/pods?labelSelector=${encodeURIComponent('app in (web),tier')}`,
          )
        ).body,
      ),
      ['web-1'],
    );
    assert.deepEqual(
      names(
        (await s.call('GET', `${R}/namespaces/team-a/pods?labelSelector=app%3Dweb&sortBy=name&ascending=1`))
          .body,
      ),
      ['web-1', 'web-2'],
    );
    assert.equal(
      (await s.call('GET', `${R}/pods?nosuchfield=x`)).body.totalItems,
      0,
      'unknown filter matches nothing',
    );
  });

  test('pod filters: nodeName, phase, status', async () => {
    assert.deepEqual(names((await s.call('GET', `${R}/pods?nodeName=node2&namespace=team-b`)).body), [
      'db-1',
    ]);
    assert.deepEqual(names((await s.call('GET', `${R}/pods?namespace=team-a&phase=Succeeded`)).body), [
      'web-2',
    ]);
    assert.deepEqual(names((await s.call('GET', `${R}/pods?namespace=team-a&status=Completed`)).body), [
      'web-2',
    ]);
    assert.deepEqual(names((await s.call('GET', `${R}/pods?namespace=team-b&status=Running`)).body), [
      'db-1',
    ]);
  });

  test('invalid parameters answer 400 Status', async () => {
    for (const q of [
      'page=0',
      'page=abc',
      'limit=-2',
      'limit=0',
      'limit=1e9',
      'limit=10001',
      'sortBy=spec.replicas',
      'ascending=maybe',
      `labelSelector=${encodeURIComponent('a in (b')}`,
      `labelSelector=${encodeURIComponent('=x')}`,
    ]) {
      const r = await s.call('GET', `${R}/nodes?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.kind, 'Status', q);
      assert.equal(r.body.code, 400, q);
      assert.ok(r.body.message.length > 0, q);
    }
    // -1 is KubeSphere's "no paging" (its console's pickers send it): every match on one page.
    const all = await s.call('GET', `${R}/nodes?limit=-1&page=1`);
    assert.equal(all.status, 200);
    assert.equal(all.body.items.length, all.body.totalItems);
  });
});

describe('storage classes', () => {
  test('each carries kubesphere.io/pvc-count: its claims by spec or by the beta annotation', async () => {
    const mk = async (path: string, body: Json) => {
      const r = await s.kube('POST', path, body);
      assert.equal(r.status, 201, `create ${path}: ${JSON.stringify(r.body)}`);
    };
    await mk('/apis/storage.k8s.io/v1/storageclasses', {
      metadata: { name: 'counted' },
      provisioner: 'example.com/none',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
    const claim = (name: string, extra: Json) => ({
      metadata: { name, ...extra.metadata },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra.spec },
    });
    await mk(
      '/api/v1/namespaces/team-a/persistentvolumeclaims',
      claim('by-spec', { spec: { storageClassName: 'counted' } }),
    );
    await mk(
      '/api/v1/namespaces/team-b/persistentvolumeclaims',
      claim('by-annotation', {
        metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'counted' } },
      }),
    );
    const count = async (path: string) => {
      const r = await s.call('GET', path);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const sc = r.body.items ? r.body.items.find((i: Json) => i.metadata.name === 'counted') : r.body;
      return sc?.metadata?.annotations?.['kubesphere.io/pvc-count'];
    };
    await until(async () => (await count(`${R}/storageclasses`)) === '2', 'two claims counted');
    assert.equal(await count(`${R}/storageclasses/counted`), '2', 'the single GET too');
    assert.equal(
      (await s.kube('DELETE', '/api/v1/namespaces/team-a/persistentvolumeclaims/by-spec')).status,
      200,
    );
    await until(
      async () => (await count(`${R}/storageclasses/counted`)) === '1',
      'a deleted claim no longer counted',
    );
    // The stored class is not changed: the count is presentation only.
    const stored = await s.kube('GET', '/apis/storage.k8s.io/v1/storageclasses/counted');
    assert.equal(stored.body.metadata.annotations?.['kubesphere.io/pvc-count'], undefined);
  });
});

describe('resource types and errors', () => {
  test('every supported type lists with {items, totalItems}', async () => {
    for (const t of [
      'nodes',
      'namespaces',
      'pods',
      'services',
      'deployments',
      'statefulsets',
      'daemonsets',
      'configmaps',
      'secrets',
      'persistentvolumeclaims',
      'events',
      'customresourcedefinitions',
    ]) {
      const r = await s.call('GET', `${R}/${t}?limit=5`);
      assert.equal(r.status, 200, `${t}: ${JSON.stringify(r.body)}`);
      assert.ok(Array.isArray(r.body.items), t);
      assert.equal(typeof r.body.totalItems, 'number', t);
    }
    const crds = await s.call('GET', `${R}/customresourcedefinitions?name=users.iam`);
    assert.equal(crds.body.totalItems, 1, 'the User CRD kapiserver installs');
    const deps = await s.call('GET', `${R}/namespaces/team-a/deployments`);
    assert.deepEqual(names(deps.body), ['web']);
    assert.equal(deps.body.items[0].metadata.selfLink, '/apis/apps/v1/namespaces/team-a/deployments/web');
    const cm = await s.call('GET', `${R}/namespaces/team-a/configmaps/cfg`);
    assert.deepEqual(cm.body.metadata.labels, { empty: '' });
  });

  test('secrets never show values', async () => {
    const list = await s.call('GET', `${R}/namespaces/team-a/secrets`);
    const one = await s.call('GET', `${R}/namespaces/team-a/secrets/creds`);
    for (const body of [list.body, one.body]) {
      const text = JSON.stringify(body);
      assert.ok(
        !text.includes('c2VjcmV0') && !text.includes('plain') && !text.includes('last-applied'),
        text,
      );
    }
    assert.equal(one.body.metadata.name, 'creds');
    assert.equal(one.body.data, undefined);
    const oracle = await s.call(
      'GET',
      `${R}/secrets?annotation=${encodeURIComponent('kubectl.kubernetes.io/last-applied-configuration')}`,
    );
    assert.equal(oracle.body.totalItems, 0, 'no filter oracle on the last-applied copy');
  });

  test('unknown resource, unknown namespace, unknown object: 404 Status', async () => {
    for (const p of [
      `${R}/widgets`,
      `${R}/namespaces/nope/pods`,
      `${R}/nodes/nope`,
      `${R}/namespaces/team-a/pods/x`,
    ]) {
      const r = await s.call('GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.body.kind, 'Status', p);
    }
  });

  test('/readyz reports the informer cache as synced', async () => {
    const r = await fetch(`${s.url}/readyz?verbose`);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /\[\+\]informer-cache ok/);
  });

  test('/kapi reaches the same API; no token is 401', async () => {
    const r = await s.call('GET', `/kapi/resources.kubesphere.io/v1alpha3/nodes?limit=1`);
    assert.equal(r.status, 200);
    assert.equal(r.body.totalItems, 3);
    const anon = await s.call('GET', `${R}/nodes`, undefined, '');
    assert.equal(anon.status, 401);
  });
});
