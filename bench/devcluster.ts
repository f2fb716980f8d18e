// Dev cluster benchmark (loopback only, bounded loops): CPU per create and per delete (a ConfigMap, a LoginRecord),
// writes per second over HTTPS, memory per 10,000 small objects, list latency for 10,000 nodes (full list and
// limit=100 pages), watch fan-out to 50 watchers.
// Prints one JSON document and a one-line summary.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { IAM_GROUP, IAM_VERSION, LOGIN_RECORD_CRD, USER_CRD } from '../src/apiserver/crds/definitions.ts';
import { startDevClusterInternal } from '../src/devcluster/index.ts';
import { median, ownChild, productionCommand } from './_helpers.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const NODES = 10_000;
const WRITES = 2_000;
const WRITE_CONCURRENCY = 8;
const WATCHERS = 50;
const WATCH_EVENTS = 100;

// 0. CPU per create and per delete, in a dev cluster of its own process (compiled, as `npm start` runs it), so the
// client's work is not counted: a ConfigMap next to a LoginRecord (a custom resource with a structural schema,
// created as kapiserver creates one per login, with generateName and an ownerReference to its User, and deleted as
// its login-record controller prunes them), with a watch on each resource as kapiserver's informers hold. Each round
// creates WRITE_CPU_OBJECTS of a kind at concurrency 4, then deletes them, each phase ending when the watch has seen
// all its events; CPU is the sum over the process's threads (/proc/<pid>/task/*/schedstat, nanoseconds), less the
// idle rate measured before the round. Medians over rounds with [min-max], after a warm-up round.
// BENCH_DEVCLUSTER_BEFORE=<checkout> runs that checkout's dev cluster in the same rounds, interleaved, for
// before/after ratios from one run; BENCH_WRITE_CPU_ONLY=1 stops after this section.
const WRITE_CPU_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WRITE_CPU_OBJECTS = 1000;
const WRITE_CPU_CONCURRENCY = 4;

interface DevProcess extends Target {
  label: string;
  pid: number;
  child: ChildProcessWithoutNullStreams;
}

async function spawnDevCluster(label: string, checkout: string): Promise<DevProcess> {
  const dir = mkdtempSync(join(tmpdir(), `devcluster-bench-${label}-`));
  const command = productionCommand(checkout);
  const child = ownChild(
    spawn(process.execPath, [...command.node, 'devcluster', '--data-dir', dir, '--port', '0'], {
      cwd: checkout,
    }),
  );
  const url = await new Promise<string>((res, rej) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = /"url":"(https:\/\/[^"]+)".*"msg":"dev cluster listening"/.exec(out);
      if (!m) return;
      child.stdout.off('data', onData).resume();
      res(m[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.resume();
    child.once('exit', (code) => rej(new Error(`${label} dev cluster exited (${code}):\n${out}`)));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca: readFileSync(join(dir, 'pki', 'ca.crt')) });
  const token = readFileSync(join(dir, 'devcluster', 'token'), 'utf8').trim();
  child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { label, pid: child.pid as number, url, token, agent, child };
}

/** Where a request goes: a dev cluster's URL, its admin token and a keep-alive agent trusting its CA. */
interface Target {
  url: string;
  token: string;
  agent: Agent;
}

function callAt(
  t: Target,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}${path}`, {
      method,
      agent: t.agent,
      headers: {
        Authorization: `Bearer ${t.token}`,
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

/** CPU nanoseconds of all threads of a process (threads that exited meanwhile are not counted). */
function processCpuNs(pid: number): number {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended
    }
  }
  return ns;
}

/** A watch that counts the events it receives, by type. */
function countingWatch(dp: DevProcess, path: string): { seen: Record<string, number>; close: () => void } {
  const seen: Record<string, number> = {};
  const req = request(`${dp.url}${path}?watch=true`, {
    headers: { Authorization: `Bearer ${dp.token}` },
    agent: new Agent({ ca: dp.agent.options.ca }),
  });
  req.on('response', (res) => {
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      buf += c;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const type = /^\{"type":"(\w+)"/.exec(buf.slice(0, nl))?.[1] ?? 'other';
        seen[type] = (seen[type] ?? 0) + 1;
        buf = buf.slice(nl + 1);
      }
    });
  });
  req.on('error', () => {});
  req.end();
  return { seen, close: () => req.destroy() };
}

const IAM = `/apis/${IAM_GROUP}/${IAM_VERSION}`;
const writeKinds = {
  configMap: {
    path: '/api/v1/namespaces/default/configmaps',
    body: (i: number) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cpu-${i}`, labels: { 'bench/owner': 'admin' } },
      data: { sourceIP: '127.0.0.1', userAgent: 'bench/1.0', reason: '' },
    }),
  },
  loginRecord: {
    path: `${IAM}/loginrecords`,
    body: (_i: number, ownerUid: string) => ({
      apiVersion: `${IAM_GROUP}/${IAM_VERSION}`,
      kind: 'LoginRecord',
      metadata: {
        generateName: 'admin-',
        labels: { 'iam.kubesphere.io/user-ref': 'admin' },
        ownerReferences: [
          { apiVersion: `${IAM_GROUP}/${IAM_VERSION}`, kind: 'User', name: 'admin', uid: ownerUid },
        ],
      },
      spec: {
        type: 'Password',
        provider: '',
        sourceIP: '127.0.0.1',
        userAgent: 'bench/1.0',
        success: true,
        reason: '',
      },
    }),
  },
};
type WriteKind = keyof typeof writeKinds;

