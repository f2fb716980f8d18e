// The RBAC authorizer: decides whether a user may do what a RequestInfo describes, from the informer cache of
// Kubernetes RBAC objects (ClusterRoles, ClusterRoleBindings, Roles, RoleBindings) and KubeSphere's GlobalRoles,
// GlobalRoleBindings, WorkspaceRoles and WorkspaceRoleBindings, including the `iam.kubesphere.io/aggregation-roles`
// annotation. Rule matching itself is the pure src/k8s/rbac.ts.
//
// Order of evaluation (first allow wins; RBAC never denies explicitly):
//   1. KubeSphere's path allow-list and the rules every authenticated user has (discovery, self-reviews, own user);
//   2. GlobalRoleBindings -> GlobalRoles (platform roles apply at every scope);
//   3. ClusterRoleBindings -> ClusterRoles (every scope);
//   4. workspace-scoped requests: WorkspaceRoleBindings of that workspace -> WorkspaceRoles;
//   5. namespaced requests: RoleBindings in that namespace -> Roles / ClusterRoles. Never for cluster-scoped resources.
import type { Logger } from 'pino';
import {
  type PolicyRule,
  parseRoleRef,
  parseRules,
  parseSubjects,
  type RbacAttributes,
  type RoleRef,
  rulesAllow,
  type Subject,
  subjectKey,
  subjectKeysOf,
  subjectMatches,
} from '../../k8s/rbac.ts';
import { serviceUnavailable } from '../../k8s/status.ts';
import type { ClusterCache, Entry, Informer, KubeObject, ResourceRef } from '../cluster/cache.ts';
import { isClusterScopedResource, type RequestInfo } from '../filters/requestinfo.ts';
import type { UserInfo } from '../request.ts';
import { isAllowListedPath, SELF_SERVICE_RULES } from './rbac-policy.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const IAM_GROUP = 'iam.kubesphere.io';
export const AGGREGATION_ANNOTATION = 'iam.kubesphere.io/aggregation-roles';
export const WORKSPACE_LABEL = 'kubesphere.io/workspace';

export type AuthorizationMode = 'RBAC' | 'AlwaysAllow' | 'AlwaysDeny';

export interface AuthorizationDecision {
  allowed: boolean;
  /** Why: which binding allowed it, or why nothing did (safe to show the caller). */
  reason: string;
}

const REFS = {
  clusterRoles: { group: RBAC_GROUP, version: 'v1', resource: 'clusterroles' },
  clusterRoleBindings: { group: RBAC_GROUP, version: 'v1', resource: 'clusterrolebindings' },
  roles: { group: RBAC_GROUP, version: 'v1', resource: 'roles' },
  roleBindings: { group: RBAC_GROUP, version: 'v1', resource: 'rolebindings' },
  globalRoles: { group: IAM_GROUP, version: 'v1alpha2', resource: 'globalroles' },
  globalRoleBindings: { group: IAM_GROUP, version: 'v1alpha2', resource: 'globalrolebindings' },
  workspaceRoles: { group: IAM_GROUP, version: 'v1alpha2', resource: 'workspaceroles' },
  workspaceRoleBindings: { group: IAM_GROUP, version: 'v1alpha2', resource: 'workspacerolebindings' },
} satisfies Record<string, ResourceRef>;

const SUBJECT_INDEX = 'rbac-subject';
const SYNC_WAIT_MS = 10_000;

/** Rules that a binding naming a group grants its members, and where. */
export interface GroupGrant {
  source: string;
  namespace: string;
  workspace: string;
  rules: PolicyRule[];
}

interface ParsedRole {
  rules: PolicyRule[];
  aggregates: string[];
}
interface ParsedBinding {
  name: string;
  namespace: string;
  roleRef?: RoleRef;
  subjects: Subject[];
}

function aggregatesOf(obj: KubeObject): string[] {
  const raw = obj.metadata?.annotations?.[AGGREGATION_ANNOTATION];
  if (!raw) return [];
  try {
    const names = JSON.parse(raw) as unknown;
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return []; // KubeSphere ignores a malformed annotation too
  }
}

