// The embedded dev cluster: a Kubernetes-compatible HTTPS API server backed by SQLite.
// Public surface: startDevCluster(); everything else in this folder is internal.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type DirLock, DirLockedError, lockDir } from '../datadir-lock.ts';
import { ensureLocalPki } from '../pki/index.ts';
import type { ControllerManager } from './controllers/framework.ts';
import { startControllers } from './controllers/index.ts';
import { OidcAuthenticator, type OidcOptions } from './oidc.ts';
import { Registry } from './registry.ts';
import { Rest } from './rest.ts';
import { ensureSystemNamespaces, seedDefaultStorageClass, seedDemoData } from './seed.ts';
import { createHandler } from './server.ts';
import { ServiceAccounts } from './serviceaccounts.ts';
import {
  DEFAULT_SIMULATION,
  NodeHeartbeat,
  type SimulationOptions,
  simulationControllers,
} from './simulation/index.ts';
import { Store } from './store.ts';
import { Watches } from './watch.ts';

export interface DevClusterOptions {
  /** State lives under <dataDir>/devcluster/ (state.db, token, kubeconfig); PKI under <dataDir>/pki/. */
  dataDir: string;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 6443; 0 picks a free port. */
  port?: number;
  logger?: Logger;
  /** Default true: demo nodes, namespaces and workloads on first start. */
  seedDemoData?: boolean;
  /**
   * How long a live holder of the directory's lock may take to go away before the start is refused (default 0).
   * kapiserver's child uses it: the child of a kapiserver killed just before may still be shutting down.
   */
  lockWaitMs?: number;
  /** Trust ID tokens from this OIDC issuer (kube-apiserver's --oidc-* flags). */
  oidc?: OidcOptions;
}

export interface DevCluster {
  url: string;
  port: number;
  kubeconfigPath: string;
  token: string;
  caPem: string;
  close(): Promise<void>;
}

/** Internal knobs for tests and benchmarks (not part of the public interface). */
export interface DevClusterInternalOptions extends DevClusterOptions {
  historyLimit?: number;
  bookmarkIntervalMs?: number;
  /** The controllers' clock (ms); default Date.now. */
  now?: () => number;
  /** Demo nodes seeded on a fresh start (default 3; node1 is the tainted control plane). */
  nodeCount?: number;
  /** Timing of the simulated kubelets. */
  simulation?: SimulationOptions;
}

/** A running dev cluster plus handles tests and benchmarks use to force edge cases. */
export interface DevClusterInternal extends DevCluster {
  store: Store;
  rest: Rest;
  controllers: ControllerManager;
  /** Ends every open watch (clients reconnect with their last resourceVersion). */
  endWatches(): void;
  watchCount(): number;
}

function loadOrCreateToken(dir: string): string {
  const file = join(dir, 'token');
  if (existsSync(file)) {
    const t = readFileSync(file, 'utf8').trim();
    if (t) return t;
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

function kubeconfig(url: string, caPem: string, token: string): string {
  const ca = Buffer.from(caPem).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kapiserver-dev',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    '- name: kapiserver-dev-admin',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: kapiserver-dev',
    '  context:',
    '    cluster: kapiserver-dev',
    '    user: kapiserver-dev-admin',
    '    namespace: default',
    'current-context: kapiserver-dev',
    'preferences: {}',
    '',
  ].join('\n');
}

export function startDevCluster(opts: DevClusterOptions): Promise<DevCluster> {
  return startDevClusterInternal(opts);
}

/** Takes the directory's lock, waiting up to `waitMs` for a live holder to exit. */
async function waitForLock(dir: string, waitMs: number): Promise<DirLock> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return lockDir(dir, 'devcluster.lock');
    } catch (err) {
      if (!(err instanceof DirLockedError) || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export async function startDevClusterInternal(opts: DevClusterInternalOptions): Promise<DevClusterInternal> {
  const dir = join(opts.dataDir, 'devcluster');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // One dev cluster per directory: a second one would rewrite the kubeconfig and race on state.db.
  const lock = await waitForLock(dir, opts.lockWaitMs ?? 0);
  try {
    return await serveDevCluster(opts, dir, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function serveDevCluster(
  opts: DevClusterInternalOptions,
  dir: string,
  lock: DirLock,
): Promise<DevClusterInternal> {
  const host = opts.host ?? '127.0.0.1';
  // Bad OIDC options (or an unreadable CA file) refuse the start before anything is opened.
  const oidc = opts.oidc ? new OidcAuthenticator(opts.oidc, opts.logger) : undefined;
  const pki = await ensureLocalPki(opts.dataDir);
  const token = loadOrCreateToken(dir);
  const store = new Store(join(dir, 'state.db'), { historyLimit: opts.historyLimit });
  const registry = new Registry();
  const rest = new Rest(store, registry);
  try {
    rest.loadCrds();
    const fresh = store.currentRv === 0;
    if (fresh && opts.seedDemoData !== false) seedDemoData(rest, registry, opts.nodeCount ?? 3);
    else ensureSystemNamespaces(rest, registry);
    if (fresh) seedDefaultStorageClass(rest, registry);
  } catch (err) {
    store.close();
    throw err;
  }
  const controllers = startControllers({
    rest,
    store,
    registry,
    logger: opts.logger,
    now: opts.now,
    more: (ctx) => simulationControllers(ctx, opts.simulation ?? {}, pki.caPem),
  });
  const heartbeat = new NodeHeartbeat(
    rest,
    opts.simulation?.leaseRenewMs ?? DEFAULT_SIMULATION.leaseRenewMs,
    opts.now ?? Date.now,
    opts.logger,
  );
  heartbeat.start();
  const watches = new Watches(rest, {
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 15_000,
    maxBufferedBytes: 64 * 1024 * 1024,
  });
  const handlers = createHandler({
    rest,
    watches,
    token,
    logger: opts.logger,
    serviceAccounts: new ServiceAccounts(dir, rest),
    oidc,
  });
  const server: Server = createServer(
    { key: pki.serving.keyPem, cert: pki.serving.certPem, keepAliveTimeout: 65_000 },
    handlers.request,
  );
  server.on('upgrade', handlers.upgrade);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 6443, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    heartbeat.stop();
    controllers.stop();
    rest.close();
    store.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const shownHost =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `https://${shownHost}:${port}`;
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfig(url, pki.caPem, token), { mode: 0o600 });
  opts.logger?.info({ url, kubeconfig: kubeconfigPath }, 'dev cluster listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    kubeconfigPath,
    token,
    caPem: pki.caPem,
    store,
    rest,
    controllers,
    endWatches: () => watches.endAll(),
    watchCount: () => watches.count,
    close() {
      closing ??= (async () => {
        watches.endAll();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 1000);
        await closed;
        clearTimeout(force);
        heartbeat.stop();
        controllers.stop();
        rest.close();
        store.close();
        lock.release();
      })();
      return closing;
    },
  };
}
