// Token issuance benchmark (loopback only, bounded):
//  - logins/s through POST /oauth/token next to bare bcrypt verifications/s at the same cost and concurrency
//    (login is bcrypt-bound: target ratio >= 0.95), at concurrency cores*2 and cores*4; they (and the bare login
//    server's logins, below) are measured in adjacent phases, rotating which goes first, BENCH_ROUNDS times: each
//    round's ratio, then their median;
//  - /healthz latency (p50/p99) while the logins run (the event loop must stay responsive: target p99 < 20 ms),
//    next to that of a bare node:http server probed the same way at the same time: the latency the machine itself
//    adds (a shared, oversubscribed machine delays every process, however idle its event loop); the probes run
//    through the bare compares too, so both phases of a ratio bear their load alike;
//  - CPU per login of the kapiserver process and of its dev cluster (from /proc: moved far less by other load on a
//    shared machine than throughput; sampled 1.5 s after a phase's last answer, so the LoginRecords and their pruning,
//    written after the answers, count, and the bench checks on kapiserver's /metrics that they were all done), next to
//    the CPU of one bare bcrypt compare; each split into its main thread
//    (the event loop) and its other threads (kapiserver's: the bcrypt thread pool and V8's GC helpers), and this
//    process's main thread (the HTTP client and the /healthz probes) per login; a bare compare's CPU is this
//    process's thread pool's;
//  - logins/s through a bare login server measured in the same rounds: node:http in its own process, its thread pool
//    sized alike, that reads the form, makes the same compare and answers a random token, and nothing else. It is
//    the floor of a login over HTTP on this machine (the HTTP exchange and this client's request cost CPU the bare
//    compares do not), so kapiserver's distance to it is what kapiserver's own work costs (client checks, lockouts,
//    tokens, the LoginRecord and its pruning). Reported beside the target's ratio, not instead of it;
//  - authenticated requests/s on a trivial endpoint (GET /oauth/userinfo: JWT verify + token store + user cache).
// kapiserver runs as its own process as `npm start` runs it (its entry sizes the thread pool): `node dist/main.js`
// after `npm run build`, or the TypeScript sources under tsx with BENCH_SERVER=tsx; BENCH_KAPISERVER_DIR=<checkout>
// runs another checkout's (e.g. a worktree of an earlier revision, for before/after figures from one bench); the dev
// cluster is its own process too, this checkout's, compiled when kapiserver is. The bare compares run in this process, its thread pool sized by the same module.
// BENCH_CPU_PROF=<dir>: kapiserver and the dev cluster run with --cpu-prof and write their profiles there on exit
// (the dev cluster's in <dir>/devcluster; its main thread's is the larger file: tsx's loader thread writes one too).
// Prints one JSON document and a one-line summary.
import '../src/threadpool.ts';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hash, verify } from '@node-rs/bcrypt';
import { Agent, request } from 'undici';
import { BCRYPT_COST } from '../src/apiserver/iam/password.ts';
import { startDevClusterProcess } from '../test/helpers/devcluster.ts';
import { login } from '../test/helpers/oauth.ts';
import {
  autocannon,
  cpuSeconds,
  mainThreadCpuSeconds,
  median,
  ownChild,
  productionCommand,
  run,
  spawnKapiserver,
} from './_helpers.ts';

/** This checkout (the bench, the dev cluster) and the one whose kapiserver runs. */
const HERE = resolve(import.meta.dirname, '..');
const ROOT = resolve(process.env.BENCH_KAPISERVER_DIR ?? HERE);
const CORES = availableParallelism();
const CONCURRENCIES = [CORES * 2, CORES * 4];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Compares (and logins) per phase. */
const PER_PHASE = Number(process.env.BENCH_LOGINS ?? 64);
const AUTH_SECONDS = Number(process.env.BENCH_AUTH_SECONDS ?? 5);
const SERVER = process.env.BENCH_SERVER === 'tsx' ? 'tsx' : 'dist';
const CPU_PROF = process.env.BENCH_CPU_PROF;
/** Between /healthz probes: enough samples for a p99, little enough CPU to leave CPU per login honest. */
const PROBE_INTERVAL_MS = 50;
const TARGET = { loginToBcryptRatio: 0.95, healthzP99Ms: 20 };
/** kapiserver's default loginHistoryMaximumEntries: records of a user beyond it are pruned. */
const LOGIN_HISTORY_MAXIMUM = 100;
/** After a logins phase, before its CPU is sampled: time for the records and their pruning to be written. */
const RECORDS_SETTLE_MS = 1500;

