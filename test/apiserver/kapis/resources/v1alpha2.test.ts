// resources.kubesphere.io/v1alpha2 (and v1alpha3's additions) over a real kapiserver on the dev cluster: components,
// health, quotas, abnormal workloads, revisions, the legacy search, and the routes deliberately not served.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../helpers.ts';

const V2 = '/kapis/resources.kubesphere.io/v1alpha2';
const V3 = '/kapis/resources.kubesphere.io/v1alpha3';
const NS = 'legacy-a';
let s: KapisStack;

async function mk(path: string, body: Json): Promise<Json> {
  const r = await s.kube('POST', path, body);
  assert.ok(r.status === 201 || r.status === 200, `create ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A pod on a node no kubelet runs, with the status the test gives it. */
async function podWithStatus(ns: string, name: string, labels: Record<string, string>, status: Json) {
  const pod = await mk(`/api/v1/namespaces/${ns}/pods`, {
    metadata: { name, labels },
    spec: { nodeName: 'ghost', containers: [{ name: 'c', image: 'nginx' }] },
  });
  const r = await s.kube('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, { ...pod, status });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

const running = (ready: boolean) => ({
  phase: 'Running',
  containerStatuses: [
    { name: 'c', ready, restartCount: 0, image: 'nginx', imageID: '', state: { running: {} } },
  ],
});

before(async () => {
  s = await startKapisStack();
  await mk('/api/v1/namespaces', { metadata: { name: NS } });
  await mk('/api/v1/namespaces/kubesphere-system/services', {
    metadata: { name: 'ks-test-component' },
    spec: { selector: { app: 'ks-test' }, ports: [{ port: 80 }] },
  });
  await mk('/api/v1/namespaces/kubesphere-system/services', {
    metadata: { name: 'ks-headless-external' },
    spec: { ports: [{ port: 80 }] },
  });
  await podWithStatus('kubesphere-system', 'ks-test-1', { app: 'ks-test' }, running(true));
  await podWithStatus('kubesphere-system', 'ks-test-2', { app: 'ks-test' }, running(false));
  for (const [name, label] of [
    ['cfg-b', 'one'],
    ['cfg-a', 'two'],
    ['other', 'one'],
  ]) {
    await mk(`/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name, labels: { tier: label } },
      data: {},
    });
  }
  await mk(`/api/v1/namespaces/${NS}/secrets`, {
    metadata: { name: 'creds' },
    type: 'Opaque',
    data: { password: 'c2VjcmV0' },
  });
  const pvc = await mk(`/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
    metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  const lost = await s.kube('PUT', `/api/v1/namespaces/${NS}/persistentvolumeclaims/data/status`, {
    ...pvc,
    status: { phase: 'Lost' },
  });
  assert.equal(lost.status, 200, JSON.stringify(lost.body));
  await until(async () => {
    const r = await s.call('GET', `${V2}/namespaces/${NS}/configmaps?paging=limit=-1,page=1`);
    return r.status === 200 && r.body.total_count >= 3;
  }, 'configmaps in the cache');
});

after(async () => {
  await s?.close();
});

describe('components', () => {
  test('one per Service with a selector, with its healthy backends; by name; missing is a 404 Status', async () => {
    const list = await until(async () => {
      const r = await s.call('GET', `${V2}/components`);
      const c = r.body.find?.((x: Json) => x.name === 'ks-test-component');
      return c?.totalBackends === 2 ? r : undefined;
    }, 'the component and its pods');
    assert.equal(list.status, 200);
    const names = list.body.map((c: Json) => `${c.namespace}/${c.name}`);
    assert.ok(
      !names.includes('kubesphere-system/ks-headless-external'),
      'a Service without a selector is no component',
    );
    const ours = list.body.find((c: Json) => c.name === 'ks-test-component');
    assert.deepEqual(
      { ...ours, startedAt: typeof ours.startedAt },
      {
        name: 'ks-test-component',
        namespace: 'kubesphere-system',
        selfLink: '',
        label: { app: 'ks-test' },
        startedAt: 'string',
        totalBackends: 2,
        healthyBackends: 1,
      },
    );
    // kubesphere-system comes before kube-system, as KubeSphere orders them.
    const firstKube = names.findIndex((n: string) => n.startsWith('kube-system/'));
    if (firstKube >= 0) assert.ok(names.indexOf('kubesphere-system/ks-test-component') < firstKube);

    for (const v of [V2, V3]) {
      const one = await s.call('GET', `${v}/components/ks-test-component`);
      assert.equal(one.status, 200);
      assert.equal(one.body.healthyBackends, 1);
      const missing = await s.call('GET', `${v}/components/no-such-component`);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.kind, 'Status');
    }
  });

  test('componenthealth: components and Ready nodes', async () => {
    const r = await s.call('GET', `${V3}/componenthealth`);
    assert.equal(r.status, 200);
    const nodes = (await s.kube('GET', '/api/v1/nodes')).body.items;
    const ready = nodes.filter((n: Json) =>
      (n.status?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True'),
    );
    assert.deepEqual(r.body.nodeStatus, { totalNodes: nodes.length, healthyNodes: ready.length });
    assert.ok(r.body.kubesphereStatus.some((c: Json) => c.name === 'ks-test-component'));
  });
});

describe('quotas and abnormal workloads', () => {
  test('cluster quotas: KubeSphere shape, counts of the cluster', async () => {
    const r = await s.call('GET', `${V2}/quotas`);
    assert.equal(r.status, 200);
    assert.equal(r.body.namespace, '""');
    assert.deepEqual(Object.keys(r.body.data), ['used']);
    const pods = (await s.kube('GET', '/api/v1/pods')).body.items.length;
    assert.equal(r.body.data.used['count/pods'], String(pods));
    assert.equal(r.body.data.used['count/s2ibuilders.devops.kubesphere.io'], '0');
    assert.equal(Object.keys(r.body.data.used).length, 10);
  });

  test('namespace quotas: live counts when no ResourceQuota tracks them; unknown namespace 404', async () => {
    const r = await s.call('GET', `${V2}/namespaces/${NS}/quotas`);
    assert.equal(r.status, 200);
    assert.equal(r.body.namespace, NS);
    assert.equal(r.body.data.used.persistentvolumeclaims, '1');
    assert.equal(r.body.data.used['count/pods'], '0');
    assert.deepEqual(r.body.data.hard, {});
    assert.deepEqual(r.body.data.left, {});
    const missing = await s.call('GET', `${V2}/namespaces/no-such-ns/quotas`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.kind, 'Status');
  });

  test('abnormal workloads: a lost claim counts, per namespace and in the cluster', async () => {
    const r = await s.call('GET', `${V2}/namespaces/${NS}/abnormalworkloads`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      namespace: NS,
      data: { deployments: 0, statefulsets: 0, daemonsets: 0, jobs: 0, persistentvolumeclaims: 1 },
    });
    const all = await s.call('GET', `${V2}/abnormalworkloads`);
    assert.equal(all.body.namespace, '');
    assert.ok(all.body.data.persistentvolumeclaims >= 1);
  });
});

describe('legacy search', () => {
  test('conditions, paging, orderBy and reverse; {items, total_count}', async () => {
    const r = await s.call('GET', `${V2}/namespaces/${NS}/configmaps?conditions=tier=one&orderBy=name`);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ['items', 'total_count']);
    assert.deepEqual(
      r.body.items.map((i: Json) => i.metadata.name),
      ['cfg-b', 'other'],
    );
    const fuzzy = await s.call(
      'GET',
      `${V2}/namespaces/${NS}/configmaps?conditions=name~cfg&paging=limit=1,page=2&orderBy=name&reverse=true`,
    );
    assert.equal(fuzzy.body.total_count, 2);
    assert.deepEqual(
      fuzzy.body.items.map((i: Json) => i.metadata.name),
      ['cfg-a'],
    );
    const past = await s.call('GET', `${V2}/namespaces/${NS}/configmaps?limit=10&page=99`);
    assert.equal(past.status, 200);
    assert.deepEqual(past.body.items, []);
    assert.ok(past.body.total_count >= 3);
  });

  test('Secrets never carry values', async () => {
    const r = await s.call('GET', `${V2}/namespaces/${NS}/secrets`);
    assert.equal(r.status, 200);
    const creds = r.body.items.find((i: Json) => i.metadata.name === 'creds');
    assert.ok(creds);
    assert.equal(creds.data, undefined);
    assert.ok(!JSON.stringify(r.body).includes('c2VjcmV0'));
  });

  test('bad input: bad conditions 400, unknown resource 404, cluster resource in a namespace 404', async () => {
    const bad = await s.call('GET', `${V2}/namespaces/${NS}/configmaps?conditions=nonsense`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.kind, 'Status');
    const unknown = await s.call('GET', `${V2}/widgets`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.kind, 'Status');
    const scoped = await s.call('GET', `${V2}/namespaces/${NS}/nodes`);
    assert.equal(scoped.status, 404);
    const order = await s.call('GET', `${V2}/configmaps?orderBy=size`);
    assert.equal(order.status, 400);
  });

  test('cluster-wide search of nodes with a status condition', async () => {
    const r = await s.call('GET', `${V2}/nodes?conditions=status=running&paging=limit=-1,page=1`);
    assert.equal(r.status, 200);
    assert.ok(r.body.total_count >= 1);
    assert.equal(r.body.items.length, r.body.total_count);
  });
});

describe('revisions', () => {
  test('a deployment revision is its ReplicaSet with that revision', async () => {
    await mk(`/apis/apps/v1/namespaces/${NS}/deployments`, {
      metadata: { name: 'web' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
        },
      },
    });
    const r = await until(async () => {
      const x = await s.call('GET', `${V2}/namespaces/${NS}/deployments/web/revisions/1`);
      return x.status === 200 ? x : undefined;
    }, 'revision 1');
    assert.equal(r.body.kind, 'ReplicaSet');
    assert.equal(r.body.metadata.annotations['deployment.kubernetes.io/revision'], '1');
    assert.equal(r.body.metadata.ownerReferences[0].name, 'web');
    const none = await s.call('GET', `${V2}/namespaces/${NS}/deployments/web/revisions/9`);
    assert.equal(none.status, 404);
    assert.equal(none.body.kind, 'Status');
  });

  test('a statefulset revision is the workload rebuilt from its ControllerRevision', async () => {
    const sts = await mk(`/apis/apps/v1/namespaces/${NS}/statefulsets`, {
      metadata: { name: 'db' },
      spec: {
        replicas: 0,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'c', image: 'pg:2' }] },
        },
      },
    });
    await mk(`/apis/apps/v1/namespaces/${NS}/controllerrevisions`, {
      metadata: {
        name: 'db-old',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: sts.metadata.uid, controller: true },
        ],
      },
      revision: 41,
      data: {
        spec: {
          template: {
            $patch: 'replace',
            metadata: { labels: { app: 'db' } },
            spec: { containers: [{ name: 'c', image: 'pg:1' }] },
          },
        },
      },
    });
    const r = await until(async () => {
      const x = await s.call('GET', `${V2}/namespaces/${NS}/statefulsets/db/revisions/41`);
      return x.status === 200 ? x : undefined;
    }, 'revision 41');
    assert.equal(r.body.kind, 'StatefulSet');
    assert.equal(r.body.metadata.name, 'db');
    assert.equal(r.body.spec.template.spec.containers[0].image, 'pg:1');
    assert.equal(r.body.spec.template.$patch, undefined);
    assert.equal(r.body.spec.serviceName, 'db');
    const bad = await s.call('GET', `${V2}/namespaces/${NS}/statefulsets/db/revisions/latest`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.kind, 'Status');
    const missing = await s.call('GET', `${V2}/namespaces/${NS}/daemonsets/nope/revisions/1`);
    assert.equal(missing.status, 404);
  });
});

describe('not served on purpose', () => {
  test('git/verify, registry/* and users/{user}/kubectl answer a 404 Status', async () => {
    const cases: [string, string, Json?][] = [
      [
        'POST',
        `${V2}/git/verify`,
        { remoteUrl: 'http://127.0.0.1:1/x', secretRef: { name: 'creds', namespace: NS } },
      ],
      ['POST', `${V2}/registry/verify`, {}],
      ['GET', `${V2}/registry/blob?image=nginx&namespace=${NS}&secret=creds`],
      ['GET', `${V2}/users/admin/kubectl`],
    ];
    for (const [method, path, body] of cases) {
      const r = await s.call(method, path, body);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.kind, 'Status', `${method} ${path}`);
    }
  });
});

describe('v1alpha3 additions', () => {
  test('users never carry a password; IAM and RBAC types are listed', async () => {
    const users = await s.call('GET', `${V3}/users`);
    assert.equal(users.status, 200);
    assert.ok(users.body.items.some((u: Json) => u.metadata.name === 'admin'));
    assert.ok(!/password/i.test(JSON.stringify(users.body)), 'no password field');
    assert.ok(!/\$2[aby]\$/.test(JSON.stringify(users.body)), 'no bcrypt hash');
    const admin = await s.call('GET', `${V3}/users/admin`);
    assert.equal(admin.status, 200);
    assert.equal(admin.body.spec?.password, undefined);
    for (const type of [
      'globalroles',
      'clusterroles',
      'clusterrolebindings',
      'workspacetemplates',
      'workspaceroles',
    ]) {
      const r = await s.call('GET', `${V3}/${type}?limit=1`);
      assert.equal(r.status, 200, type);
      assert.equal(typeof r.body.totalItems, 'number', type);
    }
    const roles = await s.call('GET', `${V3}/namespaces/${NS}/roles`);
    assert.equal(roles.status, 200);
  });

  test("the console's per-kind sorts: pods by startTime, workloads by updateTime; others stay a 400", async () => {
    await podWithStatus(
      NS,
      'started-late',
      { sort: 'start' },
      { ...running(true), startTime: '2030-01-02T00:00:00Z' },
    );
    await podWithStatus(
      NS,
      'started-early',
      { sort: 'start' },
      { ...running(true), startTime: '2030-01-01T00:00:00Z' },
    );
    const pods = await until(async () => {
      const r = await s.call(
        'GET',
        `${V3}/namespaces/${NS}/pods?sortBy=startTime&ascending=true&label=sort=start`,
      );
      return r.status === 200 && r.body.totalItems === 2 ? r : undefined;
    }, 'pods with start times');
    assert.deepEqual(
      pods.body.items.map((i: Json) => i.metadata.name),
      ['started-early', 'started-late'],
    );
    const deployments = await s.call('GET', `${V3}/namespaces/${NS}/deployments?sortBy=updateTime&limit=10`);
    assert.equal(deployments.status, 200);
    const jobs = await s.call('GET', `${V3}/jobs?sortBy=updateTime`);
    assert.equal(jobs.status, 200);
    const bad = await s.call('GET', `${V3}/configmaps?sortBy=startTime`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.kind, 'Status');
  });

  test('a type the cluster does not serve is a 404 Status; a legacy-only type answers in the legacy shape', async () => {
    const absent = await s.call('GET', `${V3}/namespaces/${NS}/volumesnapshots`);
    assert.equal(absent.status, 404);
    assert.equal(absent.body.kind, 'Status');
    const s2i = await s.call('GET', `${V3}/s2ibuilders`);
    assert.equal(s2i.status, 404);
    assert.equal(s2i.body.kind, 'Status');
    const unknown = await s.call('GET', `${V3}/widgets`);
    assert.equal(unknown.status, 404);
    // horizontalpodautoscalers is v1alpha2's only: answered in its shape when the cluster serves autoscaling/v2.
    const served = (await s.kube('GET', '/apis/autoscaling/v2')).status === 200;
    const hpa = await s.call('GET', `${V3}/horizontalpodautoscalers`);
    if (served) assert.deepEqual(Object.keys(hpa.body), ['items', 'total_count']);
    else assert.equal(hpa.status, 404);
  });
});
