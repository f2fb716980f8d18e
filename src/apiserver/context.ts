// What every part of the API server is built with. Complete before the server is built (startApiServer, or a test's
// own builder in test/helpers/server-context.ts): no part is optional, so no consumer chooses a failure mode for a
// missing one.
import type { Logger } from 'pino';
import type { Auditor } from './audit/index.ts';
import type { ClusterCache } from './cluster/cache.ts';
import type { ClusterConnection } from './cluster/index.ts';
import type { ConfigSource } from './config-source.ts';
import type { AuthorizationDecision } from './iam/authorizer.ts';
import type { EscalationChecker } from './iam/rbac-escalation.ts';
import type { RuleResolver } from './iam/rbac-resolver.ts';
import type { ApiMetrics } from './metrics/index.ts';
import type { OAuthService } from './oauth/index.ts';
import type { Readiness } from './readiness.ts';
import type { RequestInfo, UserInfo } from './request.ts';

/** The parts the token service and the authorizer are built from. */
export interface BaseContext {
  /** Effective configuration (defaults < file < ClusterConfiguration < flags): `current()`, and change events. */
  config: ConfigSource;
  cluster: ClusterConnection;
  logger: Logger;
  /** Directory for kapiserver's own files (PKI, generated secrets). */
  dataDir: string;
  readiness: Readiness;
  /** Functions to run on shutdown, in reverse order of registration (watches, Redis, caches). */
  onClose: (fn: () => Promise<void> | void) => void;
  /** Prometheus metrics (served on /metrics). */
  metrics: ApiMetrics;
  /** Audit sinks; an auditor without sinks when auditing is off. */
  audit: Auditor;
  /** Shared informers over the orchestrator (API overview at the top of cluster/cache.ts). */
  cache: ClusterCache;
}

/** Authorization as the server uses it (iam/rbac-start.ts): the configured mode's decisions and RBAC's rules. */
export interface RequestAuthorizer {
  /**
   * May `user` do what `info` describes? RBAC over Kubernetes RBAC + KubeSphere global/workspace roles (or the
   * configured AlwaysAllow/AlwaysDeny). Throws a 503 StatusError while the RBAC cache is loading.
   */
  authorize(user: UserInfo, info: RequestInfo): Promise<AuthorizationDecision>;
  /** The rules a user holds at a scope (SelfSubjectRulesReview). */
  rules: RuleResolver;
  /** Refuses role, binding and group writes granting more than the writer holds; applies in RBAC mode only. */
  escalation: EscalationChecker;
}

export interface ServerContext extends BaseContext {
  /** Token issuance and authentication (users, clients, token store). */
  oauth: OAuthService;
  authorizer: RequestAuthorizer;
  /** The HTTPS port kubectl users connect to (and its CA when generated locally); known once listening. */
  secureEndpoint?: { port: number; caPem?: string };
}
