// Authentication: every request outside the anonymous paths (../path-policy.ts) needs credentials, either
//  - `Authorization: Bearer <access token>`: a valid HS256 JWT from /oauth/token, still active in the token store
//    (not revoked, not superseded by a single-login policy), of a user that still exists; or
//  - a bearer token of one of the cluster's service accounts (machine clients such as Prometheus), checked with the
//    cluster's TokenReview (../oauth/serviceaccount-tokens.ts; off with `authentication.serviceAccountTokens: false`);
//    the review unavailable is a 503; or
//  - `Authorization: Basic <base64 login:password>`, as ks-apiserver v3 accepts on every path (../oauth/basic.ts):
//    the password checked like the password grant's, lockout and throttling included.
// Anything else is a 401 Kubernetes Status. The resolved user (name, uid, groups incl. system:authenticated, extra)
// goes on request.user. Run by the filter chain (./chain.ts), for fastify's hooks and the upgrade handler alike.
import type { IncomingHttpHeaders } from 'node:http';
import { isStatusError, serviceUnavailable, unauthorized } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { type BasicCredentials, isBasic, parseBasic } from '../oauth/basic.ts';
import { TOKEN_STORE_RETRY_AFTER_SECONDS } from '../oauth/errors.ts';
import { InvalidTokenError } from '../oauth/jwt.ts';
import { areCredentialsOptional, isAnonymousPath } from '../path-policy.ts';
import type { UserInfo } from '../request.ts';

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)[ ]*$/i;
/** KubeSphere's stand-in for Authorization (for clients that cannot set it, e.g. a browser's WebSocket). */
const KUBESPHERE_AUTHORIZATION = 'x-kubesphere-authorization';

/**
 * The Authorization header, after KubeSphere's rule: when it is absent, X-KubeSphere-Authorization is moved into
 * it. The stand-in is removed in every case, so that, like Authorization, it is never forwarded to the orchestrator.
 */
function authorizationHeader(headers: IncomingHttpHeaders): string | undefined {
  const standIn = headers[KUBESPHERE_AUTHORIZATION];
  delete headers[KUBESPHERE_AUTHORIZATION];
  if (!headers.authorization && typeof standIn === 'string' && standIn !== '')
    headers.authorization = standIn;
  return headers.authorization;
}

/** The credentials an Authorization header carries; throws a 401 StatusError naming what is wrong with it. */
function credentialsOf(header: string): { token: string } | BasicCredentials {
  const token = BEARER.exec(header)?.[1];
  if (token !== undefined) return { token };
  if (isBasic(header)) return parseBasic(header);
  throw unauthorized(
    'Unauthorized: the Authorization header must be "Bearer <token>" or "Basic <credentials>"',
  );
}

/**
 * The authenticated user of a request, undefined on the anonymous allow-list; throws a 401 StatusError (with
 * `challenge: true`) or a 503 StatusError. `peerAddress`: the TCP peer, for login records and throttling.
 */
export async function authenticateHeaders(
  ctx: ServerContext,
  path: string,
  headers: IncomingHttpHeaders,
  peerAddress?: string,
): Promise<UserInfo | undefined> {
  const header = authorizationHeader(headers);
  if (isAnonymousPath(path)) return undefined;
  if (typeof header !== 'string' || header === '') {
    if (areCredentialsOptional(path)) return undefined;
    throw unauthorized(
      'Unauthorized: a bearer token (POST /oauth/token to get one) or HTTP Basic credentials are required',
    );
  }
  const credentials = credentialsOf(header);
  const oauth = ctx.oauth;
  if (!oauth.isReady()) throw serviceUnavailable('token authentication is starting; retry shortly');
  try {
    if ('token' in credentials) return await oauth.authenticateBearer(credentials.token);
    const userAgent = headers['user-agent'];
    return await oauth.basic.authenticate(credentials, {
      sourceIP: peerAddress ?? '',
      userAgent: typeof userAgent === 'string' ? userAgent : '',
    });
  } catch (err) {
    if (err instanceof InvalidTokenError) throw unauthorized(`Unauthorized: ${err.reason}`);
    if (isStatusError(err) && err.code === 401) throw err;
    ctx.logger.error({ err: (err as Error).message }, 'credential check failed');
    throw serviceUnavailable('credential check failed; retry shortly');
  }
}

/** Response headers for an authentication failure: the challenge on 401, when to retry while the token store is down. */
export function authenticationFailureHeaders(err: unknown): Record<string, string> {
  const code = (err as { code?: number }).code;
  if (code === 401) return { 'WWW-Authenticate': 'Bearer realm="kapiserver"' };
  if (code === 503) return { 'Retry-After': String(TOKEN_STORE_RETRY_AFTER_SECONDS) };
  return {};
}