async function installLoginRecordCrd(dp: DevProcess): Promise<string> {
  for (const crd of [USER_CRD, LOGIN_RECORD_CRD]) {
    const r = await callAt(dp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (r.status !== 201) throw new Error(`CRD ${crd.metadata.name}: ${r.status} ${r.text}`);
  }
  for (let i = 0; ; i++) {
    const r = await callAt(dp, 'POST', `${IAM}/users`, {
      metadata: { name: 'admin' },
      spec: { email: 'a@b.c' },
    });
    if (r.status === 201) return (JSON.parse(r.text) as { metadata: { uid: string } }).metadata.uid;
    if (i > 100) throw new Error(`user: ${r.status} ${r.text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function untilSeen(seen: Record<string, number>, type: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((seen[type] ?? 0) < count) {
    if (Date.now() > deadline) throw new Error(`watch saw ${seen[type] ?? 0} of ${count} ${type}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Runs `ops` requests at WRITE_CPU_CONCURRENCY; returns the CPU microseconds per request, less the idle rate. */
async function cpuPerRequest(
  dp: DevProcess,
  idleNsPerMs: number,
  run: (i: number) => Promise<void>,
  settled: () => Promise<void>,
): Promise<number> {
  const cpu0 = processCpuNs(dp.pid);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITE_CPU_CONCURRENCY }, async () => {
      while (next < WRITE_CPU_OBJECTS) await run(next++);
    }),
  );
  await settled();
  const ns = processCpuNs(dp.pid) - cpu0 - idleNsPerMs * (performance.now() - t0);
  return ns / 1000 / WRITE_CPU_OBJECTS;
}

async function idleRate(dp: DevProcess): Promise<number> {
  const cpu0 = processCpuNs(dp.pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 500));
  return (processCpuNs(dp.pid) - cpu0) / (performance.now() - t0);
}

function record(samples: Record<string, number[]>, key: string, value: number): void {
  samples[key] = [...(samples[key] ?? []), value];
}

async function writeCpu(): Promise<WriteCpu> {
  const checkouts: [string, string][] = [['current', resolve(import.meta.dirname, '..')]];
  if (process.env.BENCH_DEVCLUSTER_BEFORE)
    checkouts.push(['before', resolve(process.env.BENCH_DEVCLUSTER_BEFORE)]);
  const clusters: { dp: DevProcess; ownerUid: string; samples: Record<string, number[]> }[] = [];
  for (const [label, dir] of checkouts) {
    const dp = await spawnDevCluster(label, dir);
    clusters.push({ dp, ownerUid: await installLoginRecordCrd(dp), samples: {} });
  }
  // Round 0 warms the code up and is not counted.
  for (let round = 0; round <= WRITE_CPU_ROUNDS; round++) {
    for (const c of round % 2 ? [...clusters].reverse() : clusters) {
      for (const kind of Object.keys(writeKinds) as WriteKind[]) {
        const { path, body } = writeKinds[kind];
        const watch = countingWatch(c.dp, path);
        await new Promise((r) => setTimeout(r, 100));
        const idle = await idleRate(c.dp);
        const names: string[] = [];
        const create = await cpuPerRequest(
          c.dp,
          idle,
          async (i) => {
            const r = await callAt(c.dp, 'POST', path, body(round * WRITE_CPU_OBJECTS + i, c.ownerUid));
            if (r.status !== 201) throw new Error(`create ${kind}: ${r.status} ${r.text}`);
            names.push((JSON.parse(r.text) as { metadata: { name: string } }).metadata.name);
          },
          () => untilSeen(watch.seen, 'ADDED', WRITE_CPU_OBJECTS),
        );
        const del = await cpuPerRequest(
          c.dp,
          idle,
          async (i) => {
            const r = await callAt(c.dp, 'DELETE', `${path}/${names[i]}`);
            if (r.status !== 200) throw new Error(`delete ${kind}: ${r.status} ${r.text}`);
          },
          () => untilSeen(watch.seen, 'DELETED', WRITE_CPU_OBJECTS),
        );
        watch.close();
        if (round === 0) continue;
        record(c.samples, `${kind}CreateUs`, create);
        record(c.samples, `${kind}DeleteUs`, del);
      }
    }
  }
  const spread = (xs: number[]): Spread => ({
    median: Math.round(median(xs)),
    min: Math.round(Math.min(...xs)),
    max: Math.round(Math.max(...xs)),
  });
  const out: WriteCpu = { perRequestUs: {} };
  for (const c of clusters) {
    out.perRequestUs[c.dp.label] = Object.fromEntries(
      Object.entries(c.samples).map(([k, xs]) => [k, spread(xs)]),
    );
    c.dp.agent.destroy();
    c.dp.child.kill('SIGTERM');
  }
  // current/before per round (both measured in it), then the median over rounds.
  const [current, before] = clusters;
  if (before)
    out.currentOverBefore = Object.fromEntries(
      Object.entries(current.samples).map(([k, xs]) => [
        k,
        Math.round(median(xs.map((x, i) => x / before.samples[k][i])) * 100) / 100,
      ]),
    );
  return out;
}

