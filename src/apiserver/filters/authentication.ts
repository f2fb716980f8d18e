// Authentication filter: every request outside the anonymous allow-list (./anonymous.ts) needs
// `Authorization: Bearer <access token>`: a valid HS256 JWT from /oauth/token, still active in the token store
// (not revoked, not superseded by a single-login policy), of a user that still exists. Anything else is a 401
// Kubernetes Status. The resolved user (name, uid, groups incl. system:authenticated, extra) goes on request.user.
// `authenticateHeaders` is the same check as a plain function, for the upgrade handler (proxy/upgrade.ts), which
// never passes through fastify's hooks.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { serviceUnavailable, unauthorized } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { InvalidTokenError } from '../oauth/jwt.ts';
import type { UserInfo } from '../request.ts';
import { isAnonymousPath } from './anonymous.ts';

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
  if (isAnonymousPath(path) || ctx.authenticationDisabled === true) return undefined;
  const header = headers.authorization;
  if (typeof header !== 'string' || header === '') {
    throw unauthorized('Unauthorized: a bearer token is required (POST /oauth/token to get one)');
  }
  const m = BEARER.exec(header);
  if (!m) throw unauthorized('Unauthorized: the Authorization header must be "Bearer <token>"');
  const oauth = ctx.oauth;
  // Fail closed: no token service (a server built without one, or still starting) means no one is authenticated.
  if (!oauth) throw unauthorized('Unauthorized: token authentication is not configured');
  if (!oauth.isReady()) throw serviceUnavailable('token authentication is starting; retry shortly');
  try {
    return await oauth.authenticateBearer(m[1]);
  } catch (err) {
    if (err instanceof InvalidTokenError) throw unauthorized(`Unauthorized: ${err.reason}`);
    ctx.logger.error({ err: (err as Error).message }, 'bearer token check failed');
    throw serviceUnavailable('token check failed; retry shortly');
  }
}

export function authenticationFilter(ctx: ServerContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const path = request.requestInfo?.path ?? request.url.split('?')[0];
    try {
      request.user = await authenticateHeaders(ctx, path, request.headers);
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 401) reply.header('www-authenticate', 'Bearer realm="kapiserver"');
      // The token store is down: tell clients when to try again.
      if (code === 503) reply.header('retry-after', '5');
      throw err;
    }
  };
}
