// Dev cluster workloads benchmark (loopback, bounded): with 1,000 simulated nodes, the raw pod-create rate over HTTPS;
// the time from creating a Deployment of 100 replicas to 100 pods created and to 100 Running; the pods per second the
// controllers (and the scheduler and simulated kubelets) sustain for a 2,000-replica Deployment, as a ratio of the raw
// rate measured in the same run; the RSS once 20,000 pods run (when they do not within the phase timeout: the RSS and
// how many ran). The dev cluster runs in this process (RSS includes the small HTTPS client). A phase that never
// reaches Running (no simulated kubelet) reports null.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startDevClusterInternal } from '../src/devcluster/index.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const NODES = 1_000;
const RAW_PODS = 1_000;
const CONCURRENCY = 8;
const SMALL = 100;
const LARGE = 2_000;
const TOTAL_RUNNING = 20_000;
const PHASE_TIMEOUT_MS = 300_000;

const dataDir = mkdtempSync(join(tmpdir(), 'devcluster-workloads-bench-'));
// The demo data with 1,000 simulated nodes (a kube-proxy DaemonSet pod on each, coredns, the demo workloads).
const dev = await startDevClusterInternal({ dataDir, port: 0, nodeCount: NODES, historyLimit: 100_000 });
const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: dev.caPem });

