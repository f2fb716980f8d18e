// kapiserver's embedded dev cluster, run as a child process (`kapiserver devcluster` with an IPC channel).
// A child process rather than a worker thread: its request work (YAML, big lists, SQLite) never stalls kapiserver's
// event loop, a crash in it cannot take kapiserver down, and SQLite and its lock belong to one process that the OS
// cleans up whole. Its JSON log lines share kapiserver's stdout; it exits when its IPC channel to kapiserver closes.
// A crash is logged and the child restarted on the same port (kapiserver's /readyz reports the orchestrator down
// meanwhile): restarting keeps the KubeSphere APIs up after one bad request, which exiting would turn into an outage.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { type OidcFlags, oidcFlagArgs } from '../cli.ts';

/** What the child reports over IPC once, at start. */
export type ChildMessage =
  | { type: 'ready'; url: string; port: number; kubeconfigPath: string }
  | { type: 'failed'; message: string };

type Ready = Extract<ChildMessage, { type: 'ready' }>;

export interface DevClusterChildOptions {
  dataDir: string;
  /** 0 picks a free port on the first start; restarts reuse the port the first start got. */
  port: number;
  logLevel: string;
  logger: Logger;
  /** OIDC issuer the dev cluster trusts (kapiserver's --devcluster-oidc-* flags). */
  oidc?: OidcFlags;
}

export interface DevClusterChild {
  url: string;
  port: number;
  kubeconfigPath: string;
  /** pid of the running child, if one runs. */
  pid(): number | undefined;
  /** Stops the child (SIGTERM, then SIGKILL past the timeout) and restarts no more. */
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
/** Within kapiserver's shutdown deadline. */
const STOP_TIMEOUT_MS = 5000;
const RESTART_DELAYS_MS = [1000, 2000, 5000, 10_000, 30_000];
/** A child that ran this long before crashing restarts after the shortest delay again. */
const STABLE_AFTER_MS = 60_000;

/** Environment variables that carry kapiserver's secrets. */
const CHILD_ENV_EXCLUDED = ['KAPISERVER_JWT_SECRET', 'KAPISERVER_ADMIN_PASSWORD'];

interface Launched {
  child: ChildProcess;
  ready: Promise<Ready>;
  exited: Promise<void>;
}

const isRunning = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

function launch(opts: DevClusterChildOptions, port: number): Launched {
  // process.argv[1] is the entry that started kapiserver (bin/kapiserver.mjs, src/main.ts under tsx, or compiled
  // JS); execArgv carries the loader flags (tsx) that entry needs.
  const args = [
    ...process.execArgv,
    process.argv[1],
    'devcluster',
    '--data-dir',
    opts.dataDir,
    '--port',
    String(port),
    '--log-level',
    opts.logLevel,
    ...oidcFlagArgs(opts.oidc ?? {}),
  ];
  // kapiserver's own secrets are none of the dev cluster's business.
  const env = { ...process.env };
  for (const name of CHILD_ENV_EXCLUDED) delete env[name];
  // Own process group: a terminal's Ctrl-C reaches kapiserver, which then stops the child in order.
  const child = spawn(process.execPath, args, {
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the embedded dev cluster did not start within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.once('message', (m: ChildMessage) => {
      clearTimeout(timer);
      if (m.type === 'ready') resolve(m);
      else reject(new Error(`the embedded dev cluster did not start: ${m.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the embedded dev cluster exited (${signal ?? `code ${code}`}) before it was ready`));
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`the embedded dev cluster could not be started: ${err.message}`));
    });
  });
  ready.catch(() => {});
  return { child, ready, exited };
}

/** Starts the child and resolves once it serves; rejects (with the child's reason) if the first start fails. */
export async function startDevClusterChild(opts: DevClusterChildOptions): Promise<DevClusterChild> {
  const { logger } = opts;
  let current = launch(opts, opts.port);
  const first = await current.ready;
  let stopping = false;
  let readyAt = Date.now();
  let step = 0;

  const supervise = (proc: Launched) => {
    proc.child.once('exit', (code, signal) => {
      if (stopping) return;
      step = Date.now() - readyAt >= STABLE_AFTER_MS ? 0 : step + 1;
      logger.error(
        { pid: proc.child.pid, code, signal },
        'embedded dev cluster exited unexpectedly; restarting it (/readyz reports the orchestrator down meanwhile)',
      );
      void restart();
    });
  };

  const restart = async () => {
    while (!stopping) {
      await new Promise((r) =>
        setTimeout(r, RESTART_DELAYS_MS[Math.min(step, RESTART_DELAYS_MS.length - 1)]),
      );
      if (stopping) return;
      current = launch(opts, first.port);
      try {
        await current.ready;
      } catch (err) {
        step++;
        logger.error({ err: (err as Error).message }, 'embedded dev cluster restart failed; retrying');
        continue;
      }
      readyAt = Date.now();
      logger.info({ pid: current.child.pid, url: first.url }, 'embedded dev cluster restarted');
      supervise(current);
      return;
    }
  };

  supervise(current);
  return {
    url: first.url,
    port: first.port,
    kubeconfigPath: first.kubeconfigPath,
    pid: () => (isRunning(current.child) ? current.child.pid : undefined),
    async close() {
      stopping = true;
      const { child, exited } = current;
      if (!isRunning(child)) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
