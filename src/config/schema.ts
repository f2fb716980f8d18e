// The accepted shape of kubesphere.yaml (the parts kapiserver serves). Used to validate the file and to
// find unknown fields; values are converted into KubeSphereConfig by load.ts.
import { type TSchema, Type } from 'typebox';

/** Go duration string (`10m`, `2h0m0s`) or a number of seconds. */
const Duration = Type.Union(
  [Type.String({ pattern: '^(0|(\\d+(\\.\\d+)?(ns|us|µs|ms|s|m|h))+)$' }), Type.Number({ minimum: 0 })],
  {
    description: 'a duration such as 10m or 2h0m0s',
  },
);

const Client = Type.Object({
  name: Type.String({ minLength: 1 }),
  secret: Type.Optional(Type.String()),
  redirectURIs: Type.Optional(Type.Array(Type.String())),
  grantMethod: Type.Optional(
    Type.Union([Type.Literal('auto'), Type.Literal('prompt'), Type.Literal('deny')]),
  ),
  respondWithChallenges: Type.Optional(Type.Boolean()),
  scopeRestrictions: Type.Optional(Type.Array(Type.String())),
  accessTokenMaxAge: Type.Optional(Duration),
  accessTokenInactivityTimeout: Type.Optional(Duration),
});

const IdentityProvider = Type.Object({
  name: Type.String({ minLength: 1 }),
  mappingMethod: Type.Optional(Type.String()),
  type: Type.String(),
  provider: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const OAuthOptionsSchema = Type.Object({
  issuer: Type.Optional(Type.String()),
  signKey: Type.Optional(Type.String()),
  signKeyData: Type.Optional(Type.String()),
  accessTokenMaxAge: Type.Optional(Duration),
  accessTokenInactivityTimeout: Type.Optional(Duration),
  clients: Type.Optional(Type.Array(Client)),
  identityProviders: Type.Optional(Type.Array(IdentityProvider)),
});

export const AuthenticationSchema = Type.Object({
  authenticateRateLimiterMaxTries: Type.Optional(Type.Integer({ minimum: 1 })),
  authenticateRateLimiterDuration: Type.Optional(Duration),
  loginHistoryRetentionPeriod: Type.Optional(Duration),
  loginHistoryMaximumEntries: Type.Optional(Type.Integer({ minimum: 0 })),
  maximumClockSkew: Type.Optional(Duration),
  multipleLogin: Type.Optional(Type.Boolean()),
  jwtSecret: Type.Optional(Type.String()),
  adminPassword: Type.Optional(Type.String()),
  kubectlImage: Type.Optional(Type.String()),
  oauthOptions: Type.Optional(OAuthOptionsSchema),
});

const Redis = Type.Object({
  host: Type.String({ minLength: 1 }),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  password: Type.Optional(Type.String()),
  db: Type.Optional(Type.Integer({ minimum: 0 })),
});

const Authorization = Type.Object({
  mode: Type.Optional(
    Type.Union([Type.Literal('RBAC'), Type.Literal('AlwaysAllow'), Type.Literal('AlwaysDeny')]),
  ),
  /** kapiserver: forward /api, /apis as the authenticated user (Impersonate-* headers). Not a KubeSphere field. */
  impersonate: Type.Optional(Type.Boolean()),
});

const Auditing = Type.Object({
  enable: Type.Optional(Type.Boolean()),
  logPath: Type.Optional(Type.String()),
  webhookUrl: Type.Optional(Type.String()),
  // KubeSphere v3 webhook batching options (pkg/simple/client/auditing).
  eventSendersNum: Type.Optional(Type.Integer({ minimum: 1 })),
  eventBatchSize: Type.Optional(Type.Integer({ minimum: 1 })),
  eventBatchInterval: Type.Optional(Duration),
});

export const ConfigFileSchema = Type.Object({
  authentication: Type.Optional(AuthenticationSchema),
  redis: Type.Optional(Redis),
  authorization: Type.Optional(Authorization),
  auditing: Type.Optional(Auditing),
});

/** Top-level sections of KubeSphere's file that kapiserver does not serve: accepted, noted once, not validated. */
export const UNSERVED_SECTIONS = new Set([
  'kubernetes',
  'servicemesh',
  'network',
  'monitoring',
  'logging',
  'alerting',
  'notification',
  'multicluster',
  'devops',
  'sonarQube',
  'openpitrix',
  's3',
  'events',
  'ldap',
  'gateway',
  'edgeruntime',
  'terminal',
  'metering',
  'gpu',
  'kubeedge',
]);

export type Schema = TSchema;
