// Which rules apply to a user at a scope (as Kubernetes' DefaultRuleResolver; KubeSphere's visitRulesFor, reference
// 3.5, with the stances of its section 10), from roles and bindings read through RbacListers:
//   1. GlobalRoleBindings -> GlobalRoles (platform roles apply at every scope; at the global scope nothing else does);
//   2. ClusterRoleBindings -> ClusterRoles (every scope but global);
//   3. in a workspace, or a namespace labelled with one: that workspace's WorkspaceRoleBindings -> WorkspaceRoles
//      labelled with the same workspace (an unlabelled namespace has none; a role of another workspace grants nothing);
//   4. in a namespace: its RoleBindings -> Roles / ClusterRoles.
// Group subjects match the user's groups. Bindings are read through the listers' index by subject (within the
// namespace or workspace asked), so a decision reads the user's bindings there, never all of them.
// A role's rules include those of the roles its aggregation annotation names (one level, as KubeSphere).
// Also the memberships the tenant API filters by: the workspaces and namespaces whose bindings name the user.
import { type PolicyRule, type RoleRef, subjectKeysOf, subjectMatches } from '../../k8s/rbac.ts';
import { serviceUnavailable } from '../../k8s/status.ts';
import type { UserInfo } from '../request.ts';
import { GLOBAL, type Scope, scopeOf } from './authorizer.ts';
import type { Binding, BindingKind, RbacListers, RoleKind } from './rbac-listers.ts';
import { SELF_SERVICE_RULES } from './rbac-policy.ts';

const SYNC_WAIT_MS = 10_000;
const ROLE_KINDS = new Set<string>(['Role', 'ClusterRole', 'GlobalRole', 'WorkspaceRole']);

const isRoleKind = (kind: string): kind is RoleKind => ROLE_KINDS.has(kind);
/** Where cluster bindings grant: every scope but global, so a writer is judged on what they hold cluster-wide. */
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

  /** Changes whenever a role, a binding or a namespace does: what a cached decision must be checked against. */
  revision(): number {
    return this.listers.revision();
  }

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

  /** Workspaces with a WorkspaceRoleBinding naming the user or one of their groups (the user's memberships). */
  async workspacesOf(user: UserInfo): Promise<Set<string>> {
    await this.synced();
    const out = new Set<string>();
    for (const b of this.bindingsOf('WorkspaceRoleBinding', subjectsOfUser(user))) {
      if (b.workspace !== '') out.add(b.workspace);
    }
    return out;
  }

  /** True when a WorkspaceRoleBinding of `workspace` names the user or one of their groups. */
  async isWorkspaceMember(user: UserInfo, workspace: string): Promise<boolean> {
    await this.synced();
    if (workspace === '') return false;
    return !this.bindingsOf('WorkspaceRoleBinding', subjectsOfUser(user), workspace).next().done;
  }

  /**
   * Namespaces with a RoleBinding naming the user or one of their groups; with `workspace`, only the namespaces
   * labelled with it.
   */
  async namespacesOf(user: UserInfo, workspace?: string): Promise<Set<string>> {
    await this.synced();
    const out = new Set<string>();
    for (const b of this.bindingsOf('RoleBinding', subjectsOfUser(user))) {
      if (workspace === undefined || this.listers.workspaceOfNamespace(b.namespace) === workspace)
        out.add(b.namespace);
    }
    return out;
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
      yield { kind: 'GlobalRoleBinding', binding: b, role: b.roleRef, scope: GLOBAL, rules };
    }
    if (scope?.kind === 'global') return;
    for (const b of this.bindingsOf('ClusterRoleBinding', subjects)) {
      if (b.roleRef?.kind !== 'ClusterRole') continue;
      const rules = this.roleRules('ClusterRole', '', b.roleRef.name);
      yield { kind: 'ClusterRoleBinding', binding: b, role: b.roleRef, scope: CLUSTER_WIDE, rules };
    }
    const workspace = scope && this.workspaceOf(scope);
    if (workspace !== '') {
      for (const b of this.bindingsOf('WorkspaceRoleBinding', subjects, workspace)) {
        if (b.workspace === '' || b.roleRef?.kind !== 'WorkspaceRole') continue;
        // A WorkspaceRole grants only in its own workspace.
        if (this.listers.role('WorkspaceRole', '', b.roleRef.name)?.workspace !== b.workspace) continue;
        const rules = this.roleRules('WorkspaceRole', '', b.roleRef.name);
        const where = scopeOf('', b.workspace);
        yield { kind: 'WorkspaceRoleBinding', binding: b, role: b.roleRef, scope: where, rules };
      }
    }
    if (scope === undefined || scope.kind === 'namespace') {
      for (const b of this.bindingsOf('RoleBinding', subjects, scope?.name)) {
        const ref = b.roleRef;
        if (!ref) continue;
        const rules =
          ref.kind === 'ClusterRole' || ref.kind === 'Role'
            ? this.roleRules(ref.kind, b.namespace, ref.name)
            : [];
        yield { kind: 'RoleBinding', binding: b, role: ref, scope: scopeOf(b.namespace, ''), rules };
      }
    }
  }

  /**
   * The workspace whose bindings apply at a scope: a namespace's is its label, never a workspace the request's path
   * names ('' for none: an unlabelled namespace gets no workspace's bindings).
   */
  private workspaceOf(scope: Scope): string {
    if (scope.kind === 'workspace') return scope.name;
    return scope.kind === 'namespace' ? this.listers.workspaceOfNamespace(scope.name) : '';
  }

  /** Bindings of a kind that name `subjects`; with `place`, only those in that namespace or workspace. */
  private *bindingsOf(kind: BindingKind, subjects: Subjects, place?: string): Generator<Binding> {
    for (const b of this.listers.bindingsWithSubject(kind, subjects.keys, place)) {
      if (subjects.named(b)) yield b;
    }
  }
}
