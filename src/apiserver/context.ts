// What every part of the API server is built with: configuration, the orchestrator connection, logging, readiness.
import type { Logger } from 'pino';
import type { KubeSphereConfig } from '../config/index.ts';
import type { Auditor } from './audit/index.ts';
import type { ClusterCache } from './cluster/cache.ts';
import type { ClusterConnection } from './cluster/index.ts';
import type { AuthorizationDecision } from './iam/authorizer.ts';
import type { EscalationChecker } from './iam/rbac-escalation.ts';
import type { RuleResolver } from './iam/rbac-resolver.ts';
import type { ApiMetrics } from './metrics/index.ts';
import type { OAuthService } from './oauth/index.ts';
import type { Readiness } from './readiness.ts';
import type { RequestInfo, UserInfo } from './request.ts';

export interface ServerContext {
  /** Effective configuration (defaults < file < ClusterConfiguration < flags). */
  config: KubeSphereConfig;
  cluster: ClusterConnection;
  logger: Logger;
  /** Directory for kapiserver's own files (PKI, generated secrets). */
  dataDir: string;
  readiness: Readiness;
  /** Functions to run on shutdown, in reverse order of registration (watches, Redis, caches). */
  onClose: (fn: () => Promise<void> | void) => void;
  /** Prometheus metrics (served on /metrics); e.g. `ctx.metrics?.tokenIssued('password', 'success')`. */
  metrics?: ApiMetrics;
  /** Audit sinks; undefined when auditing is off. */
  audit?: Auditor;
  /** Shared informers over the orchestrator (API overview at the top of cluster/cache.ts); set by startApiServer. */
  cache?: ClusterCache;
  /** Token issuance and bearer authentication (users, clients, token store); set by startApiServer. */
  oauth?: OAuthService;
  /**
   * May `user` do what `info` describes? RBAC over Kubernetes RBAC + KubeSphere global/workspace roles (or the
   * configured AlwaysAllow/AlwaysDeny). Throws a 503 StatusError while the RBAC cache is loading. Set by startApiServer.
   */
  authorize?: (user: UserInfo, info: RequestInfo) => Promise<AuthorizationDecision>;
  /** The rules a user holds at a scope (SelfSubjectRulesReview); set with `authorize`. */
  ruleResolver?: RuleResolver;
  /** Refuses role, binding and group writes granting more than the writer holds; applies in RBAC mode only. */
  escalation?: EscalationChecker;
  /** The HTTPS port kubectl users connect to (and its CA when generated locally); set once listening. */
  secureEndpoint?: { port: number; caPem?: string };
  /**
   * Only for tests of the bare server shell (built without an orchestrator or token service): let requests through
   * unauthenticated. startApiServer never sets it; without it and without `oauth`, every request gets 401.
   */
  authenticationDisabled?: boolean;
}
