// monitoring.kubesphere.io/v1alpha3 through the real app and chain, against a stand-in Prometheus that records the
// queries it is sent and answers canned data: the answer's shape, what each route asks Prometheus, ranking and
// paging, and what a page gets when no Prometheus is configured or it is down or failing.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { NOT_CONFIGURED } from '../../../../src/apiserver/kapis/monitoring/routes.ts';
import { buildApiServer } from '../../../../src/apiserver/server.ts';
import { configFromDocument } from '../../../../src/config/index.ts';
import { freePort } from '../../../helpers/ports.ts';
import { TEST_USER, testServerContext } from '../../../helpers/server-context.ts';

const M = '/kapis/monitoring.kubesphere.io/v1alpha3';

interface Seen {
  path: string;
  form: URLSearchParams;
}

/** A stand-in Prometheus: `answer` decides each reply from the query. */
async function fakePrometheus(
  answer: (form: URLSearchParams, path: string) => { status?: number; body: unknown },
) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const path = req.url ?? '';
      seen.push({ path, form });
      const a = answer(form, path);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  after(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function serverWith(monitoring: Record<string, unknown> | undefined) {
  const config = configFromDocument(
    { authorization: { mode: 'AlwaysAllow' }, ...(monitoring ? { monitoring } : {}) },
    'in test',
  ).config;
  const context = testServerContext({ config, user: TEST_USER });
  const server = await buildApiServer(context.ctx);
  after(async () => {
    await server.close();
    await context.close();
  });
  return async (url: string) => {
    const res = await server.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${context.token}` },
    });
    return { status: res.statusCode, body: res.json() };
  };
}

const success = (resultType: string, result: unknown[]) => ({
  body: { status: 'success', data: { resultType, result } },
});

test('no monitoring.endpoint: every selected metric answers 200 with its error, in the catalog order', async () => {
  const get = await serverWith(undefined);
  const one = await get(`${M}/cluster?metrics_filter=cluster_cpu_usage$`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body, {
    results: [{ metric_name: 'cluster_cpu_usage', data: {}, error: NOT_CONFIGURED }],
  });
  const all = await get(`${M}/nodes`);
  assert.equal(all.status, 200);
  assert.ok(all.body.results.length > 30);
  assert.equal(all.body.results[0].metric_name, 'node_cpu_utilisation');
  assert.ok(all.body.results.every((r: { error?: string }) => r.error === NOT_CONFIGURED));
  // A filter selecting nothing: no results.
  assert.deepEqual((await get(`${M}/cluster?metrics_filter=nothing_matches`)).body, { results: [] });
});

test('bad parameters are a 400 Status naming the parameter, before anything is asked', async () => {
  const get = await serverWith(undefined);
  for (const [query, parameter] of [
    ['metrics_filter=(', 'metrics_filter'],
    ['start=200&end=100', 'end'],
    ['start=100&end=200&step=0s', 'step'],
    ['start=100&end=200&step=-10s', 'step'],
    ['time=yesterday', 'time'],
    ['start=0&end=86400&step=1s', 'step'],
  ]) {
    const res = await get(`${M}/cluster?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.kind, 'Status');
    assert.equal(res.body.details.causes[0].field, parameter, query);
  }
  const component = await get(`${M}/components/kube-proxy`);
  assert.equal(component.status, 404);
  assert.equal(component.body.kind, 'Status');
  const kind = await get(`${M}/namespaces/demo/workloads/cronjobs`);
  assert.equal(kind.status, 400);
  const badName = await get(`${M}/nodes/${encodeURIComponent('n1"}')}`);
  assert.equal(badName.status, 400, 'a node name is a DNS subdomain');
});