/** Request attributes for rule matching; exec/attach/portforward need `create` whatever the method (as Kubernetes). */
export function attributesOf(info: RequestInfo): RbacAttributes {
  let verb = info.verb;
  if (
    info.isResourceRequest &&
    ['exec', 'attach', 'portforward'].includes(info.subresource) &&
    verb === 'get'
  ) {
    verb = 'create';
  }
  return {
    isResourceRequest: info.isResourceRequest,
    verb,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    namespace: info.namespace,
    path: info.path,
  };
}

export class RbacAuthorizer {
  private readonly roleMemo = new WeakMap<Entry, ParsedRole>();
  private readonly bindingMemo = new WeakMap<Entry, ParsedBinding>();
  private inf?: Record<keyof typeof REFS, Informer>;

  constructor(
    private readonly cache: ClusterCache,
    private readonly mode: () => AuthorizationMode,
    private readonly logger?: Logger,
  ) {}

  /** Starts the informers (idempotent). Called at start-up so the first request does not wait for a list. */
  start(): void {
    if (this.inf) return;
    const inf = {} as Record<keyof typeof REFS, Informer>;
    for (const [k, ref] of Object.entries(REFS) as [keyof typeof REFS, ResourceRef][]) {
      inf[k] = this.cache.informer(ref);
    }
    for (const k of [
      'clusterRoleBindings',
      'roleBindings',
      'globalRoleBindings',
      'workspaceRoleBindings',
    ] as const) {
      inf[k].addIndex(SUBJECT_INDEX, (obj) => {
        const ns = obj.metadata?.namespace ?? '';
        return parseSubjects(obj.subjects)
          .map((s) => subjectKey(s, ns))
          .filter((x): x is string => x !== undefined);
      });
    }
    this.inf = inf;
  }

  hasGlobalRole(name: string): boolean {
    return this.inf?.globalRoles.get('', name) !== undefined;
  }

  synced(): boolean {
    if (!this.inf) return false;
    return Object.values(this.inf).every((i) => i.hasSynced());
  }

  private async informers(): Promise<Record<keyof typeof REFS, Informer>> {
    this.start();
    const inf = this.inf!;
    if (!this.synced()) {
      const ok = await Promise.all(Object.values(inf).map((i) => i.waitForSync(SYNC_WAIT_MS)));
      if (!ok.every(Boolean)) throw serviceUnavailable('authorization data is still loading; retry shortly');
    }
    return inf;
  }

  private role(entry: Entry): ParsedRole {
    let r = this.roleMemo.get(entry);
    if (!r) {
      const obj = entry.object();
      r = { rules: parseRules(obj.rules), aggregates: aggregatesOf(obj) };
      this.roleMemo.set(entry, r);
    }
    return r;
  }

  private binding(entry: Entry): ParsedBinding {
    let b = this.bindingMemo.get(entry);
    if (!b) {
      const obj = entry.object();
      b = {
        name: entry.name,
        namespace: entry.namespace,
        roleRef: parseRoleRef(obj.roleRef),
        subjects: parseSubjects(obj.subjects),
      };
      this.bindingMemo.set(entry, b);
    }
    return b;
  }

  /** A role's rules plus those of the roles its aggregation annotation names (one level, as KubeSphere). */
  private roleRules(informer: Informer, namespace: string, name: string): PolicyRule[] {
    const entry = informer.get(namespace, name);
    if (!entry) return [];
    const role = this.role(entry);
    if (role.aggregates.length === 0) return role.rules;
    const rules = [...role.rules];
    for (const n of role.aggregates) {
      const e = informer.get(namespace, n);
      if (e) rules.push(...this.role(e).rules);
    }
    return rules;
  }

  /** Bindings in `informer` whose subjects include the user (optionally only in one namespace). */
  private *bindingsFor(informer: Informer, user: UserInfo, namespace?: string): Generator<ParsedBinding> {
    const seen = new Set<string>();
    for (const key of subjectKeysOf(user)) {
      for (const k of informer.keysByIndex(SUBJECT_INDEX, key)) {
        if (seen.has(k)) continue;
        seen.add(k);
        const entry = informer.getByKey(k);
        if (!entry) continue;
        if (namespace !== undefined && entry.namespace !== namespace) continue;
        const b = this.binding(entry);
        if (b.subjects.some((s) => subjectMatches(s, user, b.namespace))) yield b;
      }
    }
  }

