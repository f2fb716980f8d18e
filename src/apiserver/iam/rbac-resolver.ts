// Which rules apply to a user at a scope (as Kubernetes' DefaultRuleResolver), from roles and bindings read through
// RbacListers:
//   1. GlobalRoleBindings -> GlobalRoles (platform roles apply at every scope);
//   2. ClusterRoleBindings -> ClusterRoles (every scope);
//   3. in a workspace (or a namespace within one): that workspace's WorkspaceRoleBindings -> its WorkspaceRoles;
//   4. in a namespace: its RoleBindings -> Roles / ClusterRoles.
// A role's rules include those of the roles its aggregation annotation names (one level, as KubeSphere).
import { type PolicyRule, type RoleRef, subjectKeysOf, subjectMatches } from '../../k8s/rbac.ts';
import { serviceUnavailable } from '../../k8s/status.ts';
import type { UserInfo } from '../request.ts';
import { type Scope, scopeOf } from './authorizer.ts';
import type { Binding, BindingKind, RbacListers, RoleKind } from './rbac-listers.ts';
import { SELF_SERVICE_RULES } from './rbac-policy.ts';

const SYNC_WAIT_MS = 10_000;
const ROLE_KINDS = new Set<string>(['Role', 'ClusterRole', 'GlobalRole', 'WorkspaceRole']);

const isRoleKind = (kind: string): kind is RoleKind => ROLE_KINDS.has(kind);
/** Where global and cluster bindings grant: every scope, so a writer is judged on what they hold cluster-wide. */
const CLUSTER_WIDE: Scope = { kind: 'cluster', name: '' };

/** What one binding grants its subjects, and the scope where it grants it. */
export interface Grant {
  kind: BindingKind;
  binding: Binding;
  role: RoleRef;
  scope: Scope;
  rules: PolicyRule[];
}

/** Visits one (source, rules) pair; returning true stops the walk. */
export type RuleVisitor = (source: string, rules: PolicyRule[]) => boolean;

/** Whose bindings a walk reads: the subject index keys to look up, and the test a binding's subjects must pass. */
interface Subjects {
  keys: readonly string[];
  named(b: Binding): boolean;
}

const subjectsOfUser = (user: UserInfo): Subjects => ({
  keys: subjectKeysOf(user),
  named: (b) => b.subjects.some((s) => subjectMatches(s, user, b.namespace)),
});
// The index holds bindings naming the group, so each one found names it.
const subjectsOfGroup = (group: string): Subjects => ({ keys: [`Group:${group}`], named: () => true });

/** `RoleBinding "x" in namespace "y"`, `ClusterRoleBinding "x"`: a binding as messages name it. */
export function describeGrant(g: Grant): string {
  const where = g.kind === 'RoleBinding' ? ` in namespace "${g.binding.namespace}"` : '';
  return `${g.kind} "${g.binding.name}"${where}`;
}

export class RuleResolver {
  constructor(private readonly listers: RbacListers) {}

  /** Resolves once roles and bindings are loaded; a 503 StatusError when they are not after a short wait. */
  async synced(): Promise<void> {
    if (this.listers.hasSynced()) return;
    if (!(await this.listers.waitForSync(SYNC_WAIT_MS)))
      throw serviceUnavailable('authorization data is still loading; retry shortly');
  }

  /** Visits every (source, rules) pair that applies to the user at `scope`; true when `visit` stopped the walk. */
  async visitRulesFor(user: UserInfo, scope: Scope, visit: RuleVisitor): Promise<boolean> {
    await this.synced();
    for (const g of this.grants(subjectsOfUser(user), scope)) {
      if (visit(`${describeGrant(g)} of ${g.role.kind} "${g.role.name}"`, g.rules)) return true;
    }
    return false;
  }

  /** Every rule the user holds at `scope`, those every user holds included (escalation checks, rules reviews). */
  async rulesFor(user: UserInfo, scope: Scope): Promise<PolicyRule[]> {
    const out: PolicyRule[] = [...SELF_SERVICE_RULES.common];
    await this.visitRulesFor(user, scope, (_source, rules) => {
      out.push(...rules);
      return false;
    });
    return out;
  }

