// /metrics after real HTTP traffic: request counters by verb/resource/code, the latency histogram, token issuance,
// health gauges and process metrics, parsed from the Prometheus text format.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createApiMetrics } from '../../../src/apiserver/metrics/index.ts';
import { buildApiServer } from '../../../src/apiserver/server.ts';
import { defaultConfig } from '../../../src/config/index.ts';
import { TEST_USER, testServerContext } from '../../helpers/server-context.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (the subset prom-client writes). */
function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `unparsable metrics line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

function find(samples: Sample[], name: string, labels: Record<string, string>): Sample[] {
  return samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

const metrics = createApiMetrics();
// /metrics is read as a user allowed everything; the counted requests carry no token.
const config = defaultConfig();
config.authorization.mode = 'AlwaysAllow';
const { ctx, token, close } = testServerContext({ config, metrics, user: TEST_USER });
metrics.addHealthCheck('token-store', () => true);
metrics.addHealthCheck('redis', async () => {
  throw new Error('down');
});
metrics.addCacheStats(() => [{ resource: 'nodes', synced: true, objects: 3 }]);
const server = await buildApiServer(ctx);
const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${port}`;
after(async () => {
  await server.close();
  await close();
});

async function scrape(path = '/metrics'): Promise<Sample[]> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseMetrics(await res.text());
}

test('requests are counted by verb, resource and code, with a latency histogram', async () => {
  const codes = new Set<number>();
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${base}/kapis/resources.kubesphere.io/v1alpha3/nodes`);
    codes.add(res.status);
    await res.text();
  }
  assert.equal(codes.size, 1);
  await (await fetch(`${base}/kapis/iam.kubesphere.io/v1alpha2/users/admin`)).text();
  await (await fetch(`${base}/healthz`)).text();
  await (await fetch(`${base}/kapis/version`)).text();
  const samples = await scrape();

  const list = find(samples, 'ks_server_request_total', {
    verb: 'list',
    group: 'resources.kubesphere.io',
    version: 'v1alpha3',
    resource: 'nodes',
    scope: 'cluster',
    component: 'kapis',
    code: String([...codes][0]), // whatever this server without an orchestrator answers a request without a token
  });
  assert.equal(list.length, 1);
  assert.equal(list[0].value, 3);
  const get = find(samples, 'ks_server_request_total', { verb: 'get', resource: 'users', scope: 'resource' });
  assert.equal(get[0]?.value, 1);
  const health = find(samples, 'ks_server_request_total', { verb: 'GET', component: 'healthz', code: '200' });
  assert.equal(health[0]?.value, 1);

  const count = find(samples, 'ks_server_request_duration_seconds_count', {
    verb: 'list',
    resource: 'nodes',
  });
  assert.equal(count[0]?.value, 3);
  const inf = find(samples, 'ks_server_request_duration_seconds_bucket', {
    verb: 'list',
    resource: 'nodes',
    le: '+Inf',
  });
  assert.equal(inf[0]?.value, 3);
  assert.ok(find(samples, 'ks_server_request_duration_seconds_sum', { resource: 'nodes' })[0].value > 0);
});

test('token issuance, health gauges, cache gauges and process metrics are exposed', async () => {
  metrics.tokenIssued('password', 'success');
  metrics.tokenIssued('password', 'failure', 'invalid_grant');
  metrics.tokenIssued('password', 'failure', 'invalid_grant');
  metrics.tokenIssued('made-up-grant', 'failure', 'not-an-oauth-error');
  const samples = await scrape('/kapis/metrics');
  const tok = (l: Record<string, string>) =>
    find(samples, 'kapiserver_oauth_token_requests_total', l)[0]?.value;
  assert.equal(tok({ grant_type: 'password', result: 'success' }), 1);
  assert.equal(tok({ grant_type: 'password', result: 'failure', error: 'invalid_grant' }), 2);
  assert.equal(tok({ grant_type: 'other', result: 'failure', error: 'other' }), 1);

  assert.equal(find(samples, 'kapiserver_component_healthy', { component: 'token-store' })[0]?.value, 1);
  assert.equal(find(samples, 'kapiserver_component_healthy', { component: 'redis' })[0]?.value, 0);
  assert.equal(find(samples, 'kapiserver_cache_synced', { resource: 'nodes' })[0]?.value, 1);
  assert.equal(find(samples, 'kapiserver_cache_objects', { resource: 'nodes' })[0]?.value, 3);
  assert.ok(find(samples, 'process_cpu_user_seconds_total', {})[0].value > 0);
  assert.ok(find(samples, 'process_resident_memory_bytes', {})[0].value > 0);
  assert.ok(find(samples, 'nodejs_heap_size_used_bytes', {}).length === 1);
});

test('client-chosen paths cannot grow the label space without bound', async () => {
  for (let i = 0; i < 260; i++) {
    await server.app.inject({ method: 'GET', url: `/apis/g${i}.example.com/v1/things${i}` });
  }
  const samples = await scrape();
  const resources = new Set(find(samples, 'ks_server_request_total', {}).map((s) => s.labels.resource));
  assert.ok(resources.size <= 202, `resource label has ${resources.size} values`);
  assert.ok(resources.has('other'));
});
