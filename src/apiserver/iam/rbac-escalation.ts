// Escalation prevention on role and binding writes (as Kubernetes' RBAC registry does): a user may only write a role
// whose rules they hold themselves, and only bind a role whose rules they hold, at the scope of the object, unless
// they hold the `escalate` (roles) or `bind` (bindings) verb on that resource.
import { describeRule, type PolicyRule, parseRoleRef, parseRules, uncoveredRules } from '../../k8s/rbac.ts';
import { forbidden } from '../../k8s/status.ts';
import type { RequestInfo } from '../filters/requestinfo.ts';
import type { UserInfo } from '../request.ts';
import { aggregatesOf, IAM_GROUP, RBAC_GROUP, type RbacAuthorizer } from './rbac.ts';

type RoleKind = 'Role' | 'ClusterRole' | 'GlobalRole' | 'WorkspaceRole';

/** Resources whose writes are checked, by API group and plural: role kinds and binding kinds. */
const ROLES: Record<string, RoleKind> = {
  [`${RBAC_GROUP}/roles`]: 'Role',
  [`${RBAC_GROUP}/clusterroles`]: 'ClusterRole',
  [`${IAM_GROUP}/globalroles`]: 'GlobalRole',
  [`${IAM_GROUP}/workspaceroles`]: 'WorkspaceRole',
};
const BINDINGS: Record<string, true> = {
  [`${RBAC_GROUP}/rolebindings`]: true,
  [`${RBAC_GROUP}/clusterrolebindings`]: true,
  [`${IAM_GROUP}/globalrolebindings`]: true,
  [`${IAM_GROUP}/workspacerolebindings`]: true,
};
const WRITE_VERBS = new Set(['create', 'update', 'patch']);

/** The checked group for a request: /kapis paths carry the same resources under the iam group. */
function key(info: RequestInfo): string {
  const group = info.isKubernetesRequest ? info.apiGroup : IAM_GROUP;
  return `${group}/${info.resource}`;
}

/** True when the request writes a role or binding object (not a subresource such as status). */
export function isRbacWrite(info: RequestInfo): boolean {
  if (!info.isResourceRequest || info.subresource !== '' || !WRITE_VERBS.has(info.verb)) return false;
  const k = key(info);
  if (!info.isKubernetesRequest && info.apiGroup !== IAM_GROUP) return false;
  return k in ROLES || k in BINDINGS;
}

async function holds(
  authorizer: RbacAuthorizer,
  user: UserInfo,
  info: RequestInfo,
  verb: string,
): Promise<boolean> {
  const d = await authorizer.authorize(user, { ...info, verb, subresource: '', isResourceRequest: true });
  return d.allowed;
}

function refuse(user: UserInfo, info: RequestInfo, what: string, missing: PolicyRule[]): never {
  const shown = missing.slice(0, 5).map(describeRule).join(', ');
  const more = missing.length > 5 ? ` (and ${missing.length - 5} more)` : '';
  throw forbidden(
    `${info.resource}${info.apiGroup ? `.${info.apiGroup}` : ''} "${info.name || '(new)'}" is forbidden: User "${user.name}" ` +
      `is attempting to grant RBAC permissions not currently held: ${what}${shown ? `: ${shown}${more}` : ''}`,
    { name: info.name || undefined, group: info.apiGroup || undefined, kind: info.resource },
  );
}

/**
 * Checks the object (the request body, or the would-be result of a patch) a user writes. Throws a 403 StatusError
 * when it grants more than the user holds at its scope. `obj` is untrusted JSON.
 */
export async function checkRbacWrite(
  authorizer: RbacAuthorizer,
  user: UserInfo,
  info: RequestInfo,
  obj: unknown,
): Promise<void> {
  const o = (obj && typeof obj === 'object' ? obj : {}) as Record<string, unknown>;
  const meta = (o.metadata && typeof o.metadata === 'object' ? o.metadata : {}) as {
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  const namespace = info.namespace || (typeof meta.namespace === 'string' ? meta.namespace : '');
  const workspace = meta.labels?.['kubesphere.io/workspace'] ?? '';
  const k = key(info);
  const roleKind = ROLES[k];
  if (roleKind) {
    if (await holds(authorizer, user, info, 'escalate')) return;
    const aggregated = aggregatesOf({ metadata: { annotations: meta.annotations } });
    const requested = [
      ...parseRules(o.rules),
      ...(aggregated.length ? await authorizer.rulesOfRoles(roleKind, namespace, aggregated) : []),
    ];
    const held = await authorizer.rulesFor(user, roleKind === 'Role' ? namespace : '', workspace);
    const missing = uncoveredRules(held, requested);
    if (missing.length > 0) refuse(user, info, 'the role grants', missing);
    return;
  }
  if (k in BINDINGS) {
    if (await holds(authorizer, user, info, 'bind')) return;
    const ref = parseRoleRef(o.roleRef);
    if (!ref) return; // invalid binding: the API answers 422 itself
    const requested = await authorizer.rulesOfRoleRef(ref, namespace);
    if (!requested)
      refuse(user, info, `the ${ref.kind} "${ref.name}" does not exist, so what it grants is unknown`, []);
    const bindsInNamespace = info.resource === 'rolebindings';
    const held = await authorizer.rulesFor(user, bindsInNamespace ? namespace : '', workspace);
    const missing = uncoveredRules(held, requested);
    if (missing.length > 0) refuse(user, info, `the ${ref.kind} "${ref.name}" grants`, missing);
  }
}

/**
 * Putting a user into a group grants them what every binding naming that group grants: the writer must hold all of
 * it at each binding's scope (the same coverage rule as a binding write). Throws a 403 StatusError otherwise.
 */
export async function checkGroupsGrant(
  authorizer: RbacAuthorizer,
  user: UserInfo,
  info: RequestInfo,
  groups: readonly string[],
): Promise<void> {
  for (const group of groups) {
    for (const grant of await authorizer.grantsOfGroup(group)) {
      const held = await authorizer.rulesFor(user, grant.namespace, grant.workspace);
      const missing = uncoveredRules(held, grant.rules);
      if (missing.length > 0)
        refuse(user, info, `the group "${group}" is granted by ${grant.source}`, missing);
    }
  }
}
