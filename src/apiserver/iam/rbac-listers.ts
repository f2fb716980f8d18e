// How the RBAC authorizer reads roles and bindings (as Kubernetes' RBAC authorizer reads them through listers):
// Kubernetes' Roles, ClusterRoles and their bindings, and KubeSphere's GlobalRoles, WorkspaceRoles and theirs,
// parsed, and the workspace each namespace belongs to. `InformerRbacListers` serves them from the informer cache, with
// bindings indexed by subject and by subject within their place (namespace or workspace), so a decision reads only the
// caller's bindings where it is asked; tests use an in-memory implementation.
import {
  type PolicyRule,
  parseRoleRef,
  parseRules,
  parseSubjects,
  type RoleRef,
  type Subject,
  subjectKey,
} from '../../k8s/rbac.ts';
import type { ClusterCache, Entry, Informer, KubeObject, ResourceRef } from '../cluster/index.ts';
import { WORKSPACE_LABEL } from './labels.ts';
import { AGGREGATION_ANNOTATION, IAM_GROUP, RBAC_GROUP } from './rbac.ts';

export type RoleKind = 'Role' | 'ClusterRole' | 'GlobalRole' | 'WorkspaceRole';
export type BindingKind = 'RoleBinding' | 'ClusterRoleBinding' | 'GlobalRoleBinding' | 'WorkspaceRoleBinding';

export interface Role {
  name: string;
  namespace: string;
  /** The `kubesphere.io/workspace` label ('' when absent). */
  workspace: string;
  rules: PolicyRule[];
  /** Roles named by the `iam.kubesphere.io/aggregation-roles` annotation. */
  aggregates: string[];
}

export interface Binding {
  name: string;
  namespace: string;
  /** The `kubesphere.io/workspace` label ('' when absent). */
  workspace: string;
  roleRef?: RoleRef;
  subjects: Subject[];
}

export interface RbacListers {
  /** A role by kind, namespace ('' for every kind but Role) and name. */
  role(kind: RoleKind, namespace: string, name: string): Role | undefined;
  /**
   * Bindings of a kind with a subject under one of `subjectKeys` (src/k8s/rbac.ts `subjectKey`), each once; with
   * `place`, only those whose place (placeKey) is that namespace or workspace. Callers still match subjects.
   */
  bindingsWithSubject(kind: BindingKind, subjectKeys: readonly string[], place?: string): Iterable<Binding>;
  /** The workspace a namespace belongs to (its `kubesphere.io/workspace` label); '' when unlabelled or absent. */
  workspaceOfNamespace(namespace: string): string;
  /** True once every kind has been loaded. */
  hasSynced(): boolean;
  /** A number that changes whenever a role, a binding or a namespace does (decisions cached under it go stale). */
  revision(): number;
  /** Resolves true once loaded, false after `timeoutMs`. */
  waitForSync(timeoutMs: number): Promise<boolean>;
}