test('an instant query: POST /api/v1/query with the time and KubeSphere’s PromQL; values in KubeSphere’s shape', async () => {
  const prom = await fakePrometheus(() =>
    success('vector', [{ metric: { node: 'n1' }, value: [1700000000.5, '0.25'] }]),
  );
  const get = await serverWith({ endpoint: prom.url });
  const res = await get(`${M}/nodes/n1?metrics_filter=node_cpu_utilisation$&time=1700000000`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.results, [
    {
      metric_name: 'node_cpu_utilisation',
      data: {
        resultType: 'vector',
        result: [
          {
            metric: { node: 'n1' },
            value: [1700000000.5, '0.25'],
            min_value: '',
            max_value: '',
            avg_value: '',
            sum_value: '',
            fee: '',
            resource_unit: '',
            currency_unit: '',
          },
        ],
      },
    },
  ]);
  assert.equal(prom.seen.length, 1);
  assert.equal(prom.seen[0].path, '/api/v1/query');
  assert.equal(prom.seen[0].form.get('query'), 'node:node_cpu_utilisation:avg1m{node="n1"}');
  assert.equal(prom.seen[0].form.get('time'), '1700000000');
});

test('a range query: POST /api/v1/query_range with start, end and step in seconds; a matrix back', async () => {
  const prom = await fakePrometheus(() =>
    success('matrix', [
      {
        metric: {},
        values: [
          [100, '1'],
          [160, '2'],
        ],
      },
    ]),
  );
  const get = await serverWith({ endpoint: prom.url });
  const res = await get(`${M}/cluster?metrics_filter=cluster_cpu_total$&start=100&end=160&step=60s`);
  assert.equal(res.status, 200);
  const [metric] = res.body.results;
  assert.equal(metric.data.resultType, 'matrix');
  assert.deepEqual(metric.data.result[0].values, [
    [100, '1'],
    [160, '2'],
  ]);
  assert.ok(!('metric' in metric.data.result[0]), 'no labels: no metric field, as KubeSphere');
  const form = prom.seen[0].form;
  assert.equal(prom.seen[0].path, '/api/v1/query_range');
  assert.deepEqual(
    [form.get('query'), form.get('start'), form.get('end'), form.get('step')],
    ['sum(node:node_num_cpu:sum)', '100', '160', '60'],
  );
});

test('resources_filter goes to Prometheus as one closed string literal, whatever it holds', async () => {
  const prom = await fakePrometheus(() => success('vector', []));
  const get = await serverWith({ endpoint: prom.url });
  const attack = 'x"} or vector(1) or up{a="';
  const res = await get(
    `${M}/nodes?metrics_filter=node_cpu_total$&resources_filter=${encodeURIComponent(attack)}`,
  );
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.results, [{ metric_name: 'node_cpu_total', data: { resultType: 'vector' } }]);
  assert.equal(
    prom.seen[0].form.get('query'),
    'node:node_num_cpu:sum{node=~"x\\"} or vector(1) or up{a=\\""}',
  );
});

test("a storage class's claims: KubeSphere's claim metrics over the class, ranked by claim", async () => {
  const prom = await fakePrometheus(() =>
    success('vector', [
      { metric: { namespace: 'a', persistentvolumeclaim: 'small' }, value: [1, '0.1'] },
      { metric: { namespace: 'b', persistentvolumeclaim: 'full' }, value: [1, '0.9'] },
    ]),
  );
  const get = await serverWith({ endpoint: prom.url });
  const res = await get(
    `${M}/storageclasses/standard/persistentvolumeclaims?metrics_filter=pvc_bytes_utilisation$&sort_metric=pvc_bytes_utilisation`,
  );
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.results[0].data.result.map(
      (r: { metric: Record<string, string> }) => r.metric.persistentvolumeclaim,
    ),
    ['full', 'small'],
  );
  assert.equal(res.body.total_item, 2);
  assert.equal(
    prom.seen[0].form.get('query'),
    'max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes / kubelet_volume_stats_capacity_bytes) * on (namespace, persistentvolumeclaim) group_left (storageclass) kube_persistentvolumeclaim_info{storageclass="standard", persistentvolumeclaim=~".*"}',
  );
  const badName = await get(`${M}/storageclasses/${encodeURIComponent('s"}')}/persistentvolumeclaims`);
  assert.equal(badName.status, 400, 'a storage class name is a DNS subdomain');
});

