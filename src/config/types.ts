// The parts of KubeSphere's kubesphere.yaml that kapiserver serves, after defaults are applied.
// Durations are held in milliseconds; the file writes them as Go duration strings.

export interface OAuthClient {
  /** The client's `name` is the OAuth `client_id`. */
  name: string;
  secret: string;
  redirectURIs: string[];
  grantMethod: 'auto' | 'prompt' | 'deny';
  respondWithChallenges: boolean;
  scopeRestrictions: string[];
  /** Per-client override of the global access token lifetime (ms); undefined = global. */
  accessTokenMaxAge?: number;
  accessTokenInactivityTimeout?: number;
}

export interface IdentityProvider {
  name: string;
  mappingMethod: string;
  type: string;
  provider: Record<string, unknown>;
}

export interface OAuthOptions {
  issuer: string;
  /** Access token lifetime in ms; 0 = tokens never expire. */
  accessTokenMaxAge: number;
  /** Refresh tokens live accessTokenMaxAge + this (ms). */
  accessTokenInactivityTimeout: number;
  clients: OAuthClient[];
  identityProviders: IdentityProvider[];
}

export interface AuthenticationOptions {
  authenticateRateLimiterMaxTries: number;
  authenticateRateLimiterDuration: number;
  loginHistoryRetentionPeriod: number;
  loginHistoryMaximumEntries: number;
  maximumClockSkew: number;
  multipleLogin: boolean;
  /** HS256 key; empty = generate and persist one. */
  jwtSecret: string;
  /** Password for the initial `admin` user; empty = random (printed once). Not a KubeSphere field. */
  adminPassword: string;
  oauthOptions: OAuthOptions;
}

export interface RedisOptions {
  host: string;
  port: number;
  password: string;
  db: number;
}

export interface AuthorizationOptions {
  mode: 'RBAC' | 'AlwaysAllow' | 'AlwaysDeny';
  /**
   * Forward /api and /apis requests with Impersonate-User/-Group of the authenticated user, so the orchestrator also
   * authorizes (and audits) them as that user; the service account then needs the `impersonate` verb. Not a KubeSphere field.
   */
  impersonate?: boolean;
}

export interface AuditingOptions {
  enable: boolean;
  /** File sink: one JSON event per line; empty = no file. */
  logPath: string;
  /** Webhook sink URL; empty = none. */
  webhookUrl: string;
  /** Webhook: concurrent batch POSTs (KubeSphere `eventSendersNum`). */
  eventSendersNum: number;
  /** Webhook: events per POST (KubeSphere `eventBatchSize`). */
  eventBatchSize: number;
  /** Webhook: longest wait before a partial batch is sent, ms (KubeSphere `eventBatchInterval`). */
  eventBatchInterval: number;
}

export interface KubeSphereConfig {
  authentication: AuthenticationOptions;
  /** Present only when configured: its presence selects the Redis token store. */
  redis?: RedisOptions;
  authorization: AuthorizationOptions;
  auditing: AuditingOptions;
}