/** Role names in an aggregation annotation; a malformed one names none (KubeSphere ignores it too). */
export function aggregatesOf(obj: KubeObject): string[] {
  const raw = obj.metadata?.annotations?.[AGGREGATION_ANNOTATION];
  if (!raw) return [];
  try {
    const names = JSON.parse(raw) as unknown;
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/** Where a role or binding object lives: its name, namespace and workspace label ('' for each one absent). */
function placeOf(obj: KubeObject): { name: string; namespace: string; workspace: string } {
  return {
    name: obj.metadata?.name ?? '',
    namespace: obj.metadata?.namespace ?? '',
    workspace: obj.metadata?.labels?.[WORKSPACE_LABEL] ?? '',
  };
}

export function parseRole(obj: KubeObject): Role {
  return {
    ...placeOf(obj),
    rules: parseRules(obj.rules),
    aggregates: aggregatesOf(obj),
  };
}

export function parseBinding(obj: KubeObject): Binding {
  return {
    ...placeOf(obj),
    roleRef: parseRoleRef(obj.roleRef),
    subjects: parseSubjects(obj.subjects),
  };
}

/**
 * Index keys of a binding: each subject's key (service accounts default to the binding's namespace) and, when the
 * binding has a place (a RoleBinding's namespace, a WorkspaceRoleBinding's workspace), that key within it.
 */
export function subjectKeysOfBinding(obj: KubeObject): string[] {
  const { namespace, workspace } = placeOf(obj);
  const place = namespace || workspace;
  const keys = parseSubjects(obj.subjects)
    .map((s) => subjectKey(s, namespace))
    .filter((x): x is string => x !== undefined);
  return place === '' ? keys : [...keys, ...keys.map((k) => placeKey(place, k))];
}

/** The index key of a subject key within a namespace or workspace. */
export const placeKey = (place: string, subjectKey: string): string => `${place}\0${subjectKey}`;

/** The index keys to look up for `subjectKeys`, within `place` when given. */
export const lookupKeys = (subjectKeys: readonly string[], place?: string): readonly string[] =>
  place === undefined ? subjectKeys : subjectKeys.map((k) => placeKey(place, k));

const ROLE_REFS: Record<RoleKind, ResourceRef> = {
  Role: { group: RBAC_GROUP, version: 'v1', resource: 'roles' },
  ClusterRole: { group: RBAC_GROUP, version: 'v1', resource: 'clusterroles' },
  GlobalRole: { group: IAM_GROUP, version: 'v1alpha2', resource: 'globalroles' },
  WorkspaceRole: { group: IAM_GROUP, version: 'v1alpha2', resource: 'workspaceroles' },
};
const BINDING_REFS: Record<BindingKind, ResourceRef> = {
  RoleBinding: { group: RBAC_GROUP, version: 'v1', resource: 'rolebindings' },
  ClusterRoleBinding: { group: RBAC_GROUP, version: 'v1', resource: 'clusterrolebindings' },
  GlobalRoleBinding: { group: IAM_GROUP, version: 'v1alpha2', resource: 'globalrolebindings' },
  WorkspaceRoleBinding: { group: IAM_GROUP, version: 'v1alpha2', resource: 'workspacerolebindings' },
};

const NAMESPACES: ResourceRef = { group: '', version: 'v1', resource: 'namespaces' };
const SUBJECT_INDEX = 'rbac-subject';

function mapValues<K extends string, A, B>(rec: Record<K, A>, fn: (a: A) => B): Record<K, B> {
  return Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, fn(v as A)])) as Record<K, B>;
}

/** Listers over the informer cache; creating them starts the informers (so the first request does not wait). */
export class InformerRbacListers implements RbacListers {
  private readonly roles: Record<RoleKind, Informer>;
  private readonly bindings: Record<BindingKind, Informer>;
  private readonly namespaces: Informer;
  // Entries are immutable (an update replaces them), so a parse is kept as long as its entry.
  private readonly parsedRoles = new WeakMap<Entry, Role>();
  private readonly parsedBindings = new WeakMap<Entry, Binding>();
  private changes = 0;

  constructor(cache: ClusterCache) {
    this.roles = mapValues(ROLE_REFS, (ref) => cache.informer(ref));
    this.bindings = mapValues(BINDING_REFS, (ref) => {
      const informer = cache.informer(ref);
      informer.addIndex(SUBJECT_INDEX, subjectKeysOfBinding);
      return informer;
    });
    this.namespaces = cache.informer(NAMESPACES);
    const changed = () => {
      this.changes++;
    };
    for (const informer of this.informers()) {
      informer.addEventHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
    }
  }

  revision(): number {
    return this.changes;
  }

  role(kind: RoleKind, namespace: string, name: string): Role | undefined {
    const entry = this.roles[kind].get(kind === 'Role' ? namespace : '', name);
    if (!entry) return undefined;
    let role = this.parsedRoles.get(entry);
    if (!role) {
      role = parseRole(entry.object());
      this.parsedRoles.set(entry, role);
    }
    return role;
  }

  *bindingsWithSubject(
    kind: BindingKind,
    subjectKeys: readonly string[],
    place?: string,
  ): Generator<Binding> {
    const informer = this.bindings[kind];
    const seen = new Set<string>();
    for (const subject of lookupKeys(subjectKeys, place)) {
      for (const key of informer.keysByIndex(SUBJECT_INDEX, subject)) {
        if (seen.has(key)) continue;
        seen.add(key);
        const entry = informer.getByKey(key);
        if (entry) yield this.binding(entry);
      }
    }
  }

  workspaceOfNamespace(namespace: string): string {
    return this.namespaces.get('', namespace)?.labels?.[WORKSPACE_LABEL] ?? '';
  }

  private binding(entry: Entry): Binding {
    let binding = this.parsedBindings.get(entry);
    if (!binding) {
      binding = parseBinding(entry.object());
      this.parsedBindings.set(entry, binding);
    }
    return binding;
  }

  private informers(): Informer[] {
    return [...Object.values(this.roles), ...Object.values(this.bindings), this.namespaces];
  }

  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  async waitForSync(timeoutMs: number): Promise<boolean> {
    const results = await Promise.all(this.informers().map((i) => i.waitForSync(timeoutMs)));
    return results.every(Boolean);
  }
}
