// Authentication: every request outside the anonymous paths (../path-policy.ts) needs
// `Authorization: Bearer <access token>`: a valid HS256 JWT from /oauth/token, still active in the token store
// (not revoked, not superseded by a single-login policy), of a user that still exists. Anything else is a 401
// Kubernetes Status. The resolved user (name, uid, groups incl. system:authenticated, extra) goes on request.user.
// Run by the filter chain (./chain.ts), for fastify's hooks and the upgrade handler alike.
import type { IncomingHttpHeaders } from 'node:http';
import { serviceUnavailable, unauthorized } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { TOKEN_STORE_RETRY_AFTER_SECONDS } from '../oauth/errors.ts';
import { InvalidTokenError } from '../oauth/jwt.ts';
import { isAnonymousPath } from '../path-policy.ts';
import type { UserInfo } from '../request.ts';

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)[ ]*$/i;

/**
 * The authenticated user of a request, undefined on the anonymous allow-list; throws a 401 StatusError (with
 * `challenge: true`) or a 503 StatusError.
 */
export async function authenticateHeaders(
  ctx: ServerContext,
  path: string,
  headers: IncomingHttpHeaders,
): Promise<UserInfo | undefined> {
  if (isAnonymousPath(path)) return undefined;
  const header = headers.authorization;
  if (typeof header !== 'string' || header === '') {
    throw unauthorized('Unauthorized: a bearer token is required (POST /oauth/token to get one)');
  }
  const m = BEARER.exec(header);
  if (!m) throw unauthorized('Unauthorized: the Authorization header must be "Bearer <token>"');
  const oauth = ctx.oauth;
  if (!oauth.isReady()) throw serviceUnavailable('token authentication is starting; retry shortly');
  try {
    return await oauth.authenticateBearer(m[1]);
  } catch (err) {
    if (err instanceof InvalidTokenError) throw unauthorized(`Unauthorized: ${err.reason}`);
    ctx.logger.error({ err: (err as Error).message }, 'bearer token check failed');
    throw serviceUnavailable('token check failed; retry shortly');
  }
}

/** Response headers for an authentication failure: the challenge on 401, when to retry while the token store is down. */
export function authenticationFailureHeaders(err: unknown): Record<string, string> {
  const code = (err as { code?: number }).code;
  if (code === 401) return { 'WWW-Authenticate': 'Bearer realm="kapiserver"' };
  if (code === 503) return { 'Retry-After': String(TOKEN_STORE_RETRY_AFTER_SECONDS) };
  return {};
}
