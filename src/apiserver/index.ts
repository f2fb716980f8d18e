// Starts the API server: every part of the context (context.ts) built first, then the app and both listeners.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { KubeSphereConfig } from '../config/index.ts';
import { ensureLocalPki } from '../pki/index.ts';
import { createAuditor } from './audit/index.ts';
import { ClusterCache } from './cluster/cache.ts';
import type { ClusterConnection } from './cluster/index.ts';
import { ConfigSource } from './config-source.ts';
import type { BaseContext, ServerContext } from './context.ts';
import { startControllers } from './controllers/index.ts';
import { startAuthorization } from './iam/rbac-start.ts';
import { createApiMetrics } from './metrics/index.ts';
import { createTokenStore, startOAuth } from './oauth/index.ts';
import { Readiness } from './readiness.ts';
import { buildApiServer } from './server.ts';
import { startTenancyBuiltins } from './tenancy/builtins.ts';

export interface ApiServerOptions {
  config: KubeSphereConfig;
  cluster: ClusterConnection;
  logger: Logger;
  dataDir: string;
  host: string;
  port: number;
  securePort?: number;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Extra names for the generated serving certificate (--tls-san). */
  tlsSans?: string[];
}

export interface RunningApiServer {
  port: number;
  securePort?: number;
  /** CA that signs the secure port's certificate when it was generated locally. */
  caPem?: string;
  context: ServerContext;
  close(): Promise<void>;
}

const PROBE_INTERVAL_MS = 5000;
const OAUTH_START_WAIT_MS = 20_000;

export async function startApiServer(opts: ApiServerOptions): Promise<RunningApiServer> {
  const closers: (() => Promise<void> | void)[] = [];
  const readiness = new Readiness();
  const metrics = createApiMetrics();
  metrics.addHealthCheck('orchestrator', () => opts.cluster.isReachable);
  const audit = createAuditor(opts.config.auditing, opts.logger, metrics.auditEvent);
  // Registered first so it runs last: events of requests finishing during shutdown are still flushed.
  closers.push(() => audit.close());

  // Orchestrator reachability is probed in the background so /readyz answers at once and recovers by itself.
  const reachableAtStart = await opts.cluster.probe();
  readiness.register('orchestrator', () => opts.cluster.isReachable);
  closers.push(opts.cluster.watchReachability(PROBE_INTERVAL_MS, opts.logger));
  // Unreachable at start: listen at once (/livez answers, /readyz names the orchestrator) instead of waiting on
  // start-up steps that cannot finish; they complete by themselves once it answers.
  const startWait = <T>(step: Promise<T>) =>
    reachableAtStart
      ? Promise.race([step, new Promise((r) => setTimeout(r, OAUTH_START_WAIT_MS).unref())])
      : undefined;

  // Informer cache: informers start on demand (the aggregated APIs start theirs at registration); /readyz waits for
  // every started one to sync. Closed after the server (closers run in reverse).
  const cache = new ClusterCache(opts.cluster, opts.logger);
  readiness.register('informer-cache', () => cache.synced());
  metrics.addCacheStats(() => cache.stats());
  metrics.addHealthCheck('informer-cache', () => cache.synced());
  closers.push(() => cache.close());
  const base: BaseContext = {
    config: new ConfigSource(opts.config),
    cluster: opts.cluster,
    logger: opts.logger,
    dataDir: opts.dataDir,
    readiness,
    onClose: (fn) => closers.push(fn),
    metrics,
    audit,
    cache,
  };

  // Token issuance and authentication start in the background (CRDs, JWT key, user cache); start-up waits a bounded
  // time for them so the first login after start works, and /readyz reports them.
  const store = createTokenStore(opts.config, opts.dataDir, opts.logger.child({ component: 'oauth' }));
  const oauth = startOAuth(base, store);
  readiness.register('oauth', () => oauth.isReady());
  // Without its token store (Redis down) no login or bearer check can be answered: not ready.
  readiness.register('token-store', () => oauth.store.healthy());
  metrics.addHealthCheck('token-store', () => oauth.store.healthy());
  closers.push(() => oauth.close());
  await startWait(oauth.ready);

  // Authorization: RBAC from the informer cache; built-in global roles once the CRDs exist.
  const authz = startAuthorization(base, oauth.ready);
  readiness.register('authorization', authz.synced);
  await startWait(authz.rolesReady);
  const ctx: ServerContext = { ...base, oauth, authorizer: authz.authorizer };

  // The controllers clients rely on (controllers/) act while this replica holds their Lease.
  startControllers(ctx, oauth.ready);
  // Built-in tenancy objects (system-workspace, role templates) once the CRDs exist.
  await startWait(startTenancyBuiltins(ctx, oauth.ready));

  const server = await buildApiServer(ctx);

  let tls: { cert: string; key: string } | undefined;
  let caPem: string | undefined;
  if (opts.securePort !== undefined) {
    if (opts.tlsCertFile && opts.tlsKeyFile) {
      tls = { cert: readFileSync(opts.tlsCertFile, 'utf8'), key: readFileSync(opts.tlsKeyFile, 'utf8') };
    } else {
      const pki = await ensureLocalPki(opts.dataDir, opts.tlsSans);
      tls = { cert: pki.serving.certPem, key: pki.serving.keyPem };
      caPem = pki.caPem;
    }
  }
  const bound = await server.listen({ host: opts.host, port: opts.port, securePort: opts.securePort, tls });
  if (bound.securePort !== undefined) ctx.secureEndpoint = { port: bound.securePort, caPem };

  return {
    ...bound,
    caPem,
    context: ctx,
    async close() {
      await server.close();
      for (const fn of closers.reverse()) await fn();
      await opts.cluster.close();
    },
  };
}
