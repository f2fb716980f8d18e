// A complete ServerContext over an orchestrator that is never reached (nothing listens on port 1): real parts that
// start nothing lasting, for registering routes without serving them (the swagger document) and for tests' servers
// (test/helpers/server-context.ts). Token issuance stays "starting" and the informers empty until close().
import pino from 'pino';
import type { KubeSphereConfig } from '../config/index.ts';
import { createAuditor } from './audit/index.ts';
import { ClusterCache } from './cluster/cache.ts';
import { ClusterConnection } from './cluster/index.ts';
import { ConfigSource } from './config-source.ts';
import type { BaseContext, ServerContext } from './context.ts';
import { startAuthorization } from './iam/rbac-start.ts';
import { createApiMetrics } from './metrics/index.ts';
import { LocalTokenStore, startOAuth } from './oauth/index.ts';
import { Readiness } from './readiness.ts';

export interface DetachedContext {
  ctx: ServerContext;
  /** Stops what the parts started (retries, informers, audit sinks). */
  close(): Promise<void>;
}

/** `parts`: ones the caller builds itself (e.g. metrics it also reads, an auditor it inspects). */
export function detachedContext(
  config: KubeSphereConfig,
  parts: Partial<Pick<BaseContext, 'dataDir' | 'readiness' | 'metrics' | 'audit'>> = {},
): DetachedContext {
  const closers: (() => Promise<void> | void)[] = [];
  const logger = pino({ level: 'silent' });
  const cluster = new ClusterConnection({ server: 'https://127.0.0.1:1' }, logger);
  const metrics = parts.metrics ?? createApiMetrics();
  const base: BaseContext = {
    config: new ConfigSource(config),
    cluster,
    logger,
    dataDir: parts.dataDir ?? '',
    readiness: parts.readiness ?? new Readiness(),
    onClose: (fn) => closers.push(fn),
    metrics,
    audit: parts.audit ?? createAuditor(config.auditing, logger, metrics.auditEvent),
    cache: new ClusterCache(cluster, logger),
  };
  const oauth = startOAuth(base, new LocalTokenStore(':memory:'));
  const ctx: ServerContext = { ...base, oauth, authorizer: startAuthorization(base, oauth.ready).authorizer };
  return {
    ctx,
    async close() {
      for (const fn of closers.reverse()) await fn();
      await oauth.close();
      await base.cache.close();
      await base.audit.close();
      await cluster.close();
    },
  };
}
