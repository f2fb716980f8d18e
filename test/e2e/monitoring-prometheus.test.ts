// monitoring.kubesphere.io/v1alpha3 against a real Prometheus that scrapes kapiserver's own /metrics (with a bearer
// token from a real login), with the recording rules KubeSphere's apiserver component metrics read, defined over
// kapiserver's request counter. Real HTTP to a real kapiserver on the dev cluster; who may read which metrics is
// decided by real RBAC (a project viewer reads only their project's).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Json } from '../apiserver/kapis/helpers.ts';
import { bearer, createUser, devRest, eventually, login } from '../helpers/oauth.ts';
import { freePort } from '../helpers/ports.ts';
import { prometheusUnavailableReason, startPrometheus, type TestPrometheus } from '../helpers/prometheus.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const M = '/kapis/monitoring.kubesphere.io/v1alpha3';
const WORKSPACE = 'system-workspace';
const PROJECT = 'metrics-demo';
const MEMBER = 'project-viewer';
const MEMBER_PASSWORD = 'Viewer-Pw-2024';
const unavailable = prometheusUnavailableReason();
if (unavailable) console.log(`# skipped: ${unavailable}`);

let stack: TestStack;
let prometheusPort: number;
let prometheus: TestPrometheus | undefined;
let adminToken: string;

async function get(path: string, token = adminToken): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${stack.url}${path}`, { headers: bearer(token) });
  return { status: res.status, body: await res.json() };
}

const firstValue = (metric: Json): string | undefined => metric.data.result?.[0]?.value?.[1];

before(async () => {
  if (unavailable) return;
  // kapiserver is told the port before Prometheus listens on it: until then it is a configured but down Prometheus.
  prometheusPort = await freePort();
  stack = await startTestStack({
    configDocument: { monitoring: { endpoint: `http://127.0.0.1:${prometheusPort}` } },
  });
  adminToken = (await login(stack)).access_token;
});

after(async () => {
  await prometheus?.stop();
  await stack?.close();
});

test('configured but down: 200, every metric with the connection error, so pages still render', {
  skip: unavailable,
}, async () => {
  const res = await get(`${M}/components/apiserver`);
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.results.map((r: Json) => r.metric_name),
    [
      'apiserver_up_sum',
      'apiserver_request_rate',
      'apiserver_request_by_verb_rate',
      'apiserver_request_latencies',
      'apiserver_request_by_verb_latencies',
    ],
  );
  for (const r of res.body.results) {
    assert.deepEqual(r.data, {});
    assert.ok(r.error.startsWith(`Post "http://127.0.0.1:${prometheusPort}/api/v1/query": `), r.error);
  }
});

test('Prometheus scraping kapiserver: component metrics answer its values, instant and over a range', {
  skip: unavailable,
}, async () => {
  prometheus = await startPrometheus({
    port: prometheusPort,
    targets: [{ job: 'kapiserver', target: new URL(stack.url).host, bearerToken: adminToken }],
    ruleGroups: [
      {
        name: 'kubesphere-apiserver',
        rules: [
          { record: 'apiserver:up:sum', expr: 'sum(up{job="kapiserver"})' },
          {
            record: 'apiserver:apiserver_request_total:sum_irate',
            expr: 'sum(irate(ks_server_request_total{job="kapiserver"}[1m]))',
          },
        ],
      },
    ],
  });
  await prometheus.waitForScrape();

  const up = await eventually(
    async () => {
      const r = await get(`${M}/components/apiserver?metrics_filter=apiserver_up_sum$`);
      return firstValue(r.body.results[0]) !== undefined && r;
    },
    30_000,
    'the apiserver:up:sum rule to be evaluated',
  );
  assert.equal(up.status, 200);
  const [metric] = up.body.results;
  assert.equal(metric.metric_name, 'apiserver_up_sum');
  assert.equal(metric.error, undefined);
  assert.equal(metric.data.resultType, 'vector');
  // The same value Prometheus itself holds for the recording rule.
  const own = await prometheus.query('apiserver:up:sum');
  assert.equal(firstValue(metric), own[0].value[1]);
  assert.equal(firstValue(metric), '1');

  // The request rate over kapiserver's own counter, once two scrapes exist.
  const rate = await eventually(
    async () => {
      const r = await get(`${M}/components/apiserver?metrics_filter=apiserver_request_rate$`);
      const v = firstValue(r.body.results[0]);
      return v !== undefined && Number(v) > 0 && v;
    },
    30_000,
    'a request rate',
  );
  assert.ok(Number(rate) > 0);

  const end = Math.floor(Date.now() / 1000);
  const range = await get(
    `${M}/components/apiserver?metrics_filter=apiserver_up_sum$&start=${end - 20}&end=${end}&step=2s`,
  );
  assert.equal(range.status, 200);
  const series = range.body.results[0].data;
  assert.equal(series.resultType, 'matrix');
  const values: [number, string][] = series.result[0].values;
  assert.ok(values.length >= 1);
  assert.ok(values.every(([t, v]) => t >= end - 20 && t <= end && v === '1'));
});

