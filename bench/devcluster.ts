// Dev cluster benchmark (loopback only, bounded loops): writes per second over HTTPS, memory per 10,000 small
// objects, list latency for 10,000 nodes (full list and limit=100 pages), watch fan-out to 50 watchers.
// Prints one JSON document and a one-line summary.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startDevClusterInternal } from '../src/devcluster/index.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const NODES = 10_000;
const WRITES = 2_000;
const WRITE_CONCURRENCY = 8;
const WATCHERS = 50;
const WATCH_EVENTS = 100;

const dataDir = mkdtempSync(join(tmpdir(), 'devcluster-bench-'));
const dev = await startDevClusterInternal({ dataDir, port: 0, seedDemoData: false, historyLimit: 50_000 });
const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: dev.caPem });

function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${dev.url}${path}`, {
      method,
      agent,
      headers: {
        Authorization: `Bearer ${dev.token}`,
        Accept: 'application/json',
        ...(payload ? { 'Content-Type': contentType } : {}),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
};

// 1. writes per second (HTTPS POST of small configmaps, fsync per write)
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: WRITE_CONCURRENCY }, async () => {
    while (next < WRITES) {
      const i = next++;
      const r = await call('POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: `w${i}` },
        data: { i: String(i) },
      });
      if (r.status !== 201) throw new Error(`write failed: ${r.status} ${r.text}`);
    }
  }),
);
const writeSeconds = (performance.now() - t0) / 1000;
const writesPerSecond = Math.round(WRITES / writeSeconds);

// 2. memory per 10,000 small objects (nodes written through the REST layer, measured after GC)
const nodeDef = dev.rest.registry.find('', 'v1', 'nodes');
if (!nodeDef) throw new Error('nodes not served');
gc();
const heapBefore = process.memoryUsage().heapUsed;
const rssBefore = process.memoryUsage().rss;
const t1 = performance.now();
for (let i = 0; i < NODES; i++) {
  dev.rest.create(nodeDef, '', {
    metadata: {
      name: `bench-node-${String(i).padStart(5, '0')}`,
      labels: { 'kubernetes.io/hostname': `bench-node-${i}`, zone: `z${i % 3}` },
    },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    },
  });
}
const inProcessWritesPerSecond = Math.round(NODES / ((performance.now() - t1) / 1000));
gc();
const heapPer10k = process.memoryUsage().heapUsed - heapBefore;
const rssPer10k = process.memoryUsage().rss - rssBefore;

// 3. list latency, 10,000 nodes
const full: number[] = [];
let fullBytes = 0;
for (let i = 0; i < 5; i++) {
  const s = performance.now();
  const r = await call('GET', '/api/v1/nodes');
  full.push(performance.now() - s);
  fullBytes = r.text.length;
  if ((JSON.parse(r.text) as { items: unknown[] }).items.length !== NODES) throw new Error('short list');
}
const pages: number[] = [];
const traversal: number[] = [];
for (let round = 0; round < 2; round++) {
  const start = performance.now();
  let cont = '';
  let count = 0;
  do {
    const s = performance.now();
    const r = await call(
      'GET',
      `/api/v1/nodes?limit=100${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
    );
    pages.push(performance.now() - s);
    const body = JSON.parse(r.text) as { items: unknown[]; metadata: { continue?: string } };
    count += body.items.length;
    cont = body.metadata.continue ?? '';
  } while (cont);
  traversal.push(performance.now() - start);
  if (count !== NODES) throw new Error(`paged list returned ${count}`);
}
const selected: number[] = [];
for (let i = 0; i < 5; i++) {
  const s = performance.now();
  await call('GET', '/api/v1/nodes?labelSelector=zone%3Dz1');
  selected.push(performance.now() - s);
}

// 4. watch fan-out: 50 watchers on nodes, 100 updates, time from write to delivery at every watcher
const sentAt = new Map<string, number>();
const delays: number[] = [];
let delivered = 0;
const watchReqs = await Promise.all(
  Array.from(
    { length: WATCHERS },
    () =>
      new Promise<ReturnType<typeof request>>((resolve, reject) => {
        const req = request(`${dev.url}/api/v1/nodes?watch=true&resourceVersion=${dev.store.currentRv}`, {
          headers: { Authorization: `Bearer ${dev.token}` },
          ca: dev.caPem,
          agent: false,
        });
        req.on('response', (res) => {
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            let nl = buf.indexOf('\n');
            while (nl >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              const name = /"name":"(bench-node-\d+)"/.exec(line)?.[1];
              const at = name ? sentAt.get(name) : undefined;
              if (at !== undefined) delays.push(performance.now() - at);
              delivered++;
              nl = buf.indexOf('\n');
            }
          });
          resolve(req);
        });
        req.on('error', reject);
        req.end();
      }),
  ),
);
const tw = performance.now();
for (let i = 0; i < WATCH_EVENTS; i++) {
  const name = `bench-node-${String(i).padStart(5, '0')}`;
  sentAt.set(name, performance.now());
  const r = await call(
    'PATCH',
    `/api/v1/nodes/${name}`,
    { metadata: { labels: { bumped: String(i) } } },
    'application/merge-patch+json',
  );
  if (r.status !== 200) throw new Error(`patch failed: ${r.status} ${r.text}`);
}
const deadline = Date.now() + 60_000;
while (delivered < WATCHERS * WATCH_EVENTS && Date.now() < deadline)
  await new Promise((r) => setTimeout(r, 20));
const fanoutSeconds = (performance.now() - tw) / 1000;
for (const r of watchReqs) r.destroy();

const result = {
  benchmark: 'devcluster',
  writes: {
    count: WRITES,
    concurrency: WRITE_CONCURRENCY,
    perSecondHttps: writesPerSecond,
    perSecondInProcess: inProcessWritesPerSecond,
  },
  memoryPer10kSmallObjects: { heapBytes: heapPer10k, rssBytes: rssPer10k },
  list10kNodes: {
    fullMs: { p50: pct(full, 50), max: pct(full, 100) },
    fullBytes,
    limit100PageMs: { p50: pct(pages, 50), p99: pct(pages, 99) },
    limit100TraversalMs: { p50: pct(traversal, 50) },
    labelSelectorMs: { p50: pct(selected, 50) },
  },
  watchFanout: {
    watchers: WATCHERS,
    events: WATCH_EVENTS,
    delivered,
    expected: WATCHERS * WATCH_EVENTS,
    deliveryMs: { p50: pct(delays, 50), p99: pct(delays, 99) },
    eventsPerSecondDelivered: Math.round(delivered / fanoutSeconds),
  },
};
console.log(JSON.stringify(result, null, 2));
console.log(
  `devcluster: ${writesPerSecond} writes/s (HTTPS, fsync), list 10k nodes p50 ${result.list10kNodes.fullMs.p50} ms, ` +
    `limit=100 page p50 ${result.list10kNodes.limit100PageMs.p50} ms, watch fan-out ${delivered}/${WATCHERS * WATCH_EVENTS} ` +
    `p99 ${result.watchFanout.deliveryMs.p99} ms, ${(heapPer10k / 1024 / 1024).toFixed(1)} MiB heap per 10k objects`,
);
agent.destroy();
await dev.close();
rmSync(dataDir, { recursive: true, force: true });
