// Escalation checks for what the iam routes write on the caller's behalf (roles, the bindings behind members, group
// bindings):
// the object is judged as if the caller wrote it through the Kubernetes API (iam/rbac-escalation.ts), so nobody
// grants through /kapis what they do not hold themselves (unless they hold `escalate`/`bind`); the same for the groups
// given to a user (iam/user-groups.ts).
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from '../../context.ts';
import { type EscalationChecker, escalationCheckerFor } from '../../iam/rbac-escalation.ts';
import { checkUserGroupsWrite, type UserGroupsWrite } from '../../iam/user-groups.ts';
import type { RequestInfo, UserInfo } from '../../request.ts';
import { GROUP, RBAC_GROUP, VERSION } from './common.ts';

export interface WriteTarget {
  group: string;
  /** Plural of the written object's type: globalroles, clusterroles, roles, workspaceroles, *rolebindings, users. */
  resource: string;
  namespace: string;
  /** The workspace of a workspace role or binding ('' otherwise). */
  workspace?: string;
  name: string;
  verb: 'create' | 'update' | 'patch';
}

/** The request as if the caller wrote the target through the Kubernetes API. */
function targetInfo(request: FastifyRequest, target: WriteTarget): RequestInfo {
  return {
    ...request.requestInfo,
    isResourceRequest: true,
    isKubernetesRequest: true,
    apiPrefix: 'apis',
    apiGroup: target.group,
    apiVersion: target.group === RBAC_GROUP ? 'v1' : VERSION,
    verb: target.verb,
    workspace: target.workspace ?? '',
    namespace: target.namespace,
    resource: target.resource,
    subresource: '',
    name: target.name,
    resourceScope: target.namespace ? 'Namespace' : target.workspace ? 'Workspace' : 'Cluster',
  };
}

/** Runs `check` for an authenticated caller in RBAC mode; a no-op otherwise. */
async function judged(
  ctx: ServerContext,
  request: FastifyRequest,
  target: WriteTarget,
  check: (escalation: EscalationChecker, user: UserInfo, info: RequestInfo) => Promise<void>,
): Promise<void> {
  const escalation = escalationCheckerFor(ctx, request.user);
  if (!escalation || !request.user) return;
  await check(escalation, request.user, targetInfo(request, target));
}

/** Throws 403 when `obj` grants more than the caller holds at its scope. A no-op outside RBAC mode. */
export function checkEscalation(
  ctx: ServerContext,
  request: FastifyRequest,
  target: WriteTarget,
  obj: unknown,
): Promise<void> {
  return judged(ctx, request, target, (escalation, user, info) => escalation.checkWrite(user, info, obj));
}

/** 422 for a `system:` group in a user's groups; 403 for an added group granting more than the caller holds. */
export async function checkUserGroups(
  ctx: ServerContext,
  request: FastifyRequest,
  verb: WriteTarget['verb'],
  write: UserGroupsWrite,
): Promise<void> {
  const target: WriteTarget = {
    group: GROUP,
    resource: 'users',
    namespace: '',
    name: write.name,
    verb,
  };
  const writer = request.user ?? { name: '', groups: [] };
  const escalation = escalationCheckerFor(ctx, request.user);
  await checkUserGroupsWrite(escalation, writer, targetInfo(request, target), write);
}

/**
 * 403 when putting `users` into `group` (a GroupBinding) would give them more than the caller holds: what the group's
 * bindings grant, wherever they grant it. A no-op outside RBAC mode.
 */
export function checkGroupJoin(
  ctx: ServerContext,
  request: FastifyRequest,
  target: WriteTarget,
  group: string,
): Promise<void> {
  return judged(ctx, request, target, (escalation, user, info) =>
    escalation.checkGroups(user, info, [group]),
  );
}
