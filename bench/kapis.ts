// List benchmark of the aggregated API (loopback only, bounded): authenticated GET
// /kapis/resources.kubesphere.io/v1alpha3 lists at a small size (100 nodes, 100 pods) and a large one (10,000 nodes,
// 20,000 pods): limit=10 pages for every sort key KubeSphere accepts for nodes (both orders) and pods (startTime),
// with a `name` filter and a `status` filter, and the full node list. The figure that counts is the kapiserver
// process's CPU time per request (from /proc), far less sensitive to neighbours on a shared machine than latency;
// its 10k/100 ratio per page has the target <= 1.2 (pages come from sorted views and index key sets). Median of
// BENCH_ROUNDS rounds, each query's runs interleaved; mean latency is printed beside it. Before each size is measured,
// the dev cluster is left to settle (no node, pod or event change for 10 s: its simulated kubelets start the seeded
// pods and record their events for minutes) and kapiserver to go idle.
// Events: kapiserver caches them from their first list on; the bench lists them before measuring each size, so the
// pages are measured with every event cached (about 4.5 per pod). Memory: RSS of the kapiserver process at both
// sizes before and after the events are cached and the bytes per cached object it implies, the heap and external bytes per cached
// node, pod and event (the same informers, filled in a process of their own: bench/_cache-cost.ts), and the heap cost
// per entry of a sorted view, a key-function view and a name answer, measured in this process. Each size also reports the watch events (nodes,
// pods, events) the dev cluster sent while its pages were measured: informer work inside kapiserver's CPU figure.
// kapiserver runs as its own process from the TypeScript sources (tsx transpiles each module once at load; the code
// that runs per request is the same JavaScript as dist/), against a dev cluster in this process; autocannon runs in
// its own process, so neither shares an event loop with what is measured.
// Prints one JSON document and a one-line summary. Sizes: BENCH_NODES (10000), BENCH_PODS (20000),
// BENCH_SECONDS (4) per run, BENCH_ROUNDS (3). BENCH_CPU_PROF=<dir>: kapiserver's CPU is profiled through its
// inspector over the measured rounds of each size (kapis-<nodes>.cpuprofile; no warm-up, no full list), and the
// main thread's garbage collector share of that CPU is printed per size (it grows with the heap). BENCH_TRACE_GC=1:
// kapiserver runs with --trace-gc and each size reports the scavenges and mark-compacts (count, main-thread ms) of its
// measured rounds. BENCH_NODE_FLAGS: further node flags for kapiserver (experiments, e.g. --max-semi-space-size=32).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { request } from 'undici';
import WebSocket from 'ws';
import { ClusterConnection, type Entry } from '../src/apiserver/cluster/index.ts';
import { SortedView } from '../src/apiserver/cluster/sorted-view.ts';
import { startTestDevCluster } from '../test/helpers/devcluster.ts';
import { login } from '../test/helpers/oauth.ts';
import {
  autocannon,
  benchNode,
  cpuSeconds,
  fill,
  freePort,
  mainThreadCpuSeconds,
  median,
  ownChild,
  rssMiB,
  waitFor,
} from './_helpers.ts';

