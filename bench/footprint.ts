// Footprint benchmark of the compiled server (dist/), all in one run, against a dev cluster process standing in for
// an external cluster:
//  - start: time from spawning `node dist/main.js --kubeconfig ...` to its "kapiserver listening" log line, on a
//    data directory it has used before (target < 1.5 s; every restart), and on a fresh one (the first start also
//    installs the CRDs, the admin user and the roles, and generates its CA and keys); the wall time of `--help`
//    (target < 0.3 s);
//  - RSS of the restarted server SETTLE_MS after listening ("just started": V8's young generation is still at the size
//    start-up grew it to) and IDLE_MS after listening ("idle": V8 shrinks the young generation after about a minute
//    without work; target <= 100 MB), and again with NODES nodes and PODS pods in the cluster, held by its informers
//    (target <= 220 MB); the cache is known to hold them when the resources API counts them;
//  - the RSS of a bare fastify hello-world in the same run, the yardstick for the ratios in the summary.
// RSS is VmRSS from /proc/<pid>/status (Linux only).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { startDevClusterProcess } from '../test/helpers/devcluster.ts';
import { login } from '../test/helpers/oauth.ts';
import { ownChild } from './_helpers.ts';

const NODES = Number(process.env.BENCH_NODES ?? 1_000);
const PODS = Number(process.env.BENCH_PODS ?? 20_000);
const NAMESPACES = 20;
const WRITE_CONCURRENCY = 32;
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 5_000);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 65_000);
const HELP_RUNS = 5;
const ROOT = resolve(import.meta.dirname, '..');
const MAIN = join(ROOT, 'dist', 'main.js');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

/** Resident set size of a process in MB. */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Math.round(Number(kb) / 1024);
}

/** CPU seconds (user + system) a process has used: unlike wall time, barely moved by other load on the machine. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ
}

/**
 * Spawns `args`; resolves with the child, the milliseconds until its output matches `ready`, the CPU seconds it
 * used until then, and the match.
 */
function spawnUntil(
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; ms: number; cpu: number; match: RegExpExecArray }> {
  const t0 = performance.now();
  const child = ownChild(spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  return new Promise((res, rej) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = ready.exec(out);
      if (!match) return;
      const ms = performance.now() - t0;
      const cpu = cpuSeconds(child.pid ?? 0);
      // From here on the output is only drained.
      child.stdout?.off('data', onData).resume();
      child.stderr?.off('data', onData).resume();
      res({ child, ms, cpu, match });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      rej(new Error(`${args.join(' ')} exited (${code}) before it was ready:\n${out}`)),
    );
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const HELLO_WORLD = `
const app = require('fastify')();
app.get('/', async () => ({ hello: 'world' }));
app.listen({ port: 0, host: '127.0.0.1' }).then(() => console.log('hello listening'));
`;

/** Creates NAMESPACES namespaces, NODES nodes and PODS pods (spread over the nodes) in the dev cluster. */
async function populate(dev: { url: string; token: string; caPem: string }): Promise<number> {
  const agent = new Agent({ connect: { ca: dev.caPem }, connections: WRITE_CONCURRENCY });
  const post = async (path: string, body: unknown) => {
    const r = await request(`${dev.url}${path}`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`POST ${path}: ${r.statusCode} ${text.slice(0, 300)}`);
  };
  /** Runs `count` creations WRITE_CONCURRENCY at a time. */
  const createAll = async (count: number, create: (i: number) => Promise<void>) => {
    let next = 0;
    const worker = async () => {
      while (next < count) await create(next++);
    };
    await Promise.all(Array.from({ length: WRITE_CONCURRENCY }, worker));
  };
  const t0 = performance.now();
  await createAll(NAMESPACES, (i) => post('/api/v1/namespaces', { metadata: { name: `bench-${i}` } }));
  await createAll(NODES, (i) => post('/api/v1/nodes', benchNode(i)));
  await createAll(PODS, (i) =>
    post(`/api/v1/namespaces/bench-${i % NAMESPACES}/pods`, benchPod(i, `bench-node-${i % NODES}`)),
  );
  await agent.close();
  return (performance.now() - t0) / 1000;
}

function benchNode(i: number): unknown {
  return {
    metadata: {
      name: `bench-node-${i}`,
      labels: { 'kubernetes.io/hostname': `bench-node-${i}`, 'node-role.kubernetes.io/worker': '' },
    },
    spec: { podCIDR: `10.${i >> 8}.${i & 255}.0/24` },
    status: {
      capacity: { cpu: '16', memory: '65842320Ki', pods: '110' },
      allocatable: { cpu: '16', memory: '65739920Ki', pods: '110' },
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      ],
      addresses: [{ type: 'InternalIP', address: `192.168.${i >> 8}.${i & 255}` }],
      nodeInfo: {
        kubeletVersion: 'v1.30.0',
        osImage: 'Ubuntu 22.04',
        containerRuntimeVersion: 'containerd://1.7',
      },
    },
  };
}

/** A pod the size of a typical Deployment replica (~1.5 KB of JSON). */
function benchPod(i: number, nodeName: string): unknown {
  const app = `app-${i % 500}`;
  return {
    metadata: {
      name: `${app}-${i.toString(36).padStart(5, '0')}`,
      labels: { app, 'pod-template-hash': '7d9f8c6b5d' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${app}-7d9f8c6b5d`,
          uid: `rs-${app}`,
          controller: true,
        },
      ],
    },
    spec: {
      nodeName,
      serviceAccountName: 'default',
      containers: [
        {
          name: app,
          image: `registry.example.com/team/${app}:1.2.3`,
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'LOG_LEVEL', value: 'info' }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
        },
      ],
    },
    status: {
      phase: 'Running',
      podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      qosClass: 'Burstable',
    },
  };
}

/** Waits until kapiserver's resources API counts at least `want` objects of `resource` (its informer holds them). */
async function waitForCached(url: string, token: string, resource: string, want: number): Promise<number> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = await request(`${url}/kapis/resources.kubesphere.io/v1alpha3/${resource}?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = await r.body.text();
    const total = r.statusCode === 200 ? (JSON.parse(body) as { totalItems: number }).totalItems : -1;
    if (total >= want) return total;
    if (Date.now() > deadline) throw new Error(`kapiserver caches ${total} ${resource}, expected ${want}`);
    await sleep(500);
  }
}

async function helpSeconds(): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < HELP_RUNS; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [MAIN, '--help'], { cwd: ROOT });
    if (r.status !== 0) throw new Error(`--help exited ${r.status}: ${r.stderr}`);
    runs.push((performance.now() - t0) / 1000);
  }
  return median(runs);
}

