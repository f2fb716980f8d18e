// The one description of kubesphere.yaml (the parts kapiserver serves): field types, defaults and meanings. The file
// is validated against it; defaults come from its `default`s; the configuration type is its decoded form, in which
// durations (Go strings such as `10m`, or numbers of seconds, in the file) are milliseconds.
import { type StaticDecode, Type } from 'typebox';
import { ComponentSections } from './components.ts';
import { formatDuration, parseDuration } from './duration.ts';

/** What a bad duration is reported as expecting (the field's `description` says what it means). */
const DURATION_EXPECTED = 'a duration such as 10m or 2h0m0s';

/** A Go duration string (`10m`, `2h0m0s`) or a number of seconds in the file; milliseconds once decoded. */
function Duration(options: { default?: string; description?: string } = {}) {
  const encoded = Type.Union(
    [Type.String({ pattern: '^(0|(\\d+(\\.\\d+)?(ns|us|µs|ms|s|m|h))+)$' }), Type.Number({ minimum: 0 })],
    { ...options, expected: DURATION_EXPECTED },
  );
  return Type.Codec(encoded)
    .Decode((v): number => (typeof v === 'number' ? Math.round(v * 1000) : (parseDuration(v) ?? 0)))
    .Encode((ms) => formatDuration(ms));
}

/** KubeSphere's well-known default client (`kubesphere`/`kubesphere`), kept for compatibility; start-up warns while unchanged. */
export const DEFAULT_CLIENT_ID = 'kubesphere';
export const DEFAULT_CLIENT_SECRET = 'kubesphere';

const Client = Type.Object({
  name: Type.String({ minLength: 1, description: 'the OAuth client_id' }),
  secret: Type.String({ default: '' }),
  redirectURIs: Type.Array(Type.String(), { default: ['*'] }),
  grantMethod: Type.Union([Type.Literal('auto'), Type.Literal('prompt'), Type.Literal('deny')], {
    default: 'auto',
  }),
  respondWithChallenges: Type.Boolean({ default: false }),
  scopeRestrictions: Type.Array(Type.String(), { default: ['full'] }),
  accessTokenMaxAge: Type.Optional(
    Duration({ description: "this client's access token lifetime; absent: the global one" }),
  ),
  accessTokenInactivityTimeout: Type.Optional(Duration()),
  allowImplicitGrant: Type.Boolean({
    default: false,
    description: 'kapiserver only: /oauth/authorize answers response_type=token for this client',
  }),
});

const IdentityProvider = Type.Object({
  name: Type.String({ minLength: 1 }),
  mappingMethod: Type.String({ default: 'auto' }),
  type: Type.String(),
  provider: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
});

const OAuthOptions = Type.Object(
  {
    issuer: Type.String({
      default: 'kubesphere',
      description:
        "tokens' iss; an http(s) URL is also the OpenID Connect issuer (discovery at <issuer>/.well-known/)",
    }),
    externalURL: Type.Optional(
      Type.String({
        pattern: '^https?://[^/?#]+(/[^?#]*)?$',
        description:
          'kapiserver only: the URL clients reach kapiserver at, when issuer is not a URL; the OpenID Connect ' +
          'issuer is then <externalURL>/oauth',
      }),
    ),
    allowWildcardRedirectURIs: Type.Boolean({
      default: false,
      description:
        'kapiserver only: a client redirectURIs entry "*" accepts any redirect_uri (warned at start)',
    }),
    signKey: Type.Optional(Type.String({ description: 'PEM file of the RSA key that signs ID tokens' })),
    signKeyData: Type.Optional(
      Type.String({ description: 'base64 of that PEM; neither: generated once and kept in a Secret' }),
    ),
    accessTokenMaxAge: Duration({ default: '2h', description: 'access token lifetime; 0: never expires' }),
    accessTokenInactivityTimeout: Duration({
      default: '2h',
      description: 'refresh tokens live accessTokenMaxAge plus this',
    }),
    clients: Type.Array(Client, {
      default: [{ name: DEFAULT_CLIENT_ID, secret: DEFAULT_CLIENT_SECRET }],
    }),
    identityProviders: Type.Array(IdentityProvider, { default: [] }),
  },
  { default: {} },
);

