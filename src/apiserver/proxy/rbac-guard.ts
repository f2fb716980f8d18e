// Escalation checks for role, binding and user writes forwarded to the orchestrator (rbac.authorization.k8s.io roles,
// clusterroles, rolebindings, clusterrolebindings; iam.kubesphere.io globalroles, workspaceroles and their bindings).
// The orchestrator cannot check them itself: it sees kapiserver's credentials, not the user's. Users holding
// `escalate`/`bind` on the resource pass untouched (and unbuffered). Otherwise the body (any encoding: JSON, YAML,
// protobuf, or a patch) is buffered, the orchestrator is asked for the resulting object with a dry run, and that
// object is checked against the rules the user holds; the real request is then sent with the buffered body. User
// writes are always dry-run the same way: the resulting spec.groups may name no `system:` group and may add a group
// only when the writer holds what that group's bindings grant (iam/user-groups.ts).
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.ts';
import { escalationCheckerFor, isRbacWrite } from '../iam/rbac-escalation.ts';
import { checkUserGroupsWrite } from '../iam/user-groups.ts';
import type { RequestInfo } from '../request.ts';
import { bufferBody, type GuardedBody, WRITE_VERBS } from './body.ts';
import { isUserRequest, withStoredPassword } from './user-filter.ts';
import { dryRun, rec, storedObject } from './write-preview.ts';

/** Writes of iam.kubesphere.io users (any subresource): their groups are a privilege (iam/user-groups.ts). */
function isUserWrite(info: RequestInfo): boolean {
  return isUserRequest(info) && WRITE_VERBS.has(info.verb);
}

/** Whether the request is a write that guardRbacWrite has to look at (cheap, synchronous). */
export function mayNeedRbacGuard(ctx: ServerContext, request: FastifyRequest): boolean {
  const info = request.requestInfo;
  return isUserWrite(info) || (escalationCheckerFor(ctx, request.user) !== undefined && isRbacWrite(info));
}

/**
 * Checks a forwarded role, binding or user write; returns the buffered body to send upstream, or undefined when the
 * request goes through untouched. Throws the StatusError to answer when the write is refused.
 */
export async function guardRbacWrite(
  ctx: ServerContext,
  request: FastifyRequest,
): Promise<GuardedBody | undefined> {
  const info = request.requestInfo;
  const user = request.user;
  const escalation = escalationCheckerFor(ctx, user);
  if (isUserWrite(info)) {
    // Every user write is looked at: system groups are refused to everyone, whatever they hold.
    const stored = info.verb === 'create' ? undefined : await storedSpec(ctx, info);
    // Readers never see the stored password (user-filter.ts): an update of what they read keeps it.
    const guarded =
      info.verb === 'update'
        ? withStoredPassword(await bufferBody(request), stored)
        : await bufferBody(request);
    const result = rec(await dryRun(ctx, request, guarded));
    await checkUserGroupsWrite(escalation, user ?? { name: '', groups: [] }, info, {
      name: info.name || String(rec(result.metadata).name ?? ''),
      groups: rec(result.spec).groups,
      previous: stored?.groups,
    });
    return guarded;
  }
  if (!user || !escalation || !isRbacWrite(info)) return undefined;
  // A writer holding escalate/bind is not checked: its body is neither buffered nor dry-run.
  let guarded: GuardedBody | undefined;
  await escalation.checkWriteOf(user, info, async () => {
    guarded = await bufferBody(request);
    return dryRun(ctx, request, guarded);
  });
  return guarded;
}

/** spec of the stored user the request writes (undefined when there is none yet: an apply may create it). */
async function storedSpec(
  ctx: ServerContext,
  info: RequestInfo,
): Promise<Record<string, unknown> | undefined> {
  const stored = await storedObject(
    ctx,
    `/apis/${info.apiGroup}/${info.apiVersion}/users/${encodeURIComponent(info.name)}`,
  );
  return stored && rec(stored.spec);
}
