// Pieces several benchmarks share: autocannon as its own process, kapiserver as its own process (run as `npm start`
// runs it), CPU time from /proc, free ports, polling, medians and the bench node shape. (run-bench.mjs skips files starting with `_`: this is not a benchmark.)
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const ownedChildren = new Set<ChildProcess>();
let reaping = false;

/**
 * The child ends with the bench: on its exit and on SIGINT/SIGTERM (without this, a bench stopped by a signal left
 * its kapiserver running).
 */
export function ownChild<T extends ChildProcess>(child: T): T {
  if (!reaping) {
    reaping = true;
    const endAll = () => {
      for (const c of ownedChildren) c.kill('SIGTERM');
    };
    process.once('exit', endAll);
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      process.once(signal, () => {
        endAll();
        process.exit(code);
      });
    }
  }
  ownedChildren.add(child);
  child.once('exit', () => ownedChildren.delete(child));
  return child;
}

const AUTOCANNON = resolve(import.meta.dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');

export interface Load {
  rps: number;
  p99: number;
  p50: number;
  non2xx: number;
  errors: number;
  mbPerSec: number;
  requests: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  /** A CA file autocannon trusts (HTTPS targets with a local CA). */
  caFile?: string;
}

/**
 * One bounded autocannon run in its own process, so the load generator never shares an event loop with what it
 * measures.
 */
export function autocannon(opts: LoadOptions): Promise<Load> {
  const args = [AUTOCANNON, '-c', String(opts.connections), '-d', String(opts.seconds), '-j', '-n'];
  for (const [name, value] of Object.entries(opts.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (opts.method) args.push('-m', opts.method);
  if (opts.body !== undefined) args.push('-b', opts.body);
  args.push(opts.url);
  return new Promise((res, rej) => {
    const child = ownChild(
      spawn(process.execPath, args, {
        env: opts.caFile ? { ...process.env, NODE_EXTRA_CA_CERTS: opts.caFile } : process.env,
      }),
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('close', () => {
      try {
        const r = JSON.parse(out) as {
          requests: { average: number; total: number };
          latency: { p99: number; p50: number };
          non2xx: number;
          errors: number;
          throughput: { average: number };
        };
        res({
          rps: r.requests.average,
          p99: r.latency.p99,
          p50: r.latency.p50,
          non2xx: r.non2xx,
          errors: r.errors,
          mbPerSec: r.throughput.average / 1e6,
          requests: r.requests.total,
        });
      } catch {
        rej(new Error(`autocannon failed: ${err.slice(0, 500)}`));
      }
    });
  });
}

/** CPU seconds (user + system) of a process, and of its exited, waited-for children; undefined without /proc. */
export function cpuSeconds(pid: number | 'self'): { self: number; children: number } | undefined {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds (user + system) of a process's main thread (its tid is the pid); the process's other threads (thread
 * pool, V8's GC helpers) are `cpuSeconds(pid).self` minus this.
 */
export function mainThreadCpuSeconds(pid: number | 'self'): number | undefined {
  const id = pid === 'self' ? process.pid : pid;
  return statCpuSeconds(`/proc/${id}/task/${id}/stat`)?.self;
}

function statCpuSeconds(path: string): { self: number; children: number } | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = 100; // USER_HZ on Linux
    return {
      self: (Number(f[11]) + Number(f[12])) / ticks,
      children: (Number(f[13]) + Number(f[14])) / ticks,
    };
  } catch {
    return undefined;
  }
}

/** Resident set size of a process in MiB (VmRSS; Linux only), -1 when unknown. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : -1;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor((s.length - 1) / 2)];
}

/** Per-field median over rounds. */
export function medianOf<T extends Record<keyof T, number>>(rows: T[]): T {
  const out = {} as Record<keyof T, number>;
  for (const k of Object.keys(rows[0]) as (keyof T)[]) out[k] = median(rows.map((r) => r[k]));
  return out as T;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

export async function waitFor(what: string, fn: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs `make(i)` for every i in [from, to), `concurrency` at a time. */
export async function fill(
  from: number,
  to: number,
  make: (i: number) => Promise<void>,
  concurrency = 16,
): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < to) await make(next++);
    }),
  );
}

/** A ready worker node named bench-node-<i>. */
export function benchNode(i: number): unknown {
  return {
    metadata: {
      name: `bench-node-${i}`,
      labels: { 'kubernetes.io/hostname': `bench-node-${i}`, bench: '' },
    },
    spec: {},
    status: {
      allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/** Runs a command to completion in `cwd`, its output shown; throws when it fails. */
/** Runs a set-up command; its output goes to stderr, so a bench's stdout stays one JSON document and its summary. */
export function run(cwd: string, command: string, args: string[]): void {
  const r = spawnSync(command, args, { cwd, stdio: ['ignore', process.stderr, 'inherit'] });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd} exited ${r.status}`);
}

/** node arguments that run the server as the checkout's own `npm start` does; builds dist/ when that runs it. */
export function productionCommand(dir: string): { node: string[]; described: string } {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const start = pkg.scripts.start;
  const tsx = /^tsx (\S+)$/.exec(start);
  if (tsx)
    return {
      node: ['--import', 'tsx', tsx[1]],
      described: `node --import tsx ${tsx[1]} (npm start: ${start})`,
    };
  const node = /^node (\S+)$/.exec(start);
  if (!node) throw new Error(`unknown start script in ${dir}: ${start}`);
  if (pkg.scripts.build) run(dir, 'npm', ['run', 'build']);
  return { node: [node[1]], described: `node ${node[1]} after npm run build (npm start: ${start})` };
}

export interface KapiserverSpawn {
  label: string;
  cwd: string;
  /** node arguments (productionCommand) and kapiserver's flags. */
  node: string[];
  flags: string[];
  env: NodeJS.ProcessEnv;
  /** When set, the process runs with --cpu-prof and writes its profile there on exit. */
  profileDir?: string;
}

/** Spawns kapiserver and resolves with its ports once it listens; its output is then only drained. */
export function spawnKapiserver(opts: KapiserverSpawn): {
  child: ChildProcessWithoutNullStreams;
  listening: Promise<{ port: number; securePort?: number }>;
} {
  const profile = opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [];
  const child = ownChild(
    spawn(process.execPath, [...profile, ...opts.node, ...opts.flags], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
    }),
  );
  const listening = new Promise<{ port: number; securePort?: number }>((res, rej) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"msg":"kapiserver listening"'));
      if (!line) return;
      child.stdout.off('data', onData).resume();
      const { port, securePort } = JSON.parse(line) as { port: number; securePort?: number };
      res({ port, securePort });
    };
    child.stdout.on('data', onData);
    child.stderr.resume();
    child.once('exit', (code) =>
      rej(new Error(`${opts.label} kapiserver exited (${code}) before listening:\n${out}`)),
    );
  });
  return { child, listening };
}