interface Spread {
  median: number;
  min: number;
  max: number;
}

interface WriteCpu {
  perRequestUs: Record<string, Record<string, Spread>>;
  currentOverBefore?: Record<string, number>;
}

const writeCpuUs = await writeCpu();
console.log(
  `devcluster CPU per request (us, median [min-max] of ${WRITE_CPU_ROUNDS} rounds x ${WRITE_CPU_OBJECTS}):`,
);
for (const [label, row] of Object.entries(writeCpuUs.perRequestUs))
  console.log(
    `  ${label}: ${Object.entries(row)
      .map(([k, s]) => `${k} ${s.median} [${s.min}-${s.max}]`)
      .join(', ')}`,
  );
if (writeCpuUs.currentOverBefore)
  console.log(
    `  current/before (median of per-round ratios): ${Object.entries(writeCpuUs.currentOverBefore)
      .map(([k, r]) => `${k} ${r}`)
      .join(', ')}`,
  );
if (process.env.BENCH_WRITE_CPU_ONLY) process.exit(0);

const dataDir = mkdtempSync(join(tmpdir(), 'devcluster-bench-'));
const dev = await startDevClusterInternal({ dataDir, port: 0, seedDemoData: false, historyLimit: 50_000 });
const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: dev.caPem });

const call = (method: string, path: string, body?: unknown, contentType?: string) =>
  callAt({ url: dev.url, token: dev.token, agent }, method, path, body, contentType);

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

// 4. watch fan-out: 50 watchers on nodes, 100 updates, time from write to delivery at every watcher. Only each
// watcher's first event showing a node's bump counts: the simulated nodes' heartbeats (which keep the label once
// bumped) are counted apart, so they neither end the wait early nor add late samples.
const sentAt = new Map<string, number>();
const delays: number[] = [];
let delivered = 0;
let otherEvents = 0;
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
          const seen = new Set<string>();
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            let nl = buf.indexOf('\n');
            while (nl >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              const name = /"name":"(bench-node-\d+)"/.exec(line)?.[1];
              const at = name && /"bumped":"\d+"/.test(line) ? sentAt.get(name) : undefined;
              if (name && at !== undefined && !seen.has(name)) {
                seen.add(name);
                delays.push(performance.now() - at);
                delivered++;
              } else otherEvents++;
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
  writeCpu: writeCpuUs,
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
    otherEventsDelivered: otherEvents,
    deliveryMs: { p50: pct(delays, 50), p99: pct(delays, 99) },
    eventsPerSecondDelivered: Math.round(delivered / fanoutSeconds),
    allEventsPerSecondDelivered: Math.round((delivered + otherEvents) / fanoutSeconds),
  },
};
console.log(JSON.stringify(result, null, 2));
const lr = writeCpuUs.perRequestUs.current;
console.log(
  `devcluster: ${writesPerSecond} writes/s (HTTPS, fsync), list 10k nodes p50 ${result.list10kNodes.fullMs.p50} ms, ` +
    `limit=100 page p50 ${result.list10kNodes.limit100PageMs.p50} ms, watch fan-out ${delivered}/${WATCHERS * WATCH_EVENTS} ` +
    `p99 ${result.watchFanout.deliveryMs.p99} ms, ${(heapPer10k / 1024 / 1024).toFixed(1)} MiB heap per 10k objects, ` +
    `LoginRecord create/delete ${lr.loginRecordCreateUs.median}/${lr.loginRecordDeleteUs.median} us CPU`,
);
agent.destroy();
await dev.close();
rmSync(dataDir, { recursive: true, force: true });