const NODES = Number(process.env.BENCH_NODES ?? 10_000);
const PODS = Number(process.env.BENCH_PODS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SMALL = 100;
const ROOT = resolve(import.meta.dirname, '..');
const V3 = '/kapis/resources.kubesphere.io/v1alpha3';
const NODES_PATH = `${V3}/nodes`;
const PODS_PATH = `${V3}/namespaces/default/pods`;
const EVENTS_PATH = `${V3}/events`;
const PAGE_RATIO_TARGET = 1.2;
const CONNECTIONS = 4;
const CPU_PROF = process.env.BENCH_CPU_PROF && resolve(process.env.BENCH_CPU_PROF);
const TRACE_GC = process.env.BENCH_TRACE_GC === '1';
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** The full list of 10,000 nodes takes about a second of CPU: long enough runs to complete several. */
const FULL_LIST_SECONDS = Math.max(SECONDS, 12);
/**
 * The limit=10 pages measured at both sizes: each sortBy KubeSphere accepts for nodes, both orders, a name filter
 * (the console's search) and a status filter; pods by their own sort key, startTime, and searched by name in the
 * console's default order.
 */
const PAGES: Record<string, string> = {
  page3: `${NODES_PATH}?limit=10&page=3`,
  creationTimestamp: `${NODES_PATH}?limit=10&page=3&sortBy=creationTimestamp`,
  createTimeAscending: `${NODES_PATH}?limit=10&page=3&sortBy=createTime&ascending=true`,
  name: `${NODES_PATH}?limit=10&page=3&sortBy=name`,
  nameAscending: `${NODES_PATH}?limit=10&page=3&sortBy=name&ascending=true`,
  nameFilter: `${NODES_PATH}?limit=10&name=bench-node-1&sortBy=name`,
  statusFilter: `${NODES_PATH}?limit=10&status=running&sortBy=name`,
  podsStartTime: `${PODS_PATH}?limit=10&page=2&sortBy=startTime`,
  podsStartTimeAscending: `${PODS_PATH}?limit=10&page=2&sortBy=startTime&ascending=true`,
  podsNameFilter: `${PODS_PATH}?limit=10&name=bench-pod-1&sortBy=createTime`,
};

/** This process's garbage collector, to read a heap size without garbage in it. */
function fullGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** Heap and external bytes per cached object by kind (bench/_cache-cost.ts, in a process of its own). */
async function cacheBytesByKind(kubeconfig: string) {
  const child = ownChild(
    spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/_cache-cost.ts', kubeconfig], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`bench/_cache-cost.ts exited ${code}`);
  return JSON.parse(out) as Record<
    'nodes' | 'pods' | 'events',
    { objects: number; heapBytesPerObject: number; externalBytesPerObject: number }
  >;
}

/** Heap bytes per entry of the list indexes, over `n` entries shaped like cached ones. */
function indexCost(n = 100_000): Record<string, number> {
  const gc = fullGc();
  const obj = {
    metadata: { creationTimestamp: '2024-01-01T00:00:00Z' },
    status: { startTime: '2024-01-01T00:00:01Z' },
  };
  const entries = Array.from(
    { length: n },
    (_, i) =>
      ({
        key: `ns/pod-${i}`,
        namespace: 'ns',
        name: `pod-${i}`,
        created: i,
        object: () => obj,
      }) as unknown as Entry,
  );
  const bytesPer = (build: () => unknown) => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = build();
    gc();
    const bytes = (process.memoryUsage().heapUsed - before) / n;
    if (!kept) throw new Error('nothing built');
    return Math.round(bytes);
  };
  return {
    sortedViewByField: bytesPer(() => new SortedView('name', entries)),
    sortedViewByKeyFunction: bytesPer(
      () =>
        new SortedView((o) => Date.parse(String((o.status as { startTime?: string }).startTime)), entries),
    ),
    nameAnswerPerMatch: bytesPer(() => new Set(entries.map((e) => e.key))),
  };
}

/** The V8 CPU profiler of the process whose inspector listens on `port` (Chrome DevTools protocol). */
async function inspectorProfiler(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await once(ws, 'open');
  let lastId = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (msg.id === undefined) return;
    pending.get(msg.id)?.(msg.result);
    pending.delete(msg.id);
  });
  const send = (method: string) =>
    new Promise<unknown>((res) => {
      const id = ++lastId;
      pending.set(id, res);
      ws.send(JSON.stringify({ id, method }));
    });
  await send('Profiler.enable');
  return {
    start: () => send('Profiler.start'),
    stop: async () => ((await send('Profiler.stop')) as { profile: unknown }).profile,
    close: () => ws.close(),
  };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
}

/** The share of a profile's busy (not idle) samples spent in V8's garbage collector on the main thread. */
function gcShare(profile: CpuProfile): number {
  const names = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  let busy = 0;
  let gc = 0;
  for (const id of profile.samples) {
    const name = names.get(id);
    if (name === '(idle)') continue;
    busy++;
    if (name === '(garbage collector)') gc++;
  }
  return Number((gc / Math.max(1, busy)).toFixed(3));
}

interface GcTotals {
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  markCompactMs: number;
}

