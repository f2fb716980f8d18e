// The one table of what a path is excused from. To change a public or permission-free path, change ONE line below.
// A `path` ending in `/` is a prefix (every path under it), any other is exact; matching is on the raw request path
// (no query), case-sensitive. A prefix never matches a non-canonical path (see canonical-path.ts), so
// `/oauth/../api/v1/secrets`-style tricks cannot borrow it, whoever asks (the request path or an access review's).
import { isCanonicalPath } from './canonical-path.ts';

interface PathPolicy {
  path: string;
  /** Served without a bearer token; everything else gets 401 without one. */
  anonymous?: true;
  /** Credentials are checked when sent; without any, served as anonymous (KubeSphere's logout). */
  credentialsOptional?: true;
  /** Needs no permission once authenticated (KubeSphere's path authorizer, plus the Kubernetes health endpoints). */
  authorizationExempt?: true;
  /** Counted in metrics but not audited: kubelet probes would flood the audit log. */
  unaudited?: true;
}

const PATH_POLICIES: readonly PathPolicy[] = [
  // Token issuance and RFC 7009 revocation: the client authenticates with its own credentials.
  { path: '/oauth/token', anonymous: true },
  { path: '/oauth/revoke', anonymous: true },
  { path: '/oauth/keys', anonymous: true }, // public keys (JWKS)
  { path: '/oauth/.well-known/', anonymous: true }, // OIDC discovery
  { path: '/.well-known/openid-configuration', anonymous: true, authorizationExempt: true }, // and at the root
  // Without credentials it shows the sign-in page; a bearer token sent (KubeSphere's console) is checked and used.
  { path: '/oauth/authorize', credentialsOptional: true },
  { path: '/oauth/sign-in', anonymous: true }, // the sign-in page's form: CSRF token and Origin checked
  // Identity providers: the login form and the provider's redirect back carry no token.
  { path: '/oauth/login/', anonymous: true },
  { path: '/oauth/callback/', anonymous: true },
  { path: '/oauth/logout', credentialsOptional: true }, // without a token there is nothing to revoke
  { path: '/oauth/', authorizationExempt: true },
  { path: '/healthz', anonymous: true, authorizationExempt: true, unaudited: true },
  { path: '/livez', anonymous: true, authorizationExempt: true, unaudited: true },
  { path: '/readyz', anonymous: true, authorizationExempt: true, unaudited: true },
  { path: '/version', anonymous: true, authorizationExempt: true },
  { path: '/kapis/version', anonymous: true, authorizationExempt: true },
  { path: '/kapi/version', anonymous: true, authorizationExempt: true },
  // The console reads these two before login; the other config routes (gpu/kinds) need a token, no permission.
  {
    path: '/kapis/config.kubesphere.io/v1alpha2/configs/configz',
    anonymous: true,
    authorizationExempt: true,
  },
  { path: '/kapis/config.kubesphere.io/v1alpha2/configs/oauth', anonymous: true, authorizationExempt: true },
  { path: '/kapi/config.kubesphere.io/v1alpha2/configs/configz', anonymous: true, authorizationExempt: true },
  { path: '/kapi/config.kubesphere.io/v1alpha2/configs/oauth', anonymous: true, authorizationExempt: true },
  { path: '/kapis/config.kubesphere.io/', authorizationExempt: true },
  { path: '/kapi/config.kubesphere.io/', authorizationExempt: true },
  { path: '/swagger-ui', anonymous: true }, // Swagger UI page
  { path: '/swagger-ui/', anonymous: true }, // Swagger UI assets and the two swagger documents
];

type Excuse = 'anonymous' | 'credentialsOptional' | 'authorizationExempt' | 'unaudited';

/** Exact paths and prefixes per excuse, built once from the table. */
const INDEX = Object.fromEntries(
  (['anonymous', 'credentialsOptional', 'authorizationExempt', 'unaudited'] as const).map((excuse) => {
    const paths = PATH_POLICIES.filter((p) => p[excuse]).map((p) => p.path);
    return [
      excuse,
      {
        exact: new Set(paths.filter((p) => !p.endsWith('/'))),
        prefixes: paths.filter((p) => p.endsWith('/')),
      },
    ];
  }),
) as Record<Excuse, { exact: Set<string>; prefixes: string[] }>;

function excused(excuse: Excuse, path: string): boolean {
  const { exact, prefixes } = INDEX[excuse];
  if (exact.has(path)) return true;
  return prefixes.length > 0 && isCanonicalPath(path) && prefixes.some((p) => path.startsWith(p));
}

/** True when `path` may be served without a bearer token. */
export const isAnonymousPath = (path: string): boolean => excused('anonymous', path);

/** True when `path` is served without credentials, yet checks them when sent. */
export const areCredentialsOptional = (path: string): boolean => excused('credentialsOptional', path);

/** True when `path` needs no permission once authenticated. */
export const isAuthorizationExempt = (path: string): boolean => excused('authorizationExempt', path);

/** False for the probes, which are not audited. */
export const isAudited = (path: string): boolean => !excused('unaudited', path);
