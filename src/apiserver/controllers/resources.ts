// The objects the controllers read and write: their resource refs, REST paths, and the labels and finalizers
// KubeSphere gives them meaning with (reference 2.2; the shared labels are iam/labels.ts's).
import {
  collectionPath,
  isConflict,
  type KubeObject,
  type KubeRest,
  type ObjectMeta,
  type ResourceRef,
} from '../cluster/index.ts';
import {
  type CrdDefinition,
  GLOBAL_ROLE_BINDING_CRD,
  GROUP_BINDING_CRD,
  GROUP_CRD,
  IAM_GROUP,
  LOGIN_RECORD_CRD,
  ROLE_BASE_CRD,
  TENANT_GROUP,
  WORKSPACE_CRD,
  WORKSPACE_ROLE_BINDING_CRD,
  WORKSPACE_ROLE_CRD,
  WORKSPACE_TEMPLATE_CRD,
} from '../crds/index.ts';

const refOf = (crd: CrdDefinition): ResourceRef => ({
  group: crd.spec.group,
  version: crd.spec.versions[0].name,
  resource: crd.spec.names.plural,
});

export const WORKSPACE_TEMPLATES = refOf(WORKSPACE_TEMPLATE_CRD);
export const WORKSPACES = refOf(WORKSPACE_CRD);
export const WORKSPACE_ROLES = refOf(WORKSPACE_ROLE_CRD);
export const WORKSPACE_ROLE_BINDINGS = refOf(WORKSPACE_ROLE_BINDING_CRD);
export const GROUPS = refOf(GROUP_CRD);
export const GROUP_BINDINGS = refOf(GROUP_BINDING_CRD);
export const GLOBAL_ROLE_BINDINGS = refOf(GLOBAL_ROLE_BINDING_CRD);
export const LOGIN_RECORDS = refOf(LOGIN_RECORD_CRD);
export const ROLE_BASES = refOf(ROLE_BASE_CRD);
export const NAMESPACES: ResourceRef = { group: '', version: 'v1', resource: 'namespaces' };
export const ROLES: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles' };
export const ROLE_BINDINGS: ResourceRef = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'rolebindings',
};
export const CLUSTER_ROLE_BINDINGS: ResourceRef = { ...ROLE_BINDINGS, resource: 'clusterrolebindings' };
/** Every kind of role binding: a user's or a group's go with it (reference 4.1, 4.6). */
export const BINDING_KINDS = [
  GLOBAL_ROLE_BINDINGS,
  WORKSPACE_ROLE_BINDINGS,
  CLUSTER_ROLE_BINDINGS,
  ROLE_BINDINGS,
];

export const NAMESPACE_LABEL = 'kubesphere.io/namespace';
/** `"true"`: the object is managed by multi-cluster federation; the controllers leave it alone. */
export const KUBEFED_MANAGED_LABEL = 'kubefed.io/managed';
/** RoleBases whose role is created in every namespace of a workspace. */
export const NAMESPACE_SCOPE_LABEL = 'scope.kubesphere.io/namespace';
export const TEMPLATE_FINALIZER = 'finalizers.workspacetemplate.kubesphere.io';
/** Put on a WorkspaceTemplate by a delete with propagationPolicy Orphan: its namespaces outlive it. */
export const ORPHAN_FINALIZER = 'orphan.finalizers.kubesphere.io';
export const GROUP_BINDING_FINALIZER = 'finalizers.kubesphere.io/groupsbindings';

export const WORKSPACE_API_VERSION = `${TENANT_GROUP}/${WORKSPACES.version}`;
export const IAM_API_VERSION = `${IAM_GROUP}/${WORKSPACE_ROLES.version}`;

export type Meta = ObjectMeta & { name: string; finalizers?: string[]; deletionTimestamp?: string };
export type Obj = KubeObject & { metadata: Meta };
/** A RoleBase: the role (Role or WorkspaceRole) made in every namespace or workspace. */
export type RoleBase = Obj & { role?: Obj & { rules?: unknown[] } };

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The REST path of one object (cluster-scoped unless `namespace` is given). */
export function objectPath(ref: ResourceRef, name: string, namespace?: string): string {
  return `${collectionPath(ref, namespace)}/${encodeURIComponent(name)}`;
}

/** A controller owner reference to `owner` (Kubernetes' garbage collector deletes the dependent with it). */
export function controllerRef(owner: Obj, apiVersion: string, kind: string): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name,
    uid: String(owner.metadata.uid),
    controller: true,
    blockOwnerDeletion: true,
  };
}

export const isDeleting = (o: Obj) => !!o.metadata.deletionTimestamp;
export const isFederated = (o: Obj) => o.metadata.labels?.[KUBEFED_MANAGED_LABEL] === 'true';
export const hasFinalizer = (o: Obj, f: string) => (o.metadata.finalizers ?? []).includes(f);

/** JSON equality for the small documents controllers compare (labels, rules, specs); undefined equals {} or []. */
export function sameJson(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) =>
    v === undefined || (typeof v === 'object' && v !== null && Object.keys(v).length === 0) ? '' : v;
  return JSON.stringify(sortKeys(norm(a))) === JSON.stringify(sortKeys(norm(b)));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, x]) => [k, sortKeys(x)]),
    );
  return v;
}

/**
 * Makes the object exist as wanted, idempotently: creates `desired` when the cache has none (a 409 means it was
 * created meanwhile; the watch event brings it back here), else writes `change(current)` when that returns an object
 * (a full update guarded by the cached resourceVersion: a 409 means the cache was behind, and the caller retries).
 */
export async function ensureObject(
  rest: KubeRest,
  ref: ResourceRef,
  desired: Obj,
  current: Obj | undefined,
  change: (current: Obj) => Obj | undefined,
): Promise<void> {
  const namespace = desired.metadata.namespace;
  if (!current) {
    try {
      await rest.create(collectionPath(ref, namespace), desired);
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
    return;
  }
  const next = change(current);
  if (next) await rest.replace(objectPath(ref, current.metadata.name, namespace), next);
}

/** A role made from a RoleBase: created when missing; edits to its labels, annotations and rules are reverted. */
export function ensureRole(
  rest: KubeRest,
  ref: ResourceRef,
  desired: Obj & { rules: unknown[] },
  current: Obj | undefined,
): Promise<void> {
  const { labels, annotations } = desired.metadata;
  const { rules } = desired;
  return ensureObject(rest, ref, desired, current, (cur) =>
    sameJson(cur.metadata.labels, labels) &&
    sameJson(cur.metadata.annotations, annotations) &&
    sameJson(cur.rules, rules)
      ? undefined
      : { ...cur, metadata: { ...cur.metadata, labels, annotations }, rules },
  );
}