/** Totals of the GC lines of `--trace-gc` read from a process's stdout (`ms: Scavenge ... MB, 1.2 / 0.0 ms ...`). */
function gcTracer(stdout: NodeJS.ReadableStream) {
  const totals: GcTotals = { scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0 };
  let buffered = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const m = /ms: (Scavenge|Mark-Compact)[^,]*, ([\d.]+) \/ [\d.]+ ms/.exec(line);
      if (!m) continue;
      if (m[1] === 'Scavenge') {
        totals.scavenges++;
        totals.scavengeMs += Number(m[2]);
      } else {
        totals.markCompacts++;
        totals.markCompactMs += Number(m[2]);
      }
    }
  });
  return {
    snapshot: (): GcTotals => ({ ...totals }),
    since: (from: GcTotals): GcTotals => ({
      scavenges: totals.scavenges - from.scavenges,
      scavengeMs: Math.round(totals.scavengeMs - from.scavengeMs),
      markCompacts: totals.markCompacts - from.markCompacts,
      markCompactMs: Math.round(totals.markCompactMs - from.markCompactMs),
    }),
  };
}

/** The collections whose changes kapiserver's informers receive while pages are measured (it caches them all). */
const WATCHED = ['/api/v1/nodes', '/api/v1/pods', '/api/v1/events'];

/**
 * Counts the watch events of `WATCHED` from now until `stop()`: the informer work kapiserver did beside the pages
 * (the dev cluster's simulated kubelets keep writing), which its CPU per request includes.
 */
