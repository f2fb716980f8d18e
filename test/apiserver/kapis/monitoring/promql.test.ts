// The PromQL of a request: KubeSphere's templates with the scope's matchers, every request value a closed string
// literal. The e2e test (test/e2e/monitoring-prometheus.test.ts) has a real Prometheus parse and run them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricsOf } from '../../../../src/apiserver/kapis/monitoring/catalog.ts';
import { expressionOf, literalRegex, quote } from '../../../../src/apiserver/kapis/monitoring/promql.ts';

const template = (family: Parameters<typeof metricsOf>[0], name: string) => {
  const t = metricsOf(family).get(name);
  assert.ok(t, `${family} has ${name}`);
  return t;
};

test('quote escapes backslashes and quotes and control line breaks, so a value cannot end the literal', () => {
  assert.equal(quote('a'), '"a"');
  assert.equal(quote('a"} or vector(1) or x{y="'), '"a\\"} or vector(1) or x{y=\\""');
  assert.equal(quote('\\"'), '"\\\\\\""');
  assert.equal(quote('x\ny'), '"x\\ny"');
});

test('literalRegex matches the name itself, not a pattern', () => {
  const name = 'web.v1-app';
  const re = new RegExp(`^${literalRegex(name)}$`);
  assert.ok(re.test(name));
  assert.ok(!re.test('webxv1-app'));
  assert.equal(literalRegex('a|b(.*)'), 'a\\|b\\(\\.\\*\\)');
});

test('node metrics: one node by name, else the resources_filter regex', () => {
  const t = template('node', 'node_cpu_utilisation');
  assert.equal(
    expressionOf('node_cpu_utilisation', t, { family: 'node', node: 'n1', filter: '.*' }),
    'node:node_cpu_utilisation:avg1m{node="n1"}',
  );
  assert.equal(
    expressionOf('node_cpu_utilisation', t, { family: 'node', filter: 'a|b$' }),
    'node:node_cpu_utilisation:avg1m{node=~"a|b$"}',
  );
});

test('etcd_server_list keeps label_replace\'s "$1"', () => {
  const t = template('etcd', 'etcd_server_list');
  assert.equal(expressionOf('etcd_server_list', t, { family: 'etcd' }), t);
  assert.ok(t.includes('"$1"'));
});

test('a filter holding `$2` or `"}` is filled in once and stays inside its literal', () => {
  const t = template('pod', 'pod_cpu_usage');
  const expr = expressionOf('pod_cpu_usage', t, {
    family: 'pod',
    namespace: 'demo',
    filter: '$2"} or up{x="',
  });
  assert.ok(expr.includes('kube_pod_info{pod=~"$2\\"} or up{x=\\"", namespace="demo"}'), expr);
  assert.ok(expr.includes('kube_pod_owner{}'), 'no owner matcher for a namespace list');
  assert.ok(!expr.includes('$1'));
});

test('namespace metrics within a workspace keep the workspace matcher beside the filter', () => {
  const t = template('namespace', 'namespace_pod_count');
  const expr = expressionOf('namespace_pod_count', t, {
    family: 'namespace',
    workspace: 'ws1',
    filter: '.*',
  });
  assert.ok(expr.includes('kube_namespace_labels{workspace="ws1", namespace=~".*"}'), expr);
});

test('workload metrics: kind and filter in the workload label, the kind matcher only for its own metrics', () => {
  const scope = { family: 'workload', namespace: 'demo', kind: 'Deployment', filter: 'web' } as const;
  assert.equal(
    expressionOf('workload_cpu_usage', template('workload', 'workload_cpu_usage'), scope),
    'round(namespace:workload_cpu_usage:sum{namespace="demo", workload=~"Deployment:(web)"}, 0.001)',
  );
  const replicas = expressionOf(
    'workload_deployment_replica',
    template('workload', 'workload_deployment_replica'),
    scope,
  );
  assert.ok(
    replicas.includes('kube_deployment_spec_replicas{namespace="demo", deployment!="", deployment=~"web"}'),
  );
});

