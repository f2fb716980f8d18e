// Escalation prevention (as Kubernetes' RBAC registry does): a user may only write a role whose rules they hold
// themselves, only bind a role whose rules they hold, at the scope of the object, unless they hold the `escalate`
// (roles) or `bind` (bindings) verb on that resource; and only put a user into a group whose bindings grant nothing
// beyond what they hold. One checker serves every write path: /kapis (filters/authorization.ts, kapis/iam) and
// forwarded /api, /apis writes (proxy/rbac-guard.ts).
import { describeRule, type PolicyRule, parseRoleRef, parseRules, uncoveredRules } from '../../k8s/rbac.ts';
import { forbidden } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import type { RequestInfo, UserInfo } from '../request.ts';
import { type Authorizer, attributesOf, GLOBAL, type Scope, scopeOf } from './authorizer.ts';
import { WORKSPACE_LABEL } from './labels.ts';
import { IAM_GROUP, RBAC_GROUP } from './rbac.ts';
import { aggregatesOf, type RoleKind } from './rbac-listers.ts';
import { describeGrant, type RuleResolver } from './rbac-resolver.ts';

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

/**
 * Where a written role or binding grants, so where its writer must hold what it grants: global ones at the global
 * scope (only global bindings count there), namespaced ones in their namespace, workspace ones in their workspace.
 */
function grantScope(resource: string, namespace: string, workspace: string): Scope {
  switch (resource) {
    case 'globalroles':
    case 'globalrolebindings':
      return GLOBAL;
    case 'roles':
    case 'rolebindings':
      return scopeOf(namespace, '');
    case 'workspaceroles':
    case 'workspacerolebindings':
      return scopeOf('', workspace);
    default:
      return scopeOf('', '');
  }
}

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

/** The checker when escalation checks apply to `user`'s writes: RBAC mode and an authenticated caller. */
export function escalationCheckerFor(
  ctx: ServerContext,
  user: UserInfo | undefined,
): EscalationChecker | undefined {
  return user && ctx.config.current().authorization.mode === 'RBAC' ? ctx.authorizer.escalation : undefined;
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

export class EscalationChecker {
  /** `authorizer` answers whether the writer holds `escalate`/`bind`; `resolver` what they and the object grant. */
  constructor(
    private readonly authorizer: Authorizer,
    private readonly resolver: RuleResolver,
  ) {}

  /** True when the writer of this role or binding request holds `escalate` or `bind` on it, so nothing is checked. */
  async mayGrantAnything(user: UserInfo, info: RequestInfo): Promise<boolean> {
    const verb = key(info) in BINDINGS ? 'bind' : 'escalate';
    const attrs = attributesOf({ ...info, verb, subresource: '', isResourceRequest: true });
    return (await this.authorizer.authorize(user, attrs)).allowed;
  }

  /**
   * Checks the role or binding object (the request body, or the would-be result of a patch) a user writes. Throws a
   * 403 StatusError when it grants more than the user holds at its scope. `obj` is untrusted JSON.
   */
  checkWrite(user: UserInfo, info: RequestInfo, obj: unknown): Promise<void> {
    return this.checkWriteOf(user, info, async () => obj);
  }

  /**
   * As checkWrite, for a caller that has work to do to learn the object (buffer the body, dry-run the write):
   * `objectOf` is called only when the writer lacks `escalate`/`bind`, so who holds them costs nothing more.
   */
  async checkWriteOf(user: UserInfo, info: RequestInfo, objectOf: () => Promise<unknown>): Promise<void> {
    const roleKind = ROLES[key(info)];
    const isBinding = key(info) in BINDINGS;
    if ((!roleKind && !isBinding) || (await this.mayGrantAnything(user, info))) return;
    const obj = await objectOf();
    const o = (obj && typeof obj === 'object' ? obj : {}) as Record<string, unknown>;
    const meta = (o.metadata && typeof o.metadata === 'object' ? o.metadata : {}) as {
      namespace?: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    const namespace = info.namespace || (typeof meta.namespace === 'string' ? meta.namespace : '');
    // A /kapis workspace route stores the object in the workspace of its path, whatever the body's label says.
    const workspace = info.workspace || meta.labels?.[WORKSPACE_LABEL] || '';
    if (roleKind) {
      const aggregated = aggregatesOf({ metadata: { annotations: meta.annotations } });
      const requested = [
        ...parseRules(o.rules),
        ...(aggregated.length ? await this.resolver.rulesOfRoles(roleKind, namespace, aggregated) : []),
      ];
      const held = await this.resolver.rulesFor(user, grantScope(info.resource, namespace, workspace));
      const missing = uncoveredRules(held, requested);
      if (missing.length > 0) refuse(user, info, 'the role grants', missing);
      return;
    }
    const ref = parseRoleRef(o.roleRef);
    if (!ref) return; // invalid binding: the API answers 422 itself
    const requested = await this.resolver.rulesOfRoleRef(ref, namespace);
    if (!requested)
      refuse(user, info, `the ${ref.kind} "${ref.name}" does not exist, so what it grants is unknown`, []);
    const held = await this.resolver.rulesFor(user, grantScope(info.resource, namespace, workspace));
    const missing = uncoveredRules(held, requested);
    if (missing.length > 0) refuse(user, info, `the ${ref.kind} "${ref.name}" grants`, missing);
  }

  /**
   * Putting a user into a group grants them what every binding naming that group grants: the writer must hold all
   * of it at each binding's scope (the same coverage rule as a binding write). Throws a 403 StatusError otherwise.
   */
  async checkGroups(user: UserInfo, info: RequestInfo, groups: readonly string[]): Promise<void> {
    for (const group of groups) {
      for (const grant of await this.resolver.grantsOfGroup(group)) {
        const held = await this.resolver.rulesFor(user, grant.scope);
        const missing = uncoveredRules(held, grant.rules);
        if (missing.length > 0)
          refuse(user, info, `the group "${group}" is granted by ${describeGrant(grant)}`, missing);
      }
    }
  }
}
