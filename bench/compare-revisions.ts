// Before/after benchmark of two revisions, side by side in one run (issue 11: "no request path gets slower"; a
// shared, noisy machine makes numbers from separate runs incomparable).
// Each revision is checked out into a git worktree under /tmp (node_modules symlinked from this checkout when the
// lockfiles are equal, else `npm ci` there) and started the way its own `npm start` runs it: `tsx src/main.ts` as
// `node --import tsx src/main.ts`, or `node dist/main.js` after `npm run build`. Each gets its own dev cluster
// process (this checkout's, the same BENCH_NODES nodes) through --kubeconfig, so only kapiserver differs, and is
// loaded over loopback HTTP on its insecure port. The same bounded autocannon loads hit both, alternating
// (before/after, then after/before) for BENCH_ROUNDS rounds:
//  - forwarded GET /api/v1/nodes (authentication, RBAC, forwarding),
//  - the password grant, POST /oauth/token, at a fixed concurrency (bcrypt-bound),
//  - the /kapis paged node list bench/kapis.ts measures.
// Per path: req/s of each side, each round's after/before ratio (runs adjacent in time) and their median, and the
// CPU microseconds per request of each kapiserver and of its dev cluster (from /proc: moved less than req/s by other
// load on the machine); also each server's idle CPU and the load average. Prints one JSON document and a one-line summary.
// Usage: npm run bench -- compare <before-rev> [<after-rev>, default HEAD]. BENCH_SECONDS (3), BENCH_ROUNDS (3),
// BENCH_NODES (100); BENCH_CPU_PROF=<dir>: both servers run with --cpu-prof and write their profiles under <dir>;
// BENCH_KEEP_WORKTREES=1 keeps the worktrees this run created for the next one (npm ci takes minutes);
// BENCH_LOADS=name,... runs only those loads (forwardedNodes, passwordGrant, kapisNodePage), e.g. to profile one.
import { type ChildProcessWithoutNullStreams, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { type DevClusterProcess, startDevClusterProcess } from '../test/helpers/devcluster.ts';
import { login } from '../test/helpers/oauth.ts';
import {
  autocannon,
  benchNode,
  cpuSeconds,
  fill,
  type Load,
  median,
  ownChild,
  productionCommand,
  run,
  spawnKapiserver,
  waitFor,
} from './_helpers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NODES = Number(process.env.BENCH_NODES ?? 100);
const IDLE_SECONDS = 10;
const CPU_PROF = process.env.BENCH_CPU_PROF;
const KEEP_WORKTREES = process.env.BENCH_KEEP_WORKTREES === '1';
const ONLY_LOADS = process.env.BENCH_LOADS?.split(',');
const ROOT = resolve(import.meta.dirname, '..');
const KAPIS_PAGE = '/kapis/resources.kubesphere.io/v1alpha3/nodes?limit=10&page=3';

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

interface Checkout {
  rev: string;
  sha: string;
  dir: string;
  created: boolean;
}

/** A worktree of `rev` under /tmp with its dependencies installed (reused when one is already there). */
function checkout(rev: string): Checkout {
  const sha = git('rev-parse', '--verify', `${rev}^{commit}`);
  const dir = join(tmpdir(), `kapi-${sha.slice(0, 7)}`);
  const created = !existsSync(dir);
  if (created) git('worktree', 'add', '--detach', dir, sha);
  else if (git('-C', dir, 'rev-parse', 'HEAD') !== sha) throw new Error(`${dir} is not a checkout of ${sha}`);
  if (!existsSync(join(dir, 'node_modules'))) {
    // This checkout's node_modules were installed from its lockfile: shared only when the revision's is the same.
    const lock = join(ROOT, 'package-lock.json');
    const sameLock =
      existsSync(lock) && git('show', `${sha}:package-lock.json`) === readFileSync(lock, 'utf8').trim();
    if (sameLock && existsSync(join(ROOT, 'node_modules')))
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    else run(dir, 'npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund']);
  }
  return { rev, sha, dir, created };
}