test("a deployment's pods are matched through its ReplicaSets' names, the name taken literally", () => {
  const expr = expressionOf('pod_memory_usage', template('pod', 'pod_memory_usage'), {
    family: 'pod',
    namespace: 'demo',
    owner: { kind: 'Deployment', name: 'web.v2' },
    filter: '.*',
  });
  assert.ok(
    expr.includes('kube_pod_owner{owner_kind="ReplicaSet", owner_name=~"^web\\\\.v2-[^-]{1,10}$"}'),
    expr,
  );
});

test('pods named with their namespace become one matcher per label, names taken literally', () => {
  const expr = expressionOf('pod_cpu_usage', template('pod', 'pod_cpu_usage'), {
    family: 'pod',
    node: 'n1',
    pods: [
      { namespace: 'a', pod: 'p.1' },
      { namespace: 'b', pod: 'p2' },
    ],
    filter: '.*',
  });
  assert.ok(expr.includes('kube_pod_info{node="n1", pod=~".*", namespace=~"a|b", pod=~"p\\\\.1|p2"}'), expr);
});

test('container metrics name the pod and namespace exactly', () => {
  const expr = expressionOf('container_cpu_usage', template('container', 'container_cpu_usage'), {
    family: 'container',
    namespace: 'demo',
    pod: 'p1',
    filter: 'app',
  });
  assert.ok(expr.includes('image!="", pod="p1", namespace="demo", container=~"app"}'), expr);
});

test("claim metrics: a namespace's claims (one by name, else the filter) or a storage class's", () => {
  const t = template('pvc', 'pvc_bytes_utilisation');
  const info = (matchers: string) => `group_left (storageclass) kube_persistentvolumeclaim_info{${matchers}}`;
  const one = expressionOf('pvc_bytes_utilisation', t, {
    family: 'pvc',
    namespace: 'demo',
    pvc: 'data',
    filter: '.*',
  });
  assert.ok(
    one.startsWith('max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes / '),
    one,
  );
  assert.ok(one.endsWith(info('namespace="demo", persistentvolumeclaim="data"')), one);
  const some = expressionOf('pvc_bytes_used', template('pvc', 'pvc_bytes_used'), {
    family: 'pvc',
    namespace: 'demo',
    filter: 'db-.*',
  });
  assert.ok(some.endsWith(info('namespace="demo", persistentvolumeclaim=~"db-.*"')), some);
  const byClass = expressionOf('pvc_inodes_total', template('pvc', 'pvc_inodes_total'), {
    family: 'pvc',
    storageClass: 'standard',
    filter: '.*',
  });
  assert.ok(byClass.endsWith(info('storageclass="standard", persistentvolumeclaim=~".*"')), byClass);
});

test('every catalog template is filled; cluster and component ones stay as they are (etcd keeps its "$1")', () => {
  const scopes = {
    cluster: { family: 'cluster' },
    node: { family: 'node', filter: '.*' },
    workspace: { family: 'workspace', filter: '.*' },
    namespace: { family: 'namespace', filter: '.*' },
    workload: { family: 'workload', namespace: 'd', filter: '.*' },
    pod: { family: 'pod', namespace: 'd', filter: '.*' },
    container: { family: 'container', namespace: 'd', pod: 'p', filter: '.*' },
    pvc: { family: 'pvc', namespace: 'd', filter: '.*' },
    etcd: { family: 'etcd' },
    apiserver: { family: 'apiserver' },
    scheduler: { family: 'scheduler' },
  } as const;
  for (const [family, scope] of Object.entries(scopes)) {
    for (const [name, t] of metricsOf(family as keyof typeof scopes)) {
      const expr = expressionOf(name, t, scope);
      if ('filter' in scope) assert.ok(!/\$[12]/.test(expr), `${name}: ${expr}`);
      else assert.equal(expr, t);
    }
  }
});