  /**
   * What the bindings naming `group` as a subject grant, wherever they grant it, those granting nothing left out:
   * what a writer must hold before putting a user into that group.
   */
  async grantsOfGroup(group: string): Promise<Grant[]> {
    await this.synced();
    return [...this.grants(subjectsOfGroup(group))].filter((g) => g.rules.length > 0);
  }

  /** Rules a role reference would grant (binding escalation checks); undefined when the role does not exist. */
  async rulesOfRoleRef(ref: RoleRef, namespace: string): Promise<PolicyRule[] | undefined> {
    await this.synced();
    if (!isRoleKind(ref.kind) || !this.listers.role(ref.kind, namespace, ref.name)) return undefined;
    return this.roleRules(ref.kind, namespace, ref.name);
  }

  /** Own rules of named roles of a kind (to resolve an aggregation annotation on a role being written). */
  async rulesOfRoles(kind: RoleKind, namespace: string, names: readonly string[]): Promise<PolicyRule[]> {
    await this.synced();
    return names.flatMap((name) => this.listers.role(kind, namespace, name)?.rules ?? []);
  }

  /** A role's rules plus those of the roles its aggregation annotation names (one level). */
  private roleRules(kind: RoleKind, namespace: string, name: string): PolicyRule[] {
    const role = this.listers.role(kind, namespace, name);
    if (!role) return [];
    if (role.aggregates.length === 0) return role.rules;
    return [
      ...role.rules,
      ...role.aggregates.flatMap((n) => this.listers.role(kind, namespace, n)?.rules ?? []),
    ];
  }

  /**
   * The one walk over bindings (as Kubernetes' VisitRulesFor): the grants of the bindings naming `subjects` that
   * apply at `scope`, or at any scope when it is absent, in the order of the header comment.
   */
  private *grants(subjects: Subjects, scope?: Scope): Generator<Grant> {
    for (const b of this.bindingsOf('GlobalRoleBinding', subjects)) {
      if (b.roleRef?.kind !== 'GlobalRole') continue;
      const rules = this.roleRules('GlobalRole', '', b.roleRef.name);
      yield { kind: 'GlobalRoleBinding', binding: b, role: b.roleRef, scope: CLUSTER_WIDE, rules };
    }
    for (const b of this.bindingsOf('ClusterRoleBinding', subjects)) {
      if (b.roleRef?.kind !== 'ClusterRole') continue;
      const rules = this.roleRules('ClusterRole', '', b.roleRef.name);
      yield { kind: 'ClusterRoleBinding', binding: b, role: b.roleRef, scope: CLUSTER_WIDE, rules };
    }
    const workspace = scope && workspaceOf(scope);
    if (workspace !== '') {
      for (const b of this.bindingsOf('WorkspaceRoleBinding', subjects)) {
        if (b.workspace === '' || (workspace !== undefined && b.workspace !== workspace)) continue;
        // A WorkspaceRole grants only in its own workspace.
        if (b.roleRef?.kind !== 'WorkspaceRole') continue;
        if (this.listers.role('WorkspaceRole', '', b.roleRef.name)?.workspace !== b.workspace) continue;
        const rules = this.roleRules('WorkspaceRole', '', b.roleRef.name);
        const where = scopeOf('', b.workspace);
        yield { kind: 'WorkspaceRoleBinding', binding: b, role: b.roleRef, scope: where, rules };
      }
    }
    if (scope === undefined || scope.kind === 'namespace') {
      for (const b of this.bindingsOf('RoleBinding', subjects)) {
        const ref = b.roleRef;
        if (!ref || (scope !== undefined && b.namespace !== scope.name)) continue;
        const rules =
          ref.kind === 'ClusterRole' || ref.kind === 'Role'
            ? this.roleRules(ref.kind, b.namespace, ref.name)
            : [];
        yield { kind: 'RoleBinding', binding: b, role: ref, scope: scopeOf(b.namespace, ''), rules };
      }
    }
  }

  /** Bindings of a kind that name `subjects`. */
  private *bindingsOf(kind: BindingKind, subjects: Subjects): Generator<Binding> {
    for (const b of this.listers.bindingsWithSubject(kind, subjects.keys)) {
      if (subjects.named(b)) yield b;
    }
  }
}

/** The workspace whose bindings apply at a scope ('' for none). */
function workspaceOf(scope: Scope): string {
  if (scope.kind === 'workspace') return scope.name;
  return scope.kind === 'namespace' ? scope.workspace : '';
}