function removeCheckout(c: Checkout): void {
  if (!c.created || KEEP_WORKTREES) return;
  // The symlinked node_modules is this checkout's: unlink it first so nothing can delete through it.
  const modules = join(c.dir, 'node_modules');
  if (lstatSync(modules, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(modules);
  git('worktree', 'remove', '--force', c.dir);
}

interface Server {
  label: string;
  checkout: Checkout;
  described: string;
  dev: DevClusterProcess;
  child: ChildProcessWithoutNullStreams;
  url: string;
  adminPassword: string;
  token: string;
}

async function seedNodes(dev: DevClusterProcess): Promise<void> {
  const agent = new Agent({ connect: { ca: dev.caPem } });
  try {
    await fill(0, NODES, async (i) => {
      const r = await request(`${dev.url}/api/v1/nodes`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(benchNode(i)),
      });
      await r.body.text();
      if (r.statusCode !== 201) throw new Error(`POST node: ${r.statusCode}`);
    });
  } finally {
    await agent.close();
  }
}

async function stop(
  child: ChildProcessWithoutNullStreams | undefined,
  dev: DevClusterProcess,
): Promise<void> {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await dev.close();
}

/** Starts the revision's kapiserver on its own seeded dev cluster and waits until it has cached the nodes. */
async function startServer(label: string, c: Checkout, dataDir: string): Promise<Server> {
  const { node, described } = productionCommand(c.dir);
  const dev = await startDevClusterProcess(join(dataDir, 'cluster'));
  ownChild(dev.child);
  let child: ChildProcessWithoutNullStreams | undefined;
  try {
    await seedNodes(dev);
    const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;
    const flags = ['--kubeconfig', dev.kubeconfigPath, '--data-dir', join(dataDir, 'kapiserver')];
    flags.push('--bind-address', '127.0.0.1', '--port', '0', '--secure-port', '0');
    const spawned = spawnKapiserver({
      label,
      cwd: c.dir,
      node,
      flags,
      env: { KAPISERVER_ADMIN_PASSWORD: adminPassword },
      profileDir: CPU_PROF && resolve(CPU_PROF, label),
    });
    child = spawned.child;
    const url = `http://127.0.0.1:${(await spawned.listening).port}`;
    const token = (await login({ url, adminPassword })).access_token;
    await waitFor(
      `${label}: ${NODES} nodes cached`,
      async () => {
        const r = await fetch(`${url}${KAPIS_PAGE}`, { headers: { authorization: `Bearer ${token}` } });
        return ((await r.json()) as { totalItems: number }).totalItems >= NODES;
      },
      120_000,
    );
    return { label, checkout: c, described, dev, child, url, adminPassword, token };
  } catch (err) {
    await stop(child, dev);
    throw err;
  }
}

/** The loads, each the same for both servers. */
const LOADS: Record<string, { describe: string; options: (s: Server) => Parameters<typeof autocannon>[0] }> =
  {
    forwardedNodes: {
      describe: 'GET /api/v1/nodes (forwarded), 16 connections',
      options: (s) => ({
        url: `${s.url}/api/v1/nodes`,
        connections: 16,
        seconds: SECONDS,
        headers: { authorization: `Bearer ${s.token}` },
      }),
    },
    passwordGrant: {
      describe: 'POST /oauth/token grant_type=password, 8 connections (as bench/oauth.ts)',
      options: (s) => ({
        url: `${s.url}/oauth/token`,
        connections: 8,
        seconds: SECONDS,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'password',
          username: 'admin',
          password: s.adminPassword,
          client_id: 'kubesphere',
          client_secret: 'kubesphere',
        }).toString(),
      }),
    },
    kapisNodePage: {
      describe: `GET ${KAPIS_PAGE}, 8 connections (as bench/kapis.ts)`,
      options: (s) => ({
        url: `${s.url}${KAPIS_PAGE}`,
        connections: 8,
        seconds: SECONDS,
        headers: { authorization: `Bearer ${s.token}` },
      }),
    },
  };

interface Measured {
  load: Load;
  /** CPU microseconds per request of the kapiserver process. */
  cpuUs?: number;
  /** CPU microseconds per request of its dev cluster (what it forwards to, and its informers' source). */
  devCpuUs?: number;
}