test('every metric of every route is PromQL the real Prometheus accepts (no metric answers an error)', {
  skip: unavailable,
}, async () => {
  await createProject();
  const end = Math.floor(Date.now() / 1000);
  for (const path of [
    '/cluster',
    '/nodes',
    '/nodes/dev-node',
    '/nodes/dev-node/pods',
    '/workspaces',
    `/workspaces/${WORKSPACE}`,
    `/workspaces/${WORKSPACE}/namespaces`,
    '/namespaces',
    `/namespaces/${PROJECT}`,
    `/namespaces/${PROJECT}/workloads`,
    `/namespaces/${PROJECT}/workloads/deployments`,
    `/namespaces/${PROJECT}/workloads/deployment/web/pods`,
    '/pods',
    `/namespaces/${PROJECT}/pods`,
    `/namespaces/${PROJECT}/pods/web-1`,
    `/namespaces/${PROJECT}/pods/web-1/containers`,
    '/components/etcd',
    '/components/scheduler',
  ]) {
    for (const window of ['', `&start=${end - 60}&end=${end}&step=30s`]) {
      const res = await get(`${M}${path}?resources_filter=${encodeURIComponent('.*')}${window}`);
      assert.equal(res.status, 200, `${path}${window}`);
      assert.ok(res.body.results.length > 0, path);
      for (const r of res.body.results)
        assert.equal(r.error, undefined, `${path} ${r.metric_name}: ${r.error}`);
    }
  }
});

test('a resources_filter cannot widen the query: Prometheus reads it as one regex (no data, no error)', {
  skip: unavailable,
}, async () => {
  const attack = 'x"} or vector(1) or up{job=~".*';
  const res = await get(
    `${M}/nodes?metrics_filter=node_cpu_total$&resources_filter=${encodeURIComponent(attack)}`,
  );
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.results, [{ metric_name: 'node_cpu_total', data: { resultType: 'vector' } }]);
});

test('platform and workspace counts come from the cache and match the cluster', {
  skip: unavailable,
}, async () => {
  await createProject();
  const rest = devRest(stack);
  const users = await rest.list('/apis/iam.kubesphere.io/v1alpha2/users');
  const templates = await rest.list('/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates');
  const res = await eventually(
    async () => {
      const r = await get(`${M}/kubesphere`);
      const counts = Object.fromEntries(r.body.results.map((m: Json) => [m.metric_name, firstValue(m)]));
      return counts.kubesphere_user_count === String(users.items.length) && counts;
    },
    15_000,
    'the user count to match',
  );
  assert.deepEqual(res, {
    kubesphere_cluser_count: '1',
    kubesphere_workspace_count: String(templates.items.length),
    kubesphere_user_count: String(users.items.length),
    kubesphere_app_template_count: '0',
  });

  const namespaces = await rest.list(
    `/api/v1/namespaces?labelSelector=kubesphere.io/workspace%3D${WORKSPACE}`,
  );
  const stats = await get(`${M}/workspaces/${WORKSPACE}?type=statistics`);
  assert.equal(stats.status, 200);
  const byName = Object.fromEntries(stats.body.results.map((m: Json) => [m.metric_name, firstValue(m)]));
  assert.equal(byName.workspace_namespace_count, String(namespaces.items.length));
  assert.ok(namespaces.items.some((n) => n.metadata?.name === PROJECT));
  assert.equal(byName.workspace_devops_project_count, '0');
  assert.ok('workspace_member_count' in byName && 'workspace_role_count' in byName);
});