test('ranking: sort_metric orders resources, every metric laid out in that order, one page of `limit`', async () => {
  const cpu: Record<string, string> = { a: '0.5', b: '0.9', c: '0.1', d: 'NaN' };
  const prom = await fakePrometheus((form) => {
    const q = form.get('query') ?? '';
    if (q.startsWith('round(node:node_cpu_utilisation')) {
      return success(
        'vector',
        Object.entries(cpu).map(([node, v]) => ({ metric: { node }, value: [1, v] })),
      );
    }
    // Memory has no sample for `b`, and one for `e`, a node the CPU metric lacks.
    return success(
      'vector',
      ['a', 'c', 'd', 'e'].map((node) => ({ metric: { node }, value: [1, '7'] })),
    );
  });
  const get = await serverWith({ endpoint: prom.url });
  const url = `${M}/nodes?metrics_filter=${encodeURIComponent('node_cpu_usage|node_memory_total$')}&sort_metric=node_cpu_usage`;
  const nodes = (r: { data: { result?: { metric?: { node: string } }[] } }) =>
    (r.data.result ?? []).map((v) => v.metric?.node ?? '-');

  const first = await get(`${url}&limit=2`);
  assert.equal(first.status, 200);
  assert.deepEqual([first.body.page, first.body.total_page, first.body.total_item], [1, 3, 5]);
  const [cpuResult, memResult] = first.body.results;
  assert.equal(cpuResult.metric_name, 'node_cpu_usage');
  assert.deepEqual(nodes(cpuResult), ['b', 'a']);
  assert.deepEqual(
    nodes(memResult),
    ['-', 'a'],
    'b has no memory sample: an empty slot keeps the rows aligned',
  );

  const last = await get(`${url}&limit=2&page=3`);
  assert.deepEqual(nodes(last.body.results[0]), ['-'], 'e, which the CPU metric lacks, ranks last');
  assert.deepEqual(nodes(last.body.results[1]), ['e']);

  const asc = await get(`${url}&limit=5&sort_type=asc`);
  assert.deepEqual(
    nodes(asc.body.results[0]),
    ['c', 'a', 'b', 'd', '-'],
    'NaN after numbers, absent after NaN',
  );

  const beyond = await get(`${url}&limit=5&page=9`);
  assert.deepEqual(beyond.body.results[0].data, { resultType: 'vector' });
});

test('Prometheus refusing a query, answering garbage, or down: 200, each metric with its error', async () => {
  const prom = await fakePrometheus((form) =>
    form.get('query')?.includes('num_cpu')
      ? { status: 400, body: { status: 'error', errorType: 'bad_data', error: 'parse error at char 3' } }
      : { status: 502, body: 'not json' },
  );
  const get = await serverWith({ endpoint: prom.url });
  const res = await get(
    `${M}/cluster?metrics_filter=${encodeURIComponent('cluster_cpu_total|cluster_memory_total$')}`,
  );
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.results[0], {
    metric_name: 'cluster_cpu_total',
    data: {},
    error: 'bad_data: parse error at char 3',
  });
  assert.match(res.body.results[1].error, /HTTP status 502/);

  const port = await freePort();
  const down = await serverWith({ endpoint: `http://127.0.0.1:${port}` });
  const answer = await down(`${M}/cluster?metrics_filter=cluster_cpu_total$`);
  assert.equal(answer.status, 200);
  const expected = `Post "http://127.0.0.1:${port}/api/v1/query": connect ECONNREFUSED`;
  assert.ok(answer.body.results[0].error.startsWith(expected), answer.body.results[0].error);
});

test('credentials in monitoring.endpoint become Basic authentication and never appear in an error', async () => {
  let authorization: string | undefined;
  const server = createServer((req, res) => {
    authorization = req.headers.authorization;
    res.writeHead(503).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  after(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  const get = await serverWith({ endpoint: `http://scraper:S3cret-Pw@127.0.0.1:${port}/prom/` });
  const res = await get(`${M}/cluster?metrics_filter=cluster_cpu_total$`);
  assert.equal(authorization, `Basic ${Buffer.from('scraper:S3cret-Pw').toString('base64')}`);
  assert.equal(res.status, 200);
  assert.ok(res.body.results[0].error);
  assert.ok(!JSON.stringify(res.body).includes('S3cret'), 'the password is not in the answer');
});