/** CPU time of this process (every thread, the thread pool's included), in microseconds. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Runs `task` `total` times, `concurrency` at a time; resolves with the seconds it took. */
async function pool(total: number, concurrency: number, task: () => Promise<void>): Promise<number> {
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < total) {
        started++;
        await task();
      }
    }),
  );
  return (performance.now() - t0) / 1000;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** Runs `code` (a node:http server that prints its port) with `node -e` in its own process; resolves with its URL. */
async function startPrintedPortServer(
  what: string,
  code: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = ownChild(spawn(process.execPath, ['-e', code], { cwd: HERE, env }));
  child.stderr.pipe(process.stderr);
  const port = await new Promise<string>((res, rej) => {
    child.stdout.once('data', (d: Buffer) => res(d.toString().trim()));
    child.once('exit', (c) => rej(new Error(`${what} exited (${c})`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** A node:http server answering every request `ok` at once, in its own process: the machine's own latency. */
function startBareServer() {
  return startPrintedPortServer(
    'bare server',
    "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log(this.address().port) })",
  );
}

/**
 * A login over HTTP and nothing else, in its own process: reads the form, compares its password with `hashed`
 * (the same @node-rs/bcrypt call and thread pool size as kapiserver's), answers a random bearer token or 401.
 */
function startBareLoginServer(hashed: string) {
  const code = `
    const { verify } = require('@node-rs/bcrypt');
    const { randomBytes } = require('node:crypto');
    require('node:http').createServer((q, s) => {
      const chunks = [];
      q.on('data', (c) => chunks.push(c));
      q.on('end', async () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString());
        const ok = await verify(form.get('password') ?? '', process.env.BENCH_HASH);
        s.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        s.end(JSON.stringify(ok ? { access_token: randomBytes(32).toString('base64url'), token_type: 'Bearer' } : { error: 'invalid_grant' }));
      });
    })
      // Idle between its phases for longer than node's default 5 s: kept open as fastify's 72 s keeps kapiserver's.
      .setTimeout(0).on('listening', function () { this.keepAliveTimeout = 72_000 })
      .listen(0, '127.0.0.1', function () { console.log(this.address().port) });`;
  return startPrintedPortServer('bare login server', code, {
    ...process.env,
    BENCH_HASH: hashed,
    UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE,
  });
}

interface Round {
  bcryptPerSecond: number;
  loginsPerSecond: number;
  ratio: number;
  /** CPU per compare of this process's thread pool (bcrypt). */
  bcryptCpuUs: number;
  kapiserverCpuUs: number;
  kapiserverMainCpuUs: number;
  devclusterCpuUs: number;
  devclusterMainCpuUs: number;
  clientMainCpuUs: number;
  failures: number;
  /** LoginRecords still unwritten or unpruned after the settle (expected 0). */
  recordsPending: number;
  bareLoginsPerSecond: number;
  /** CPU per login of the bare login server: its main thread, and every thread (its compare included). */
  bareLoginServerMainCpuUs: number;
  bareLoginServerCpuUs: number;
  bareLoginClientMainCpuUs: number;
}

async function main() {
  // kapiserver's admin password: the bare compares and the bare login server check the same one, at the same cost.
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;
  const hashed = await hash(adminPassword, { cost: BCRYPT_COST });
  await verify(adminPassword, hashed);

  const command =
    SERVER === 'tsx'
      ? {
          node: ['--import', 'tsx', join(ROOT, 'src', 'main.ts')],
          described: 'node --import tsx src/main.ts',
        }
      : productionCommand(ROOT);
  // The compiled dev cluster is this checkout's: built here too when kapiserver is another's.
  if (SERVER === 'dist' && ROOT !== HERE) run(HERE, 'npm', ['run', 'build']);
  const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-bench-oauth-'));
  const dev = await startDevClusterProcess(join(dataDir, 'cluster'), {
    nodeArgs: CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF, 'devcluster')}`] : [],
    compiled: SERVER === 'dist',
  });
  ownChild(dev.child);
  const flags = ['--kubeconfig', dev.kubeconfigPath, '--data-dir', join(dataDir, 'kapiserver')];
  flags.push('--bind-address', '127.0.0.1', '--port', '0', '--secure-port', '0');
  const server = spawnKapiserver({
    label: 'oauth',
    cwd: ROOT,
    node: command.node,
    flags,
    env: { KAPISERVER_ADMIN_PASSWORD: adminPassword },
    profileDir: CPU_PROF && resolve(CPU_PROF),
  });
  const agent = new Agent({ connections: 64 });
  const bare = await startBareServer();
  const bareLogin = await startBareLoginServer(hashed);
  try {
    const url = `http://127.0.0.1:${(await server.listening).port}`;
    const adminToken = (await login({ url, adminPassword })).access_token;
    /** Logins posted to kapiserver so far: each writes one LoginRecord (set-up's login included). */
    let loginsPosted = 1;
    /**
     * LoginRecords kapiserver has yet to write, and records over the user's maximum it has yet to prune, from its
     * /metrics (read after a phase's CPU is sampled, so not counted in it).
     */
    const recordsPending = async () => {
      const r = await request(`${url}/metrics`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${adminToken}` },
      });
      const text = await r.body.text();
      const written = Number(
        /kapiserver_login_records_total\{outcome="written"\} (\d+)/.exec(text)?.[1] ?? 0,
      );
      const cached = Number(
        /kapiserver_cache_objects\{resource="[^"]*loginrecords[^"]*"\} (\d+)/.exec(text)?.[1] ?? 0,
      );
      return { unwritten: loginsPosted - written, overMaximum: Math.max(0, cached - LOGIN_HISTORY_MAXIMUM) };
    };
    const pids = [server.child.pid ?? 0, dev.child.pid ?? 0];
    /** CPU seconds: kapiserver's process and main thread, the dev cluster's, this process's main thread. */
    const cpuSample = () => [
      ...pids.flatMap((pid) => [
        cpuSeconds(pid)?.self ?? Number.NaN,
        mainThreadCpuSeconds(pid) ?? Number.NaN,
      ]),
      mainThreadCpuSeconds('self') ?? Number.NaN,
    ];
    const form = new URLSearchParams({
      grant_type: 'password',
      username: 'admin',
      password: adminPassword,
      client_id: 'kubesphere',
      client_secret: 'kubesphere',
    }).toString();

    /** CPU microseconds of this process's other threads than the main one (the thread pool: bcrypt). */
    const poolCpuMicros = () => cpuMicros() - (mainThreadCpuSeconds('self') ?? Number.NaN) * 1e6;
    const bareBcrypt = async (concurrency: number) => {
      const cpu0 = poolCpuMicros();
      const seconds = await pool(PER_PHASE, concurrency, async () => {
        if (!(await verify(adminPassword, hashed))) throw new Error('bcrypt verify failed');
      });
      return { perSecond: PER_PHASE / seconds, cpuUs: (poolCpuMicros() - cpu0) / PER_PHASE };
    };
    /**
     * /healthz probes of kapiserver and of the bare server, running through both phases of a round: the two phases
     * share the probes' load (their client here, kapiserver's /healthz, the bare server), so the ratio compares logins
     * with compares alone. Latencies are kept only while `sampling` (the logins).
     */
    const startProbes = (health: number[], bareHealth: number[]) => {
      let running = true;
      let sampling = false;
      const probe = async (target: string, samples: number[]) => {
        while (running) {
          const t0 = performance.now();
          const r = await request(target, { dispatcher: agent });
          await r.body.text();
          if (sampling) samples.push(performance.now() - t0);
          await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
        }
      };
      const probers = Promise.all([
        probe(`${url}/healthz`, health),
        probe(`${bare.url}/healthz`, bareHealth),
      ]);
      return {
        sample: (on: boolean) => {
          sampling = on;
        },
        stop: () => {
          running = false;
          return probers;
        },
      };
    };
    /** PER_PHASE password logins at `target`, `concurrency` at a time: the seconds they took and the failures. */
    const postLogins = async (target: string, concurrency: number) => {
      let failures = 0;
      const seconds = await pool(PER_PHASE, concurrency, async () => {
        const r = await request(target, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        });
        await r.body.text();
        if (r.statusCode !== 200) failures++;
      });
      return { seconds, failures };
    };
    const logins = async (concurrency: number, probes: ReturnType<typeof startProbes>) => {
      probes.sample(true);
      const cpu0 = cpuSample();
      const { seconds, failures } = await postLogins(`${url}/oauth/token`, concurrency);
      loginsPosted += PER_PHASE;
      probes.sample(false);
      // A login's record and its pruning are written after its answer: their CPU belongs to the logins, and must
      // not fall into the next phase.
      await new Promise((r) => setTimeout(r, RECORDS_SETTLE_MS));
      const cpuUs = cpuSample().map((x, i) => ((x - cpu0[i]) * 1e6) / PER_PHASE);
      const pending = await recordsPending();
      return {
        perSecond: PER_PHASE / seconds,
        kapiserverCpuUs: cpuUs[0],
        kapiserverMainCpuUs: cpuUs[1],
        devclusterCpuUs: cpuUs[2],
        devclusterMainCpuUs: cpuUs[3],
        clientMainCpuUs: cpuUs[4],
        failures,
        recordsPending: pending.unwritten + pending.overMaximum,
      };
    };
    const bareLoginPid = bareLogin.child.pid ?? 0;
    const bareLoginCpu = () => [
      cpuSeconds(bareLoginPid)?.self ?? Number.NaN,
      mainThreadCpuSeconds(bareLoginPid) ?? Number.NaN,
      mainThreadCpuSeconds('self') ?? Number.NaN,
    ];
    const bareLogins = async (concurrency: number) => {
      const cpu0 = bareLoginCpu();
      const { seconds, failures } = await postLogins(`${bareLogin.url}/oauth/token`, concurrency);
      if (failures > 0) throw new Error(`${failures} logins at the bare login server failed`);
      const [all, main, client] = bareLoginCpu().map((x, i) => ((x - cpu0[i]) * 1e6) / PER_PHASE);
      return {
        perSecond: PER_PHASE / seconds,
        serverCpuUs: all,
        serverMainCpuUs: main,
        clientMainCpuUs: client,
      };
    };

    const byConcurrency = [];
    for (const concurrency of CONCURRENCIES) {
      const rounds: Round[] = [];
      const health: number[] = [];
      const bareHealth: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        // Rotating which phase goes first cancels a drift of the machine's load within a round.
        const probes = startProbes(health, bareHealth);
        let b: Awaited<ReturnType<typeof bareBcrypt>> | undefined;
        let l: Awaited<ReturnType<typeof logins>> | undefined;
        let bl: Awaited<ReturnType<typeof bareLogins>> | undefined;
        const phases = [
          async () => {
            b = await bareBcrypt(concurrency);
          },
          async () => {
            l = await logins(concurrency, probes);
          },
          async () => {
            bl = await bareLogins(concurrency);
          },
        ];
        for (let i = 0; i < phases.length; i++) await phases[(r + i) % phases.length]();
        await probes.stop();
        if (!b || !l || !bl) throw new Error('a phase did not run');
        rounds.push({
          bcryptPerSecond: b.perSecond,
          loginsPerSecond: l.perSecond,
          ratio: l.perSecond / b.perSecond,
          bcryptCpuUs: b.cpuUs,
          kapiserverCpuUs: l.kapiserverCpuUs,
          kapiserverMainCpuUs: l.kapiserverMainCpuUs,
          devclusterCpuUs: l.devclusterCpuUs,
          devclusterMainCpuUs: l.devclusterMainCpuUs,
          clientMainCpuUs: l.clientMainCpuUs,
          failures: l.failures,
          recordsPending: l.recordsPending,
          bareLoginsPerSecond: bl.perSecond,
          bareLoginServerCpuUs: bl.serverCpuUs,
          bareLoginServerMainCpuUs: bl.serverMainCpuUs,
          bareLoginClientMainCpuUs: bl.clientMainCpuUs,
        });
      }
      health.sort((a, b) => a - b);
      bareHealth.sort((a, b) => a - b);
      const ratios = rounds.map((x) => x.ratio);
      const bcryptCpu = median(rounds.map((x) => x.bcryptCpuUs));
      const kapiCpu = median(rounds.map((x) => x.kapiserverCpuUs));
      const us = (pick: (x: Round) => number) => Math.round(median(rounds.map(pick)));
      const spread = (pick: (x: Round) => number) => {
        const xs = rounds.map(pick);
        return [Math.round(Math.min(...xs)), Math.round(Math.max(...xs))];
      };
      byConcurrency.push({
        concurrency,
        loginToBcryptRatio: round2(median(ratios)),
        ratioSpread: [round2(Math.min(...ratios)), round2(Math.max(...ratios))],
        loginsPerSecond: round1(median(rounds.map((x) => x.loginsPerSecond))),
        bcryptVerifyPerSecond: round1(median(rounds.map((x) => x.bcryptPerSecond))),
        loginFailures: rounds.reduce((n, x) => n + x.failures, 0),
        recordsPendingAfterSettle: Math.max(...rounds.map((x) => x.recordsPending)),
        // The floor of a login over HTTP here (no target of its own): its ratio to the bare compares, kapiserver's
        // ratio to it, and its CPU per login (the server's main thread, every thread, this process's main thread).
        bareLoginServer: {
          loginsPerSecond: round1(median(rounds.map((x) => x.bareLoginsPerSecond))),
          toBcryptRatio: round2(median(rounds.map((x) => x.bareLoginsPerSecond / x.bcryptPerSecond))),
          kapiserverToItRatio: round2(median(rounds.map((x) => x.loginsPerSecond / x.bareLoginsPerSecond))),
          cpuUsPerLogin: {
            serverMain: Math.round(median(rounds.map((x) => x.bareLoginServerMainCpuUs))),
            serverBesidesBcrypt: Math.round(
              median(rounds.map((x) => x.bareLoginServerCpuUs)) - median(rounds.map((x) => x.bcryptCpuUs)),
            ),
            benchClientMain: Math.round(median(rounds.map((x) => x.bareLoginClientMainCpuUs))),
          },
        },
        // kapiserver's CPU per login (event loop and bcrypt threads), the part that is not one bcrypt compare,
        // and the dev cluster's (the LoginRecord write and its watchers).
        // Per thread: the main threads' (event loops') and the other threads' (kapiserver's: bcrypt and GC; the dev
        // cluster's: GC), each a median over rounds with its [min, max].
        cpuUsPerLogin: {
          kapiserver: Math.round(kapiCpu),
          bcryptCompare: Math.round(bcryptCpu),
          kapiserverBesidesBcrypt: Math.round(kapiCpu - bcryptCpu),
          devcluster: us((x) => x.devclusterCpuUs),
          byThread: {
            kapiserverMain: us((x) => x.kapiserverMainCpuUs),
            kapiserverMainSpread: spread((x) => x.kapiserverMainCpuUs),
            kapiserverOthers: us((x) => x.kapiserverCpuUs - x.kapiserverMainCpuUs),
            kapiserverOthersBesidesBcrypt: us((x) => x.kapiserverCpuUs - x.kapiserverMainCpuUs - bcryptCpu),
            devclusterMain: us((x) => x.devclusterMainCpuUs),
            devclusterMainSpread: spread((x) => x.devclusterMainCpuUs),
            devclusterOthers: us((x) => x.devclusterCpuUs - x.devclusterMainCpuUs),
            benchClientMain: us((x) => x.clientMainCpuUs),
          },
        },
        healthzDuringLogins: {
          samples: health.length,
          p50ms: round1(percentile(health, 50)),
          p99ms: round1(percentile(health, 99)),
          maxMs: round1(health[health.length - 1] ?? 0),
          bareServerP99ms: round1(percentile(bareHealth, 99)),
        },
        rounds: rounds.map((x) => ({
          ratio: round2(x.ratio),
          loginsPerSecond: round1(x.loginsPerSecond),
          bcryptPerSecond: round1(x.bcryptPerSecond),
          bareLoginsPerSecond: round1(x.bareLoginsPerSecond),
          kapiserverMainCpuUs: Math.round(x.kapiserverMainCpuUs),
          devclusterMainCpuUs: Math.round(x.devclusterMainCpuUs),
        })),
      });
    }

    const token = (await login({ url, adminPassword })).access_token;
    const auth = await autocannon({
      url: `${url}/oauth/userinfo`,
      connections: 20,
      seconds: AUTH_SECONDS,
      headers: { authorization: `Bearer ${token}` },
    });
    const result = {
      server: `kapiserver process: ${command.described}`,
      cores: CORES,
      loadAverage: loadavg().map(round2),
      bcryptCost: BCRYPT_COST,
      threadPoolSize: Number(process.env.UV_THREADPOOL_SIZE),
      rounds: ROUNDS,
      perPhase: PER_PHASE,
      target: TARGET,
      byConcurrency,
      authenticatedRequests: {
        endpoint: 'GET /oauth/userinfo',
        connections: 20,
        seconds: AUTH_SECONDS,
        requestsPerSecond: Math.round(auth.rps),
        latencyP99ms: auth.p99,
        non2xx: auth.non2xx,
        errors: auth.errors,
      },
    };
    console.log(JSON.stringify(result, null, 2));
    const parts = byConcurrency.map(
      (c) =>
        `c=${c.concurrency}: ratio ${c.loginToBcryptRatio} [${c.ratioSpread.join('-')}] (target >= ${TARGET.loginToBcryptRatio}), ` +
        `/healthz p99 ${c.healthzDuringLogins.p99ms} ms (target < ${TARGET.healthzP99Ms}; bare server ${c.healthzDuringLogins.bareServerP99ms} ms), ` +
        `CPU/login ${c.cpuUsPerLogin.kapiserver} us (bcrypt ${c.cpuUsPerLogin.bcryptCompare} us; main thread ` +
        `${c.cpuUsPerLogin.byThread.kapiserverMain} us, others besides bcrypt ${c.cpuUsPerLogin.byThread.kapiserverOthersBesidesBcrypt} us) ` +
        `+ dev cluster ${c.cpuUsPerLogin.devcluster} us (main ${c.cpuUsPerLogin.byThread.devclusterMain} us) + client and probes ${c.cpuUsPerLogin.byThread.benchClientMain} us; ` +
        `bare login server ${c.bareLoginServer.toBcryptRatio} of the compares (kapiserver ${c.bareLoginServer.kapiserverToItRatio} of it; ` +
        `its main thread ${c.bareLoginServer.cpuUsPerLogin.serverMain} us/login, client ${c.bareLoginServer.cpuUsPerLogin.benchClientMain} us)`,
    );
    console.log(
      `oauth (${SERVER}): ${parts.join('; ')}; ${result.authenticatedRequests.requestsPerSecond} authenticated req/s; thread pool ${result.threadPoolSize}`,
    );
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      const exited = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGTERM');
      await exited;
    }
    await agent.close();
    bare.child.kill('SIGTERM');
    bareLogin.child.kill('SIGTERM');
    await dev.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