  /**
   * Visits every (source, rules) pair that applies to the user at the given scope; stops when `visit` returns true.
   * Exposed for escalation checks and self rules reviews through `rulesFor`.
   */
  private visit(
    inf: Record<keyof typeof REFS, Informer>,
    user: UserInfo,
    scope: { namespace: string; workspace: string; clusterScopedResource: boolean },
    visit: (source: string, rules: PolicyRule[]) => boolean,
  ): boolean {
    for (const b of this.bindingsFor(inf.globalRoleBindings, user)) {
      if (b.roleRef?.kind !== 'GlobalRole') continue;
      const rules = this.roleRules(inf.globalRoles, '', b.roleRef.name);
      if (visit(`GlobalRoleBinding "${b.name}" of GlobalRole "${b.roleRef.name}"`, rules)) return true;
    }
    for (const b of this.bindingsFor(inf.clusterRoleBindings, user)) {
      if (b.roleRef?.kind !== 'ClusterRole') continue;
      const rules = this.roleRules(inf.clusterRoles, '', b.roleRef.name);
      if (visit(`ClusterRoleBinding "${b.name}" of ClusterRole "${b.roleRef.name}"`, rules)) return true;
    }
    if (scope.workspace !== '' && !scope.clusterScopedResource) {
      for (const b of this.bindingsFor(inf.workspaceRoleBindings, user)) {
        const entry = inf.workspaceRoleBindings.get('', b.name);
        if (entry?.labels?.[WORKSPACE_LABEL] !== scope.workspace || b.roleRef?.kind !== 'WorkspaceRole')
          continue;
        const role = inf.workspaceRoles.get('', b.roleRef.name);
        if (role?.labels?.[WORKSPACE_LABEL] !== scope.workspace) continue;
        const rules = this.roleRules(inf.workspaceRoles, '', b.roleRef.name);
        if (visit(`WorkspaceRoleBinding "${b.name}" of WorkspaceRole "${b.roleRef.name}"`, rules))
          return true;
      }
    }
    if (scope.namespace !== '' && !scope.clusterScopedResource) {
      for (const b of this.bindingsFor(inf.roleBindings, user, scope.namespace)) {
        const ref = b.roleRef;
        if (!ref) continue;
        const rules =
          ref.kind === 'ClusterRole'
            ? this.roleRules(inf.clusterRoles, '', ref.name)
            : ref.kind === 'Role'
              ? this.roleRules(inf.roles, scope.namespace, ref.name)
              : [];
        const src = `RoleBinding "${b.name}" in namespace "${scope.namespace}" of ${ref.kind} "${ref.name}"`;
        if (visit(src, rules)) return true;
      }
    }
    return false;
  }

  /** The decision for one request. Throws a 503 StatusError while the RBAC cache has not loaded yet. */
  async authorize(user: UserInfo, info: RequestInfo): Promise<AuthorizationDecision> {
    const mode = this.mode();
    if (mode === 'AlwaysAllow') return { allowed: true, reason: 'authorization mode AlwaysAllow' };
    if (mode === 'AlwaysDeny') return { allowed: false, reason: 'authorization mode AlwaysDeny' };
    if (isAllowListedPath(info.path)) return { allowed: true, reason: 'path needs no permission' };
    const attrs = attributesOf(info);
    if (rulesAllow(attrs, SELF_SERVICE_RULES.common))
      return { allowed: true, reason: 'allowed to every user' };
    if (
      attrs.isResourceRequest &&
      attrs.resource === 'users' &&
      attrs.name === user.name &&
      rulesAllow({ ...attrs, name: '' }, SELF_SERVICE_RULES.ownUser)
    ) {
      return { allowed: true, reason: 'own user' };
    }
    const inf = await this.informers();
    let reason = '';
    const allowed = this.visit(inf, user, scopeOf(info), (source, rules) => {
      if (!rulesAllow(attrs, rules)) return false;
      reason = `RBAC: allowed by ${source}`;
      return true;
    });
    return allowed ? { allowed, reason } : { allowed: false, reason: '' };
  }