async function measure(s: Server, name: string): Promise<Measured> {
  const pids = [s.child.pid ?? 0, s.dev.child.pid ?? 0];
  const cpu0 = pids.map((pid) => cpuSeconds(pid));
  const load = await autocannon(LOADS[name].options(s));
  const cpu1 = pids.map((pid) => cpuSeconds(pid));
  if (load.non2xx > 0 || load.errors > 0)
    throw new Error(`${s.label} ${name}: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
  const perRequest = (i: number) => {
    const [a, b] = [cpu0[i], cpu1[i]];
    return a && b && load.requests > 0 ? ((b.self - a.self) / load.requests) * 1e6 : undefined;
  };
  return { load, cpuUs: perRequest(0), devCpuUs: perRequest(1) };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * CPU milliseconds per second each server spends with no load (informers, controllers, timers), measured together:
 * at a low request rate this share of CPU per request grows.
 */
async function idleCpuMsPerSecond(servers: Server[]): Promise<number[]> {
  const at0 = servers.map((s) => cpuSeconds(s.child.pid ?? 0)?.self ?? Number.NaN);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  return servers.map((s, i) =>
    round2((((cpuSeconds(s.child.pid ?? 0)?.self ?? Number.NaN) - at0[i]) * 1000) / IDLE_SECONDS),
  );
}

async function main() {
  const [beforeRev, afterRev = 'HEAD'] = process.argv.slice(2);
  if (!beforeRev) throw new Error('usage: npm run bench -- compare <before-rev> [<after-rev>]');
  const loadAtStart = loadavg();
  const checkouts = [checkout(beforeRev), checkout(afterRev)];
  const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-bench-compare-'));
  const servers: Server[] = [];
  try {
    servers.push(await startServer('before', checkouts[0], join(dataDir, 'before')));
    servers.push(await startServer('after', checkouts[1], join(dataDir, 'after')));
    const [before, after] = servers;
    const idle = await idleCpuMsPerSecond(servers);
    const paths: Record<string, unknown> = {};
    const summary: string[] = [];
    for (const name of ONLY_LOADS ?? Object.keys(LOADS)) {
      if (!LOADS[name]) throw new Error(`BENCH_LOADS: no load named ${name}`);
      // Warm both (connections, caches, lazily compiled routes), then alternate which goes first.
      await measure(before, name);
      await measure(after, name);
      const runs: Record<'before' | 'after', Measured[]> = { before: [], after: [] };
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 === 0 ? [before, after] : [after, before];
        for (const s of order) runs[s.label as 'before' | 'after'].push(await measure(s, name));
      }
      const ratios = runs.after.map((a, i) => round2(a.load.rps / runs.before[i].load.rps));
      const cpu = (ms: Measured[], of: 'cpuUs' | 'devCpuUs' = 'cpuUs') =>
        ms.map((m) => Math.round(m[of] ?? Number.NaN));
      const cpuRatios = runs.after.map((a, i) =>
        round2((a.cpuUs ?? Number.NaN) / (runs.before[i].cpuUs ?? 1)),
      );
      paths[name] = {
        load: LOADS[name].describe,
        requestsPerSecond: {
          before: runs.before.map((m) => Math.round(m.load.rps)),
          after: runs.after.map((m) => Math.round(m.load.rps)),
        },
        p99ms: { before: runs.before.map((m) => m.load.p99), after: runs.after.map((m) => m.load.p99) },
        kapiserverCpuUsPerRequest: { before: cpu(runs.before), after: cpu(runs.after) },
        devClusterCpuUsPerRequest: {
          before: cpu(runs.before, 'devCpuUs'),
          after: cpu(runs.after, 'devCpuUs'),
        },
        afterToBeforeRatios: ratios,
        afterToBeforeRatio: median(ratios),
        // Above 1: the after revision spends more CPU per request.
        cpuPerRequestRatios: cpuRatios,
        cpuPerRequestRatio: median(cpuRatios),
      };
      summary.push(`${name} ${median(ratios)} (${ratios.join(' ')}; CPU/req ${median(cpuRatios)})`);
    }
    const report = {
      benchmark: 'compare-revisions',
      cores: availableParallelism(),
      loadAverage: { start: loadAtStart.map(round2), end: loadavg().map(round2) },
      seconds: SECONDS,
      rounds: ROUNDS,
      nodes: NODES,
      idleCpuMsPerSecond: { before: idle[0], after: idle[1] },
      before: { rev: beforeRev, sha: checkouts[0].sha, runs: before.described },
      after: { rev: afterRev, sha: checkouts[1].sha, runs: after.described },
      paths,
    };
    console.log(JSON.stringify(report, null, 2));
    console.log(
      `compare ${checkouts[0].sha.slice(0, 7)} -> ${checkouts[1].sha.slice(0, 7)}, after/before req/s: ${summary.join('; ')}; ` +
        `idle CPU ${idle[0]} -> ${idle[1]} ms/s; load average ${report.loadAverage.start[0]} -> ${report.loadAverage.end[0]} on ${report.cores} cores`,
    );
  } finally {
    for (const s of servers) await stop(s.child, s.dev);
    rmSync(dataDir, { recursive: true, force: true });
    for (const c of checkouts) removeCheckout(c);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
