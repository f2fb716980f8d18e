// Step 3 of the filter chain: authorization. Every authenticated request (/kapis, /kapi, /api, /apis incl.
// subresources, and non-resource URLs) is checked by `ctx.authorizer` (iam/authorizer.ts, RBAC in iam/rbac.ts); a refusal
// is a 403 Status naming user, verb and resource in Kubernetes' words. Requests on the anonymous allow-list carry no
// user and were already let through by authentication.
//
// The checks are plain functions of (user, requestInfo) so the upgrade handler (exec, attach, port-forward), which
// never reaches fastify's hooks, runs exactly the same code (see proxy/upgrade.ts).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { forbiddenMessage } from '../../k8s/rbac.ts';
import { forbidden, type StatusError } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { attributesOf } from '../iam/authorizer.ts';
import { escalationCheckerFor, isRbacWrite } from '../iam/rbac-escalation.ts';
import type { RequestInfo, UserInfo } from '../request.ts';

/**
 * Throws the StatusError that answers the request (403 refused, 503 not ready); else returns. Non-canonical paths
 * never get here: the chain's first step refuses them (filters/chain.ts).
 */
export async function authorizeRequest(ctx: ServerContext, user: UserInfo, info: RequestInfo): Promise<void> {
  const decision = await ctx.authorizer.authorize(user, info);
  if (decision.allowed) return;
  throw forbiddenError(user, info, decision.reason);
}

export function forbiddenError(user: UserInfo, info: RequestInfo, reason = ''): StatusError {
  const attrs = attributesOf(info);
  return forbidden(
    forbiddenMessage(user.name, attrs, reason),
    info.isResourceRequest
      ? { name: info.name || undefined, group: info.apiGroup || undefined, kind: info.resource }
      : undefined,
  );
}

export function authorizationFilter(ctx: ServerContext) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const user = request.user;
    if (!user) return; // anonymous allow-list
    await authorizeRequest(ctx, user, request.requestInfo);
  };
}

/**
 * preHandler (after body parsing) for writes of roles and bindings through /kapis: refuses objects that grant more
 * than the writer holds. Forwarded /api and /apis writes are checked by the proxy (proxy/rbac-guard.ts).
 */
export function escalationFilter(ctx: ServerContext) {
  // Callback style: almost every request passes synchronously, without a promise.
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const user = request.user;
    const info = request.requestInfo;
    const escalation = escalationCheckerFor(ctx, user);
    if (!user || !escalation || !info || info.isKubernetesRequest || !isRbacWrite(info)) {
      done();
      return;
    }
    escalation.checkWrite(user, info, request.body).then(() => done(), done);
  };
}