  /**
   * Every rule the user holds at a scope (global + cluster + workspace + namespace). Used to check that a role or
   * binding written by the user grants nothing beyond this, and for SelfSubjectRulesReview.
   */
  async rulesFor(user: UserInfo, namespace: string, workspace = ''): Promise<PolicyRule[]> {
    const inf = await this.informers();
    const out: PolicyRule[] = [...SELF_SERVICE_RULES.common];
    this.visit(inf, user, { namespace, workspace, clusterScopedResource: false }, (_s, rules) => {
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
    const inf = await this.informers();
    const key = `Group:${group}`;
    const out: GroupGrant[] = [];
    const each = (informer: Informer, fn: (b: ParsedBinding, entry: Entry) => void) => {
      for (const k of informer.keysByIndex(SUBJECT_INDEX, key)) {
        const entry = informer.getByKey(k);
        if (entry) fn(this.binding(entry), entry);
      }
    };
    const grant = (source: string, namespace: string, workspace: string, rules: PolicyRule[]) => {
      if (rules.length > 0) out.push({ source, namespace, workspace, rules });
    };
    each(inf.globalRoleBindings, (b) => {
      if (b.roleRef?.kind === 'GlobalRole')
        grant(`GlobalRoleBinding "${b.name}"`, '', '', this.roleRules(inf.globalRoles, '', b.roleRef.name));
    });
    each(inf.clusterRoleBindings, (b) => {
      if (b.roleRef?.kind === 'ClusterRole')
        grant(`ClusterRoleBinding "${b.name}"`, '', '', this.roleRules(inf.clusterRoles, '', b.roleRef.name));
    });
    each(inf.workspaceRoleBindings, (b, entry) => {
      const workspace = entry.labels?.[WORKSPACE_LABEL];
      if (b.roleRef?.kind === 'WorkspaceRole' && workspace) {
        const rules = this.roleRules(inf.workspaceRoles, '', b.roleRef.name);
        grant(`WorkspaceRoleBinding "${b.name}"`, '', workspace, rules);
      }
    });
    each(inf.roleBindings, (b) => {
      const ref = b.roleRef;
      const rules =
        ref?.kind === 'ClusterRole'
          ? this.roleRules(inf.clusterRoles, '', ref.name)
          : ref?.kind === 'Role'
            ? this.roleRules(inf.roles, b.namespace, ref.name)
            : [];
      grant(`RoleBinding "${b.name}" in namespace "${b.namespace}"`, b.namespace, '', rules);
    });
    return out;
  }

  /** Rules a role reference would grant (for binding escalation checks); undefined when the role does not exist. */
  async rulesOfRoleRef(ref: RoleRef, namespace: string): Promise<PolicyRule[] | undefined> {
    const inf = await this.informers();
    const [informer, ns] =
      ref.kind === 'GlobalRole'
        ? [inf.globalRoles, '']
        : ref.kind === 'ClusterRole'
          ? [inf.clusterRoles, '']
          : ref.kind === 'Role'
            ? [inf.roles, namespace]
            : ref.kind === 'WorkspaceRole'
              ? [inf.workspaceRoles, '']
              : [undefined, ''];
    if (!informer?.get(ns, ref.name)) return undefined;
    return this.roleRules(informer, ns, ref.name);
  }

  /** Rules of named roles of a kind (to resolve an aggregation annotation on a role being written). */
  async rulesOfRoles(kind: RoleRef['kind'], namespace: string, names: string[]): Promise<PolicyRule[]> {
    const out: PolicyRule[] = [];
    const inf = await this.informers();
    const informer =
      kind === 'GlobalRole'
        ? inf.globalRoles
        : kind === 'ClusterRole'
          ? inf.clusterRoles
          : kind === 'WorkspaceRole'
            ? inf.workspaceRoles
            : inf.roles;
    for (const n of names) {
      const e = informer.get(kind === 'Role' ? namespace : '', n);
      if (e) out.push(...this.role(e).rules);
    }
    this.logger?.debug({ kind, names: names.length }, 'resolved aggregated roles');
    return out;
  }
}

function scopeOf(info: RequestInfo): {
  namespace: string;
  workspace: string;
  clusterScopedResource: boolean;
} {
  // Non-resource URLs are cluster-wide: only global and cluster bindings grant them.
  const clusterScopedResource = info.isResourceRequest ? isClusterScopedResource(info) : true;
  return { namespace: info.namespace, workspace: info.workspace, clusterScopedResource };
}

export { aggregatesOf };