function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${dev.url}${path}`, {
      method,
      agent,
      headers: {
        Authorization: `Bearer ${dev.token}`,
        Accept: 'application/json',
        ...(payload ? { 'Content-Type': 'application/json' } : {}),
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

async function must(method: string, path: string, body?: unknown): Promise<void> {
  const r = await call(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
}

/** Seconds until `cond` holds (polled every 10 ms), or null after the phase timeout. */
async function secondsUntil(
  cond: () => boolean,
  since: number,
  timeoutMs = PHASE_TIMEOUT_MS,
): Promise<number | null> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 10));
  }
  return Math.round((performance.now() - since) / 10) / 100;
}

// Pods and Running pods per namespace and app label, kept from the store's committed events: polling lists instead
// would make the cluster sort every pod each time, a cost of the benchmark, not of the cluster.
const tallies = new Map<string, { pods: number; running: number }>();
const seen = new Map<string, { tally: string; running: boolean }>();
const count = (tally: string, pods: number, running: number) => {
  const t = tallies.get(tally) ?? { pods: 0, running: 0 };
  tallies.set(tally, { pods: t.pods + pods, running: t.running + running });
};
const observePod = (type: string, ns: string, name: string, obj: Record<string, unknown>) => {
  const key = `${ns}/${name}`;
  const old = seen.get(key);
  if (old) count(old.tally, -1, old.running ? -1 : 0);
  seen.delete(key);
  if (type === 'DELETED') return;
  const app = (obj.metadata as { labels?: Record<string, string> }).labels?.app ?? '';
  const now = {
    tally: `${ns}/${app}`,
    running: (obj.status as { phase?: string } | undefined)?.phase === 'Running',
  };
  seen.set(key, now);
  count(now.tally, 1, now.running ? 1 : 0);
};
dev.store.subscribe((ev) => {
  if (ev.res === '/pods') observePod(ev.type, ev.ns, ev.name, ev.obj);
});
for (const e of dev.store.list('/pods')) observePod('ADDED', e.ns, e.name, e.obj);
const podsOf = (ns: string, app: string) => tallies.get(`${ns}/${app}`)?.pods ?? 0;
const running = (ns: string, app: string) => tallies.get(`${ns}/${app}`)?.running ?? 0;
const runningPods = () => [...tallies.values()].reduce((n, t) => n + t.running, 0);
const deployment = (name: string, replicas: number) => ({
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'main', image: 'nginx' }] },
    },
  },
});

for (const ns of ['raw', 'work']) await must('POST', '/api/v1/namespaces', { metadata: { name: ns } });
await dev.controllers.idle();

// Settle: the seeded DaemonSet and Deployments Running before anything is measured.
await secondsUntil(() => runningPods() >= NODES, performance.now());
await dev.controllers.idle();

// 1. raw pod-create rate: bare pods for another scheduler, so no controller, scheduler or kubelet touches them
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < RAW_PODS) {
      const i = next++;
      await must('POST', '/api/v1/namespaces/raw/pods', {
        metadata: { name: `raw-${i}`, labels: { app: 'raw' } },
        spec: { schedulerName: 'none', containers: [{ name: 'main', image: 'nginx' }] },
      });
    }
  }),
);
const rawPodsPerSecond = Math.round(RAW_PODS / ((performance.now() - t0) / 1000));
await dev.controllers.idle();

// 2. a Deployment of 100 replicas: to created, to Running
const t1 = performance.now();
await must('POST', '/apis/apps/v1/namespaces/work/deployments', deployment('small', SMALL));
const smallCreated = await secondsUntil(() => podsOf('work', 'small') >= SMALL, t1);
// Pods run only with simulated kubelets: without any Running pod after 30 s, the Running phases are skipped.
const kubelets = (await secondsUntil(() => running('work', 'small') > 0, t1, 30_000)) !== null;
const smallRunning = kubelets ? await secondsUntil(() => running('work', 'small') >= SMALL, t1) : null;

// 3. sustained: a Deployment of 2,000 replicas
const t2 = performance.now();
await must('POST', '/apis/apps/v1/namespaces/work/deployments', deployment('large', LARGE));
const largeCreated = await secondsUntil(() => podsOf('work', 'large') >= LARGE, t2);
const largeRunning =
  largeCreated === null || !kubelets ? null : await secondsUntil(() => running('work', 'large') >= LARGE, t2);
const rate = (n: number, s: number | null) => (s === null ? null : Math.round(n / s));
const createdPerSecond = rate(LARGE, largeCreated);
const runningPerSecond = rate(LARGE, largeRunning);

// 4. RSS with 20,000 running pods (or, when they do not all run within the phase timeout, with as many as did)
let rssBytes: number | null = null;
let heapBytes: number | null = null;
let runningAtRss: number | null = null;
let secondsTo20k: number | null = null;
if (largeRunning !== null) {
  const remaining = TOTAL_RUNNING - runningPods();
  const t3 = performance.now();
  for (let i = 0; i < Math.ceil(remaining / LARGE); i++)
    await must(
      'POST',
      '/apis/apps/v1/namespaces/work/deployments',
      deployment(`fill-${i}`, Math.min(LARGE, remaining - i * LARGE)),
    );
  secondsTo20k = await secondsUntil(() => runningPods() >= TOTAL_RUNNING, t3);
  if (secondsTo20k !== null) await dev.controllers.idle();
  gc();
  ({ rss: rssBytes, heapUsed: heapBytes } = process.memoryUsage());
  runningAtRss = runningPods();
}

const result = {
  benchmark: 'devcluster-workloads',
  nodes: NODES,
  rawPodCreatesPerSecondHttps: rawPodsPerSecond,
  deployment100: { secondsToCreated: smallCreated, secondsToRunning: smallRunning },
  deployment2000: {
    secondsToCreated: largeCreated,
    secondsToRunning: largeRunning,
    podsCreatedPerSecond: createdPerSecond,
    podsRunningPerSecond: runningPerSecond,
    createdRatioToRaw:
      createdPerSecond === null ? null : Math.round((createdPerSecond / rawPodsPerSecond) * 100) / 100,
    runningRatioToRaw:
      runningPerSecond === null ? null : Math.round((runningPerSecond / rawPodsPerSecond) * 100) / 100,
  },
  fill: { secondsTo20kRunning: secondsTo20k, runningPods: runningAtRss },
  rssMbWith20kRunningPods:
    secondsTo20k === null || rssBytes === null ? null : Math.round(rssBytes / 1024 / 1024),
  rssMbAtEnd: rssBytes === null ? null : Math.round(rssBytes / 1024 / 1024),
  heapUsedMbAtEnd: heapBytes === null ? null : Math.round(heapBytes / 1024 / 1024),
  storeWrites: dev.store.currentRv,
};
console.log(JSON.stringify(result, null, 2));
console.log(
  `devcluster-workloads: raw ${rawPodsPerSecond} pods/s; 100 replicas created ${smallCreated}s, Running ${smallRunning ?? 'n/a'}s; ` +
    `2000 replicas ${createdPerSecond} pods/s created (x${result.deployment2000.createdRatioToRaw} raw), ` +
    `${runningPerSecond ?? 'n/a'} pods/s Running (x${result.deployment2000.runningRatioToRaw ?? 'n/a'}); RSS ${result.rssMbAtEnd ?? 'n/a'} MB with ${runningAtRss ?? 'n/a'} Running pods`,
);
agent.destroy();
await dev.close();
rmSync(dataDir, { recursive: true, force: true });