test('a project viewer reads their project’s metrics only; never the cluster’s or another project’s', {
  skip: unavailable,
}, async () => {
  await createProject();
  const token = await projectViewerToken();
  const own = await get(`${M}/namespaces/${PROJECT}/pods?metrics_filter=pod_cpu_usage$`, token);
  assert.equal(own.status, 200, JSON.stringify(own.body));
  assert.equal(own.body.results[0].metric_name, 'pod_cpu_usage');
  assert.equal((await get(`${M}/namespaces/${PROJECT}`, token)).status, 200);
  assert.equal((await get(`${M}/namespaces/${PROJECT}/persistentvolumeclaims`, token)).status, 200);
  for (const path of [
    '/cluster',
    '/nodes',
    '/namespaces',
    '/namespaces/kube-system/pods',
    '/namespaces/kube-system/persistentvolumeclaims',
    '/namespaces/kube-system/persistentvolumeclaims/data',
    // Every user reads StorageClasses, not the claims of every namespace through one.
    '/storageclasses/standard/persistentvolumeclaims',
    '/kubesphere',
    '/workspaces',
  ]) {
    const res = await get(`${M}${path}`, token);
    assert.equal(res.status, 403, path);
    assert.equal(res.body.kind, 'Status');
  }
  // Without a token: 401, nothing asked of Prometheus.
  const anonymous = await fetch(`${stack.url}${M}/cluster`);
  assert.equal(anonymous.status, 401);
});

test('a namespace that does not exist is a 404; before it existed, each metric has no data', {
  skip: unavailable,
}, async () => {
  await createProject();
  const missing = await get(`${M}/namespaces/no-such-project/pods`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.kind, 'Status');
  const early = await get(`${M}/namespaces/${PROJECT}?metrics_filter=namespace_pod_count$&time=1000`);
  assert.equal(early.status, 200);
  assert.deepEqual(early.body.results, [{ metric_name: 'namespace_pod_count', data: {} }]);
});

let projectCreated = false;

/** The project in the workspace, with the namespace roles kapiserver's controller gives it. */
async function createProject(): Promise<void> {
  if (projectCreated) return;
  const rest = devRest(stack);
  await rest.create('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: PROJECT, labels: { 'kubesphere.io/workspace': WORKSPACE } },
  });
  await eventually(
    () => rest.get(`/apis/rbac.authorization.k8s.io/v1/namespaces/${PROJECT}/roles/viewer`).then(Boolean),
    15_000,
    'the project roles',
  );
  projectCreated = true;
}

async function projectViewerToken(): Promise<string> {
  await createUser(stack, MEMBER, MEMBER_PASSWORD);
  await devRest(stack).create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${PROJECT}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${MEMBER}-viewer`, labels: { 'iam.kubesphere.io/user-ref': MEMBER } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'viewer' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: MEMBER }],
  });
  const token = (await login(stack, MEMBER, MEMBER_PASSWORD)).access_token;
  // The binding reaches the authorizer's cache through its watch.
  await eventually(
    async () => (await get(`${M}/namespaces/${PROJECT}/pods`, token)).status === 200,
    15_000,
    'the viewer binding to take effect',
  );
  return token;
}
