// What a caller may see of the tenants (reference 2.5, stance 3 of section 10): "see everything" is a rule the
// caller's own bindings grant at the scope asked (never a carve-out that lets every user reach a filtered list),
// otherwise only what the caller is a member of: workspaces through WorkspaceRoleBindings, namespaces through
// RoleBindings, naming the user or one of their groups. Reads the informer cache through indexes by subject.
import { type PolicyRule, rulesAllow, subjectKeysOf, subjectMatches } from '../../../k8s/rbac.ts';
import type { Informer } from '../../cluster/index.ts';
import type { ServerContext } from '../../context.ts';
import { type Scope, scopeOf } from '../../iam/authorizer.ts';
import { type Binding, parseBinding, subjectKeysOfBinding } from '../../iam/rbac-listers.ts';
import type { UserInfo } from '../../request.ts';
import { type IamDeps, resourceDef } from '../iam/common.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { WORKSPACE_LABEL } from './common.ts';

const SUBJECT_INDEX = 'tenant:subject';
const WORKSPACE_ROLE_BINDINGS = resourceDef('iam.kubesphere.io', 'v1alpha2', 'workspacerolebindings', false);
const ROLE_BINDINGS = resourceDef('rbac.authorization.k8s.io', 'v1', 'rolebindings', true);

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
  /** Namespaces in which a RoleBinding names the user or one of their groups. */
  namespacesOf(user: UserInfo): Promise<Set<string>>;
}

export const GLOBAL: Scope = { kind: 'global', name: '' };
export const workspaceScope = (workspace: string): Scope => scopeOf('', workspace);

export function tenantAccess(ctx: ServerContext, synced: IamDeps['synced']): TenantAccess {
  for (const def of [WORKSPACE_ROLE_BINDINGS, ROLE_BINDINGS]) {
    ctx.cache.informer(def.ref).addIndex(SUBJECT_INDEX, subjectKeysOfBinding);
  }

  /** The `where` of every binding of `def` whose subjects name the user. */
  async function placesOf(def: ResourceDef, user: UserInfo, where: (b: Binding) => string) {
    const inf = await synced(def);
    const out = new Set<string>();
    for (const key of subjectKeysOf(user)) {
      for (const k of inf.keysByIndex(SUBJECT_INDEX, key)) {
        const obj = inf.getByKey(k)?.object();
        if (!obj) continue;
        const b = parseBinding(obj);
        const place = where(b);
        if (place !== '' && b.subjects.some((s) => subjectMatches(s, user, b.namespace))) out.add(place);
      }
    }
    return out;
  }

  return {
    async seesAll(user, what, scope) {
      if (ctx.config.authorization.mode !== 'RBAC') return true;
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
      return ctx.authorizer.rules.visitRulesFor(user, scope, (_source, rules: PolicyRule[]) =>
        rulesAllow(attrs, rules),
      );
    },
    workspacesOf: (user) => placesOf(WORKSPACE_ROLE_BINDINGS, user, (b) => b.workspace),
    namespacesOf: (user) => placesOf(ROLE_BINDINGS, user, (b) => b.namespace),
  };
}

/** Namespaces of `workspace` the user may see: all of them with the right, else those they are bound in. */
export async function visibleNamespaces(
  access: TenantAccess,
  user: UserInfo,
  workspace: string,
  namespaces: Informer,
): Promise<Set<string> | undefined> {
  if (await access.seesAll(user, { apiGroup: '', resource: 'namespaces' }, workspaceScope(workspace)))
    return undefined;
  const mine = await access.namespacesOf(user);
  return new Set([...mine].filter((ns) => namespaces.get('', ns)?.labels?.[WORKSPACE_LABEL] === workspace));
}
