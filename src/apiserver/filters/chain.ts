// The filter chain up to dispatch (docs/architecture.md, "The request chain"), as one function: request info ->
// decodable path -> authentication -> canonical path -> impersonation -> authorization. fastify's onRequest hook (server.ts) and the upgrade handler
// (proxy/upgrade.ts, which Node serves outside fastify) both run exactly this.
import type { IncomingMessage } from 'node:http';
import { checkCanonicalPath, checkDecodablePath } from '../canonical-path.ts';
import type { ServerContext } from '../context.ts';
import type { RequestInfo, UserInfo } from '../request.ts';
import { authenticateHeaders, authenticationFailureHeaders } from './authentication.ts';
import { authorizeRequest } from './authorization.ts';
import { impersonatedUser } from './impersonation.ts';
import { parseRequestInfo } from './requestinfo.ts';

/** What the chain learnt of a request; on a refusal, as far as it got (audit records who was refused). */
export interface ChainResult {
  info: RequestInfo;
  /** The user the request acts as (the impersonated one, if any); undefined on the anonymous paths. */
  user?: UserInfo;
  /** The authenticated caller when the request impersonates someone. */
  impersonator?: UserInfo;
  /** Set when the request is refused: the error to answer with (a StatusError, or unexpected) and its headers. */
  refusal?: { error: unknown; headers: Record<string, string> };
}

/** Checks of a caller's own, at fixed points of the chain; each refuses by throwing. */
export interface ChainChecks {
  /** Once the path is known to be canonical, before authentication. */
  beforeAuthentication?(info: RequestInfo): void;
  /** Once the acting user is known (undefined on the anonymous paths), before authorization. */
  beforeAuthorization?(result: ChainResult): void;
}

export async function runChain(
  ctx: ServerContext,
  req: IncomingMessage,
  checks: ChainChecks = {},
): Promise<ChainResult> {
  const info = parseRequestInfo(req.method ?? 'GET', req.url ?? '/');
  const result: ChainResult = { info };
  const refuse = (error: unknown, headers: Record<string, string> = {}) => {
    result.refusal = { error, headers };
    return result;
  };
  try {
    checkDecodablePath(info.path);
    checks.beforeAuthentication?.(info);
  } catch (err) {
    return refuse(err);
  }
  let caller: UserInfo | undefined;
  try {
    caller = await authenticateHeaders(ctx, info.path, req.headers, req.socket.remoteAddress);
  } catch (err) {
    return refuse(err, authenticationFailureHeaders(err));
  }
  result.user = caller;
  try {
    // After authentication, so a request without a token hears 401 whatever its path (no anonymous policy matches a
    // non-canonical path); before anything acts on the path.
    checkCanonicalPath(info.path);
    // The anonymous paths carry no identity to change and need no permission.
    if (caller) {
      const acting = await impersonatedUser(ctx, caller, req.headers, () => req.headersDistinct);
      if (acting) Object.assign(result, { user: acting, impersonator: caller });
    }
    checks.beforeAuthorization?.(result);
    if (result.user) await authorizeRequest(ctx, result.user, info);
  } catch (err) {
    return refuse(err);
  }
  return result;
}
