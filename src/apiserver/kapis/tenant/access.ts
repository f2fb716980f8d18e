// What a caller may see of the tenants (reference 2.5, stance 3 of section 10): "see everything" is a rule the
// caller's own bindings grant at the scope asked (never a carve-out that lets every user reach a filtered list),
// otherwise only what the caller is a member of: workspaces through WorkspaceRoleBindings, namespaces through
// RoleBindings, naming the user or one of their groups. Memberships come from the authorizer's rule resolver (its
// indexes by subject), the one place that reads bindings.
import { rulesAllow } from '../../../k8s/rbac.ts';
import type { ServerContext } from '../../context.ts';
import { TENANT_GROUP } from '../../crds/definitions.ts';
import { GLOBAL, type Scope, scopeOf } from '../../iam/authorizer.ts';
import type { UserInfo } from '../../request.ts';

export { GLOBAL };

/** One `list` of a resource, as a rule must allow it to see every object of the collection. */
export interface ListOf {
  apiGroup: string;
  resource: string;
}

export interface TenantAccess {
  /** True when the caller's bindings at `scope` allow listing every object of `what`. */
  seesAll(user: UserInfo, what: ListOf, scope: Scope): Promise<boolean>;
  /** Workspaces in which a WorkspaceRoleBinding names the user or one of their groups. */
  workspacesOf(user: UserInfo): Promise<Set<string>>;
  /** Namespaces (of `workspace` when given) in which a RoleBinding names the user or one of their groups. */
  namespacesOf(user: UserInfo, workspace?: string): Promise<Set<string>>;
}

const ALL_WORKSPACES: ListOf = { apiGroup: TENANT_GROUP, resource: 'workspaces' };

export const workspaceScope = (workspace: string): Scope => scopeOf('', workspace);

export function tenantAccess(ctx: ServerContext): TenantAccess {
  const resolver = ctx.authorizer.rules;
  return {
    async seesAll(user, what, scope) {
      if (ctx.config.current().authorization.mode !== 'RBAC') return true;
      const attrs = {
        isResourceRequest: true,
        verb: 'list',
        apiGroup: what.apiGroup,
        resource: what.resource,
        subresource: '',
        name: '',
        namespace: '',
        path: '',
      };
      return resolver.visitRulesFor(user, scope, (_source, rules) => rulesAllow(attrs, rules));
    },
    workspacesOf: (user) => resolver.workspacesOf(user),
    namespacesOf: (user, workspace) => resolver.namespacesOf(user, workspace),
  };
}

/** The workspaces the user may see: all of them with the right to list workspaces, else those they are a member of. */
export async function visibleWorkspaces(
  access: TenantAccess,
  user: UserInfo,
): Promise<Set<string> | undefined> {
  if (await access.seesAll(user, ALL_WORKSPACES, GLOBAL)) return undefined;
  return access.workspacesOf(user);
}

/** Namespaces of `workspace` the user may see: all of them with the right, else those they are bound in. */
export async function visibleNamespaces(
  access: TenantAccess,
  user: UserInfo,
  workspace: string,
): Promise<Set<string> | undefined> {
  if (await access.seesAll(user, { apiGroup: '', resource: 'namespaces' }, workspaceScope(workspace)))
    return undefined;
  return access.namespacesOf(user, workspace);
}