async function clusterWrites(cluster: ClusterConnection) {
  const abort = new AbortController();
  const counts: Record<string, number> = {};
  const headers = { authorization: cluster.authorization() ?? '' };
  const from = async (path: string) => {
    const list = await request(`${cluster.server}${path}?limit=1`, {
      dispatcher: cluster.dispatcher,
      headers,
    });
    return ((await list.body.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  };
  const starts = await Promise.all(WATCHED.map(from));
  // Not awaited: a watch's headers may come only with its first event; from the list's resourceVersion on, none is
  // missed however late the watch starts.
  const watches = WATCHED.map(async (path, i) => {
    const name = path.split('/').pop() as string;
    counts[name] = 0;
    const res = await request(`${cluster.server}${path}?watch=true&resourceVersion=${starts[i]}`, {
      dispatcher: cluster.dispatcher,
      headers,
      signal: abort.signal,
      bodyTimeout: 0,
    });
    for await (const chunk of res.body) for (const b of chunk as Buffer) if (b === 10) counts[name]++;
  });
  return {
    /** Changes seen so far. */
    total: () => Object.values(counts).reduce((a, b) => a + b, 0),
    stop: async () => {
      abort.abort();
      await Promise.all(watches.map((w) => w.catch(() => undefined)));
      return { ...counts };
    },
  };
}

/**
 * Waits (up to 15 minutes) until the dev cluster sends no change of `WATCHED` for 10 s: its simulated kubelets keep
 * starting pods and recording their events for minutes after seeding, and kapiserver's informers take that in while
 * it lasts (work that is not a page's). Returns the seconds waited.
 */
async function settled(cluster: ClusterConnection): Promise<number> {
  const writes = await clusterWrites(cluster);
  const t0 = performance.now();
  try {
    let seen = -1;
    while (writes.total() !== seen && performance.now() - t0 < 900_000) {
      seen = writes.total();
      await new Promise((r) => setTimeout(r, 10_000));
    }
  } finally {
    await writes.stop();
  }
  return Math.round((performance.now() - t0) / 1000);
}

/** Waits (up to 5 minutes) until kapiserver uses under 5% of a core over two seconds; returns that share. */
async function quiet(pid: number): Promise<number> {
  const end = Date.now() + 300_000;
  for (;;) {
    const before = cpuSeconds(pid)?.self ?? 0;
    await new Promise((r) => setTimeout(r, 2000));
    const share = ((cpuSeconds(pid)?.self ?? 0) - before) / 2;
    if (share < 0.05 || Date.now() > end) return Number(share.toFixed(3));
  }
}

async function main() {
  const dev = await startTestDevCluster();
  const cluster = ClusterConnection.fromFile(dev.kubeconfigPath);
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;
  const port = await freePort();
  const inspectPort = CPU_PROF ? await freePort() : 0;
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = ownChild(
    spawn(
      process.execPath,
      [
        ...(CPU_PROF ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
        ...(TRACE_GC ? ['--trace-gc'] : []),
        ...NODE_FLAGS,
        '--import',
        'tsx',
        'src/main.ts',
        '--kubeconfig',
        dev.kubeconfigPath,
        '--bind-address',
        '127.0.0.1',
        '--port',
        String(port),
        '--secure-port',
        String(await freePort()),
        '--data-dir',
        `${dev.dataDir}/kapiserver`,
        '--log-level',
        'warn',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, KAPISERVER_ADMIN_PASSWORD: adminPassword },
        stdio: ['ignore', TRACE_GC ? 'pipe' : 'ignore', 'inherit'],
      },
    ),
  );
  const gc = TRACE_GC && child.stdout ? gcTracer(child.stdout) : undefined;
  let profiler: Awaited<ReturnType<typeof inspectorProfiler>> | undefined;
  const cleanup = async () => {
    profiler?.close();
    child.kill('SIGTERM');
    await cluster.close();
    await dev.close();
  };
  try {
    await waitFor('kapiserver /readyz', async () => (await fetch(`${url}/readyz`)).status === 200, 120_000);
    profiler = CPU_PROF ? await inspectorProfiler(inspectPort) : undefined;
    const token = (await login({ url, adminPassword })).access_token;
    const auth = { authorization: `Bearer ${token}` };
    const total = async (path: string) =>
      ((await (await fetch(`${url}${path}`, { headers: auth })).json()) as { totalItems: number }).totalItems;

    // Writes to the dev cluster, 16 at a time.
    // A connection reset (a loaded machine) is retried: the write is idempotent (409 counts as done).
    const post = async (path: string, body: unknown, attempt = 1): Promise<void> => {
      const res = await request(`${cluster.server}${path}`, {
        method: 'POST',
        dispatcher: cluster.dispatcher,
        headers: { authorization: cluster.authorization() ?? '', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).catch((err: unknown) => {
        if (attempt >= 5) throw err;
        return undefined;
      });
      if (!res) return post(path, body, attempt + 1);
      await res.body.text();
      if (res.statusCode !== 201 && res.statusCode !== 409)
        throw new Error(`POST ${path}: ${res.statusCode}`);
    };
    const node = (i: number) => post('/api/v1/nodes', benchNode(i));
    const pod = (i: number) =>
      post('/api/v1/namespaces/default/pods', {
        metadata: { name: `bench-pod-${i}`, labels: { app: `bench-${i % 50}` } },
        spec: {
          nodeName: `bench-node-${i % NODES}`,
          containers: [
            { name: 'c', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
          ],
        },
      });

    /** How many objects the dev cluster holds in a collection. */
    const clusterCount = async (path: string) => {
      const res = await request(`${cluster.server}${path}?limit=1`, {
        dispatcher: cluster.dispatcher,
        headers: { authorization: cluster.authorization() ?? '' },
      });
      const list = (await res.body.json()) as { items: unknown[]; metadata: { remainingItemCount?: number } };
      return list.items.length + (list.metadata.remainingItemCount ?? 0);
    };

    const pid = child.pid ?? 0;
    const existing = await total(NODES_PATH);
    /** One run of a query: kapiserver CPU ms per request, mean latency and bytes per answer. */
    const run = async (path: string, connections: number, seconds: number) => {
      const cpu0 = cpuSeconds(pid)?.self ?? 0;
      const main0 = mainThreadCpuSeconds(pid) ?? 0;
      const r = await autocannon({ url: `${url}${path}`, headers: auth, connections, seconds });
      const cpu = (cpuSeconds(pid)?.self ?? 0) - cpu0;
      const main = (mainThreadCpuSeconds(pid) ?? 0) - main0;
      if (r.non2xx > 0 || r.errors > 0)
        throw new Error(`${path}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      // Mean latency by Little's law (a closed loop of `connections`): autocannon's percentiles are whole ms.
      const meanMs = (connections * 1000) / Math.max(0.001, r.rps);
      // Bytes per answer: a page's CPU compares fairly across sizes only when its answers are alike in size.
      const bytesPerResponse = Math.round((r.mbPerSec * 1e6) / Math.max(0.001, r.rps));
      return {
        cpuMsPerRequest: (cpu * 1000) / Math.max(1, r.requests),
        mainThreadCpuMsPerRequest: (main * 1000) / Math.max(1, r.requests),
        meanMs,
        reqPerSec: r.rps,
        bytesPerResponse,
      };
    };
    const measure = async (nodes: number, pods: number) => {
      await waitFor(
        `${nodes} nodes in kapiserver`,
        async () => (await total(`${NODES_PATH}?limit=1`)) >= nodes,
        600_000,
      );
      await waitFor(
        `${pods} pods in kapiserver`,
        async () => (await total(`${PODS_PATH}?limit=1`)) >= pods,
        600_000,
      );
      const settleSeconds = await settled(cluster);
      const idleCpuShare = await quiet(pid);
      // Read before any request: the full list's garbage (megabytes per request) would count as cached objects.
      const rssMiBIdle = rssMiB(pid);
      // Events are cached from their first list on (kapiserver starts that informer on demand); the pages are
      // measured with them cached, the worst case for the heap. RSS is read again once that is idle.
      const events = await clusterCount('/api/v1/events');
      await waitFor(
        `${events} events in kapiserver`,
        async () => {
          const res = await request(`${url}${EVENTS_PATH}?limit=1`, { headers: auth });
          const body = (await res.body.json()) as { totalItems?: number };
          return res.statusCode === 200 && (body.totalItems ?? 0) >= events;
        },
        600_000,
      );
      await quiet(pid);
      const rssMiBWithEvents = rssMiB(pid);
      // A short unmeasured run of each query first: the first one measured would otherwise pay for the JIT.
      for (const path of Object.values(PAGES)) await run(path, CONNECTIONS, 1);
      const rounds: Record<string, Awaited<ReturnType<typeof run>>[]> = Object.fromEntries(
        Object.keys(PAGES).map((name) => [name, []]),
      );
      const writes = await clusterWrites(cluster);
      await profiler?.start();
      const gcBefore = gc?.snapshot();
      for (let i = 0; i < ROUNDS; i++) {
        for (const [name, path] of Object.entries(PAGES))
          rounds[name].push(await run(path, CONNECTIONS, SECONDS));
      }
      const gcInMeasuredRounds = gcBefore && gc?.since(gcBefore);
      const profile = (await profiler?.stop()) as CpuProfile | undefined;
      const clusterChangesInMeasuredRounds = await writes.stop();
      if (profile) writeFileSync(`${CPU_PROF}/kapis-${nodes}.cpuprofile`, JSON.stringify(profile));
      const pages = Object.fromEntries(
        Object.entries(rounds).map(([name, rs]) => {
          const cpu = rs.map((r) => r.cpuMsPerRequest);
          return [
            name,
            {
              cpuMsPerRequest: Number(median(cpu).toFixed(3)),
              // The event loop's share; the rest ran on V8's helper threads (garbage collection) and libuv's.
              mainThreadCpuMsPerRequest: Number(
                median(rs.map((r) => r.mainThreadCpuMsPerRequest)).toFixed(3),
              ),
              cpuMsSpread: [Number(Math.min(...cpu).toFixed(3)), Number(Math.max(...cpu).toFixed(3))],
              meanMs: Number(median(rs.map((r) => r.meanMs)).toFixed(3)),
              reqPerSec: Math.round(median(rs.map((r) => r.reqPerSec))),
              bytesPerResponse: Math.round(median(rs.map((r) => r.bytesPerResponse))),
            },
          ];
        }),
      );
      return {
        nodes,
        pods,
        settleSeconds,
        idleCpuShare,
        cachedEvents: events,
        rssMiBIdle,
        rssMiBWithEvents,
        ...(profile ? { gcShareOfProfiledCpu: gcShare(profile) } : {}),
        ...(gcInMeasuredRounds ? { gcInMeasuredRounds } : {}),
        clusterChangesInMeasuredRounds,
        fullNodeList: await run(NODES_PATH, 2, FULL_LIST_SECONDS),
        pages,
      };
    };

    const t0 = performance.now();
    await fill(0, Math.max(0, SMALL - existing), node);
    await fill(0, SMALL, pod);
    const small = await measure(SMALL, SMALL);
    await fill(SMALL - existing, NODES - existing, node);
    await fill(SMALL, PODS, pod);
    const seedSeconds = (performance.now() - t0) / 1000;
    const large = await measure(NODES, PODS);
    const ratio = (k: string, f: 'cpuMsPerRequest' | 'meanMs') =>
      Number((large.pages[k][f] / Math.max(0.001, small.pages[k][f])).toFixed(2));
    const cpuRatios = Object.fromEntries(Object.keys(PAGES).map((k) => [k, ratio(k, 'cpuMsPerRequest')]));
    // Objects added between the two measurements: nodes, pods and their events.
    const added = NODES - SMALL + PODS - SMALL + large.cachedEvents - small.cachedEvents;
    const rssGrowth = large.rssMiBWithEvents - small.rssMiBWithEvents;
    // Measured last, and never at the cost of the figures above.
    const byKind = await cacheBytesByKind(dev.kubeconfigPath).catch((err: unknown) => {
      console.error(`heap per cached object not measured: ${err}`);
      return undefined;
    });
    const result = {
      benchmark: 'kapis lists',
      kapiserver: 'TypeScript sources under tsx, its own process',
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      small,
      large,
      cpuPerRequestRatio10kTo100: cpuRatios,
      meanLatencyRatio10kTo100: Object.fromEntries(Object.keys(PAGES).map((k) => [k, ratio(k, 'meanMs')])),
      target: { cpuPerRequestRatio10kTo100: PAGE_RATIO_TARGET },
      kapiserverRssMiB: {
        small: { idle: small.rssMiBIdle, withEvents: small.rssMiBWithEvents },
        large: { idle: large.rssMiBIdle, withEvents: large.rssMiBWithEvents },
      },
      // RSS growth over the objects added between the two measurements (nodes, pods and events alike).
      rssBytesPerCachedObject: Math.round((rssGrowth * 1024 * 1024) / added),
      cachedObjectsByKind: byKind,
      indexHeapBytesPerEntry: indexCost(),
      seedSeconds: Number(seedSeconds.toFixed(1)),
    };
    console.log(JSON.stringify(result, null, 2));
    const ratios = Object.entries(cpuRatios)
      .map(([k, v]) => `${k} ${v}${v <= PAGE_RATIO_TARGET ? '' : ' (over)'}`)
      .join(', ');
    console.log(
      `kapis: limit=10 page CPU per request, ${NODES} nodes + ${PODS} pods / ${SMALL} + ${SMALL} (target <= ${PAGE_RATIO_TARGET}): ${ratios}; ` +
        `full node list ${small.fullNodeList.reqPerSec} req/s @${SMALL}, ${large.fullNodeList.reqPerSec} req/s @${NODES}; ` +
        `RSS idle ${small.rssMiBIdle} -> ${large.rssMiBIdle} MiB, with events cached ${small.rssMiBWithEvents} -> ` +
        `${large.rssMiBWithEvents} MiB (~${result.rssBytesPerCachedObject} bytes per cached object; heap per ` +
        `node ${byKind?.nodes.heapBytesPerObject} B, pod ${byKind?.pods.heapBytesPerObject} B, event ` +
        `${byKind?.events.heapBytesPerObject} B, their JSON outside the heap node ` +
        `${byKind?.nodes.externalBytesPerObject} B, pod ${byKind?.pods.externalBytesPerObject} B, event ` +
        `${byKind?.events.externalBytesPerObject} B; ` +
        `sorted view ${result.indexHeapBytesPerEntry.sortedViewByField} B/entry, key view ${result.indexHeapBytesPerEntry.sortedViewByKeyFunction} B/entry)`,
    );
  } finally {
    await cleanup();
  }
}

await main();
