// Does a second kapiserver process help on this machine? Forwarded GET /api/v1/nodes through kapiserver's HTTPS
// port served by 1 and by 2 worker processes (node:cluster, one listening socket per set, round-robin), alternating
// in one run; and the idle RSS of each worker against the idle target of 100 MB (issue 11; measured as
// footprint.ts does, IDLE_MS after the last work, but of workers running the sources through tsx). Workers share
// tokens through Redis (the token store several replicas use: the SQLite store's in-memory copy of the active tokens
// assumes one process) and the dev cluster, which runs as its own process. Prints one JSON document and a one-line
// summary. BENCH_SECONDS (3), BENCH_ROUNDS (3), BENCH_CONNECTIONS (16), BENCH_IDLE_MS (65000).
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ClusterConnection } from '../src/apiserver/cluster/index.ts';
import { startApiServer } from '../src/apiserver/index.ts';
import { configFromDocument } from '../src/config/index.ts';
import { ensureLocalPki } from '../src/pki/index.ts';
import { startDevClusterProcess } from '../test/helpers/devcluster.ts';
import { login } from '../test/helpers/oauth.ts';
import { redisUnavailableReason, startRedis } from '../test/helpers/redis-server.ts';
import { autocannon, freePort, type Load, median, medianOf, ownChild, rssMiB } from './_helpers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 65_000);
const IDLE_RSS_TARGET_MIB = 100;

/** What a worker needs to build its kapiserver; passed in the environment. */
interface WorkerSpec {
  kubeconfig: string;
  dataDir: string;
  port: number;
  securePort: number;
  redisPort: number;
  adminPassword: string;
  jwtSecret: string;
}

async function runWorker(spec: WorkerSpec): Promise<void> {
  const logger = pino({ level: 'silent' });
  const { config } = configFromDocument(
    {
      authentication: { adminPassword: spec.adminPassword, jwtSecret: spec.jwtSecret },
      redis: { host: '127.0.0.1', port: spec.redisPort },
    },
    'bench',
  );
  await startApiServer({
    config,
    cluster: ClusterConnection.fromFile(spec.kubeconfig, logger),
    logger,
    dataDir: spec.dataDir,
    host: '127.0.0.1',
    port: spec.port,
    securePort: spec.securePort,
  });
  process.send?.('listening');
}

/** Forks `n` workers serving one port pair, one after another (each waits for the previous to listen). */
async function startSet(n: number, spec: Omit<WorkerSpec, 'port' | 'securePort'>) {
  const ports = { port: await freePort(), securePort: await freePort() };
  const workers: Worker[] = [];
  for (let i = 0; i < n; i++) {
    const w = cluster.fork({ BENCH_WORKER: JSON.stringify({ ...spec, ...ports }) });
    workers.push(w);
    await new Promise<void>((resolve, reject) => {
      w.once('message', () => resolve());
      w.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    });
  }
  return {
    url: `http://127.0.0.1:${ports.port}`,
    secureUrl: `https://127.0.0.1:${ports.securePort}`,
    workers,
  };
}

async function runPrimary(): Promise<void> {
  const skip = redisUnavailableReason();
  if (skip) {
    console.log(`workers: skipped: ${skip}`);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-bench-workers-'));
  const dev = await startDevClusterProcess(dataDir);
  ownChild(dev.child);
  const redis = await startRedis();
  await ensureLocalPki(dataDir); // before the workers, so none of them races to create it
  const caFile = join(dataDir, 'bench-ca.pem');
  writeFileSync(caFile, dev.caPem);
  const spec = {
    kubeconfig: dev.kubeconfigPath,
    dataDir,
    redisPort: redis.port,
    adminPassword: `Bench-${randomBytes(9).toString('base64url')}`,
    jwtSecret: randomBytes(32).toString('base64url'),
  };
  const sets: Record<'one' | 'two', Awaited<ReturnType<typeof startSet>>> = {
    one: await startSet(1, spec),
    two: await startSet(2, spec),
  };
  try {
    // One token for both sets: issued by one worker, verified by all of them.
    const token = (await login({ url: sets.one.url, adminPassword: spec.adminPassword })).access_token;
    const load = (url: string) =>
      autocannon({
        url: `${url}/api/v1/nodes`,
        connections: CONNECTIONS,
        seconds: SECONDS,
        headers: { authorization: `Bearer ${token}` },
        caFile,
      });
    await load(sets.one.secureUrl);
    await load(sets.two.secureUrl);
    const runs: Record<'one' | 'two', Load[]> = { one: [], two: [] };
    for (let r = 0; r < ROUNDS; r++) {
      runs.one.push(await load(sets.one.secureUrl));
      runs.two.push(await load(sets.two.secureUrl));
    }
    for (const l of [...runs.one, ...runs.two]) {
      if (l.non2xx > 0 || l.errors > 0) throw new Error(`${l.non2xx} non-2xx answers, ${l.errors} errors`);
    }
    // Idle RSS: V8 shrinks its young generation after about a minute without work (footprint.ts).
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const rss = [...sets.one.workers, ...sets.two.workers].map((w) => rssMiB(w.process.pid ?? 0));
    const report = {
      benchmark: 'workers',
      cores: availableParallelism(),
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      oneWorker: medianOf(runs.one),
      twoWorkers: medianOf(runs.two),
      ratioTwoToOne: Number(median(runs.two.map((t, i) => t.rps / runs.one[i].rps)).toFixed(2)),
      idleRssMiBPerWorker: rss,
      target: { idleRssMiB: IDLE_RSS_TARGET_MIB },
    };
    console.log(JSON.stringify(report, null, 2));
    console.log(
      `workers: forwarded GET ${Math.round(report.oneWorker.rps)} req/s with 1 worker, ${Math.round(report.twoWorkers.rps)} with 2 ` +
        `(ratio ${report.ratioTwoToOne}) on ${report.cores} cores; idle RSS per worker ${rss.join('/')} MiB (target <= ${IDLE_RSS_TARGET_MIB})`,
    );
  } finally {
    for (const w of [...sets.one.workers, ...sets.two.workers]) w.kill('SIGKILL');
    await redis.stop();
    await dev.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (cluster.isPrimary) await runPrimary();
else await runWorker(JSON.parse(process.env.BENCH_WORKER ?? '{}') as WorkerSpec);