async function main() {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--if-stale'], {
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('build failed');
  const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-bench-footprint-'));
  const dev = await startDevClusterProcess(join(dataDir, 'cluster'));
  ownChild(dev.child);
  const children: ChildProcess[] = [];
  try {
    const hello = await spawnUntil(['-e', HELLO_WORLD], /hello listening/);
    children.push(hello.child);

    const kapiDir = join(dataDir, 'kapiserver');
    const startKapiserver = () =>
      spawnUntil(
        [
          MAIN,
          '--kubeconfig',
          dev.kubeconfigPath,
          '--data-dir',
          kapiDir,
          '--port',
          '0',
          '--secure-port',
          '0',
        ],
        /"port":(\d+).*"msg":"kapiserver listening"/,
      );
    const first = await startKapiserver();
    const firstStartSeconds = first.ms / 1000;
    await stop(first.child);
    const kapi = await startKapiserver();
    children.push(kapi.child);
    const startSeconds = kapi.ms / 1000;
    await sleep(SETTLE_MS);
    const justStartedRss = rssMb(kapi.child.pid ?? 0);
    await sleep(Math.max(0, IDLE_MS - SETTLE_MS));
    const helloRss = rssMb(hello.child.pid ?? 0);
    const idleRss = rssMb(kapi.child.pid ?? 0);

    const url = `http://127.0.0.1:${kapi.match[1]}`;
    const passwordFile = join(kapiDir, 'initial-admin-password');
    while (!existsSync(passwordFile)) await sleep(100);
    const token = (await login({ url, adminPassword: readFileSync(passwordFile, 'utf8').trim() }))
      .access_token;
    const populateSeconds = await populate(dev);
    const nodes = await waitForCached(url, token, 'nodes', NODES);
    const pods = await waitForCached(url, token, 'pods', PODS);
    await sleep(SETTLE_MS);
    const loadedRss = rssMb(kapi.child.pid ?? 0);
    const help = await helpSeconds();

    const report = {
      benchmark: 'footprint',
      cores: availableParallelism(),
      startSeconds: Number(startSeconds.toFixed(2)),
      startCpuSeconds: kapi.cpu,
      firstStartSeconds: Number(firstStartSeconds.toFixed(2)),
      firstStartCpuSeconds: first.cpu,
      helpSeconds: Number(help.toFixed(3)),
      rssMb: { helloWorld: helloRss, justStarted: justStartedRss, idle: idleRss, loaded: loadedRss },
      loaded: { nodes, pods, populateSeconds: Number(populateSeconds.toFixed(1)) },
      ratios: {
        idleVsHelloWorld: Number((idleRss / helloRss).toFixed(2)),
        loadedVsHelloWorld: Number((loadedRss / helloRss).toFixed(2)),
      },
      target: { startSeconds: 1.5, helpSeconds: 0.3, idleRssMb: 100, loadedRssMb: 220 },
    };
    console.log(JSON.stringify(report, null, 2));
    console.log(
      `footprint: start ${startSeconds.toFixed(2)} s, ${kapi.cpu} s CPU (target < 1.5; first start ${firstStartSeconds.toFixed(2)} s), --help ${help.toFixed(3)} s (< 0.3); ` +
        `RSS ${SETTLE_MS / 1000} s after listening ${justStartedRss} MB, idle (${IDLE_MS / 1000} s) ${idleRss} MB (<= 100, ${report.ratios.idleVsHelloWorld}x a fastify hello-world's ${helloRss} MB), ` +
        `with ${nodes} nodes + ${pods} pods cached ${loadedRss} MB (<= 220, ${report.ratios.loadedVsHelloWorld}x)`,
    );
  } finally {
    for (const child of children) await stop(child);
    await dev.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