const AuthenticationSchema = Type.Object(
  {
    authenticateRateLimiterMaxTries: Type.Integer({
      minimum: 1,
      default: 10,
      description: 'failed logins within the window that lock a user (429)',
    }),
    authenticateRateLimiterDuration: Duration({ default: '10m' }),
    loginHistoryRetentionPeriod: Duration({ default: '168h' }),
    loginHistoryMaximumEntries: Type.Integer({ minimum: 0, default: 100 }),
    maximumClockSkew: Duration({ default: '10s' }),
    multipleLogin: Type.Boolean({
      default: true,
      description: "false: a new login revokes the user's older tokens",
    }),
    jwtSecret: Type.String({ default: '', description: 'HS256 key; empty: generated once and kept' }),
    serviceAccountTokens: Type.Boolean({
      default: true,
      description:
        "kapiserver only: accept the cluster's service-account tokens as bearer tokens, checked with a TokenReview " +
        '(cached 10 s); RBAC decides what the account may do',
    }),
    adminPassword: Type.String({
      default: '',
      description: 'kapiserver only: password of the initial admin user; empty: random, printed once',
    }),
    kubectlImage: Type.Optional(Type.String({ description: 'accepted for compatibility; not used' })),
    oauthOptions: OAuthOptions,
  },
  { default: {} },
);

const Redis = Type.Object(
  {
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 1, maximum: 65535, default: 6379 }),
    password: Type.String({ default: '' }),
    db: Type.Integer({ minimum: 0, default: 0 }),
  },
  {
    description:
      'present: tokens in Redis (several replicas); absent: <data-dir>/oauth/tokens.db (one replica)',
  },
);

const Authorization = Type.Object(
  {
    mode: Type.Union([Type.Literal('RBAC'), Type.Literal('AlwaysAllow'), Type.Literal('AlwaysDeny')], {
      default: 'RBAC',
    }),
    impersonate: Type.Optional(
      Type.Boolean({
        description:
          'kapiserver only: forward /api and /apis with Impersonate-User/-Group of the authenticated user, so the ' +
          'orchestrator also authorizes and audits them as that user (its service account needs the impersonate verb)',
      }),
    ),
  },
  { default: {} },
);

// KubeSphere v3 auditing, with its webhook batching options (pkg/simple/client/auditing).
const Auditing = Type.Object(
  {
    enable: Type.Boolean({ default: false }),
    logPath: Type.String({ default: '', description: 'file sink, one JSON event per line; empty: none' }),
    webhookUrl: Type.String({ default: '', description: 'webhook sink; empty: none' }),
    eventSendersNum: Type.Integer({ minimum: 1, default: 3, description: 'concurrent webhook batch POSTs' }),
    eventBatchSize: Type.Integer({ minimum: 1, default: 100, description: 'events per webhook POST' }),
    eventBatchInterval: Duration({
      default: '3s',
      description: 'longest wait before a partial batch is sent',
    }),
    host: Type.Optional(
      Type.String({
        description: "KubeSphere's audit search backend; kapiserver only reports it in configz",
      }),
    ),
  },
  { default: {} },
);

// KubeSphere's monitoring section: the Prometheus that monitoring.kubesphere.io/v1alpha3 answers from.
const Monitoring = Type.Object(
  {
    endpoint: Type.String({
      default: '',
      pattern: '^(https?://.+)?$',
      description:
        "Prometheus' base URL (http or https, optionally with user:password@); empty: not installed (configz " +
        'monitoring: false, every metric answers its error)',
    }),
  },
  { default: {} },
);

export const ConfigSchema = Type.Object({
  authentication: AuthenticationSchema,
  redis: Type.Optional(Redis),
  authorization: Authorization,
  auditing: Auditing,
  monitoring: Monitoring,
  // Read only for configs/configz (./components.ts); the sections stay in UNSERVED_SECTIONS.
  ...ComponentSections,
});

/** The configuration after defaults, durations in milliseconds. */
export type KubeSphereConfig = StaticDecode<typeof ConfigSchema>;
export type AuthenticationOptions = KubeSphereConfig['authentication'];
export type OAuthOptions = AuthenticationOptions['oauthOptions'];
export type OAuthClient = OAuthOptions['clients'][number];
export type IdentityProvider = OAuthOptions['identityProviders'][number];
export type RedisOptions = NonNullable<KubeSphereConfig['redis']>;
export type AuthorizationOptions = KubeSphereConfig['authorization'];
export type AuditingOptions = KubeSphereConfig['auditing'];
export type GpuKind = NonNullable<NonNullable<KubeSphereConfig['gpu']>['kinds']>[number];

/**
 * Top-level sections of KubeSphere's file that kapiserver does not serve: accepted and noted once; only the keys
 * ./components.ts names are read (and validated), for configs/configz.
 */
export const UNSERVED_SECTIONS = new Set([
  'kubernetes',
  'servicemesh',
  'network',
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
  'cache',
  'gpu',
  'kubeedge',
]);
