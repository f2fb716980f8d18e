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
import type { Scope } from './authorizer.ts';
import type { Binding, BindingKind, RbacListers, RoleKind } from './rbac-listers.ts';
import { SELF_SERVICE_RULES } from './rbac-policy.ts';

const SYNC_WAIT_MS = 10_000;
const ROLE_KINDS = new Set<string>(['Role', 'ClusterRole', 'GlobalRole', 'WorkspaceRole']);

const isRoleKind = (kind: string): kind is RoleKind => ROLE_KINDS.has(kind);

/** Rules that a binding naming a group grants its members, and where. */
export interface GroupGrant {
  source: string;
  namespace: string;
  workspace: string;
  rules: PolicyRule[];
}

/** Visits one (source, rules) pair; returning true stops the walk. */
export type RuleVisitor = (source: string, rules: PolicyRule[]) => boolean;

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
    for (const b of this.bindingsFor('GlobalRoleBinding', user)) {
      if (b.roleRef?.kind !== 'GlobalRole') continue;
      const rules = this.roleRules('GlobalRole', '', b.roleRef.name);
      if (visit(`GlobalRoleBinding "${b.name}" of GlobalRole "${b.roleRef.name}"`, rules)) return true;
    }
    for (const b of this.bindingsFor('ClusterRoleBinding', user)) {
      if (b.roleRef?.kind !== 'ClusterRole') continue;
      const rules = this.roleRules('ClusterRole', '', b.roleRef.name);
      if (visit(`ClusterRoleBinding "${b.name}" of ClusterRole "${b.roleRef.name}"`, rules)) return true;
    }
    const workspace =
      scope.kind === 'workspace' ? scope.name : scope.kind === 'namespace' ? scope.workspace : '';
    if (workspace !== '') {
      for (const b of this.bindingsFor('WorkspaceRoleBinding', user)) {
        if (b.workspace !== workspace || b.roleRef?.kind !== 'WorkspaceRole') continue;
        if (this.listers.role('WorkspaceRole', '', b.roleRef.name)?.workspace !== workspace) continue;
        const rules = this.roleRules('WorkspaceRole', '', b.roleRef.name);
        if (visit(`WorkspaceRoleBinding "${b.name}" of WorkspaceRole "${b.roleRef.name}"`, rules))
          return true;
      }
    }
    if (scope.kind === 'namespace') {
      const namespace = scope.name;
      for (const b of this.bindingsFor('RoleBinding', user)) {
        const ref = b.roleRef;
        if (b.namespace !== namespace || !ref) continue;
        const rules =
          ref.kind === 'ClusterRole' || ref.kind === 'Role'
            ? this.roleRules(ref.kind, namespace, ref.name)
            : [];
        const src = `RoleBinding "${b.name}" in namespace "${namespace}" of ${ref.kind} "${ref.name}"`;
        if (visit(src, rules)) return true;
      }
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
   * What the bindings naming `group` as a subject grant, one entry per binding with its scope (namespace of a
   * RoleBinding, workspace of a WorkspaceRoleBinding, both empty for global and cluster bindings): what a writer
   * must hold before putting a user into that group.
   */
  async grantsOfGroup(group: string): Promise<GroupGrant[]> {
    await this.synced();
    const keys = [`Group:${group}`];
    const out: GroupGrant[] = [];
    const grant = (source: string, namespace: string, workspace: string, rules: PolicyRule[]) => {
      if (rules.length > 0) out.push({ source, namespace, workspace, rules });
    };
    for (const b of this.listers.bindingsWithSubject('GlobalRoleBinding', keys)) {
      if (b.roleRef?.kind === 'GlobalRole')
        grant(`GlobalRoleBinding "${b.name}"`, '', '', this.roleRules('GlobalRole', '', b.roleRef.name));
    }
    for (const b of this.listers.bindingsWithSubject('ClusterRoleBinding', keys)) {
      if (b.roleRef?.kind === 'ClusterRole')
        grant(`ClusterRoleBinding "${b.name}"`, '', '', this.roleRules('ClusterRole', '', b.roleRef.name));
    }
    for (const b of this.listers.bindingsWithSubject('WorkspaceRoleBinding', keys)) {
      if (b.roleRef?.kind === 'WorkspaceRole' && b.workspace) {
        const rules = this.roleRules('WorkspaceRole', '', b.roleRef.name);
        grant(`WorkspaceRoleBinding "${b.name}"`, '', b.workspace, rules);
      }
    }
    for (const b of this.listers.bindingsWithSubject('RoleBinding', keys)) {
      const ref = b.roleRef;
      const rules =
        ref?.kind === 'ClusterRole' || ref?.kind === 'Role'
          ? this.roleRules(ref.kind, b.namespace, ref.name)
          : [];
      grant(`RoleBinding "${b.name}" in namespace "${b.namespace}"`, b.namespace, '', rules);
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

  /** Bindings of a kind whose subjects include the user. */
  private *bindingsFor(kind: BindingKind, user: UserInfo): Generator<Binding> {
    for (const b of this.listers.bindingsWithSubject(kind, subjectKeysOf(user))) {
      if (b.subjects.some((s) => subjectMatches(s, user, b.namespace))) yield b;
    }
  }
}
