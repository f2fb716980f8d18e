// Namespace -> workspace ownership (reference 4.3): a namespace labelled `kubesphere.io/workspace=WS` gets the
// Workspace as its controller owner (so deleting the workspace deletes it), the namespace roles of the RoleBases,
// and once, on first sight, its creator's `admin` binding. The creator is the `kubesphere.io/creator` annotation,
// which kapiserver's tenant API writes from the authenticated caller.
// Unlike KubeSphere, no finalizer is put on namespaces (it only guards a gateway kapiserver does not run, and would
// leave namespaces Terminating whenever kapiserver is down); the `kubesphere.io/namespace` label marks the first
// reconcile done. A system namespace (kube-system...) is never owned by a workspace, whatever its label says: no
// workspace deletion may take it along.
import type { ClusterCache, Informer, KubeRest } from '../cluster/index.ts';
import { CREATOR_ANNOTATION, USER_REF_LABEL, WORKSPACE_LABEL } from '../iam/labels.ts';
import { RBAC_GROUP } from '../iam/rbac.ts';
import { USERS_REF } from '../iam/users.ts';
import { SYSTEM_NAMESPACES } from '../tenancy/builtins.ts';
import {
  controllerRef,
  ensureObject,
  ensureRole,
  isDeleting,
  isFederated,
  NAMESPACE_LABEL,
  NAMESPACE_SCOPE_LABEL,
  NAMESPACES,
  type Obj,
  type OwnerReference,
  objectPath,
  ROLE_BASES,
  ROLE_BINDINGS,
  ROLES,
  type RoleBase,
  sameJson,
  WORKSPACE_API_VERSION,
  WORKSPACES,
} from './resources.ts';
import { type Controller, enqueueKeys } from './runner.ts';

const isWorkspaceRef = (r: OwnerReference) =>
  r.apiVersion.startsWith('tenant.kubesphere.io/') &&
  (r.kind === 'Workspace' || r.kind === 'WorkspaceTemplate');

export function namespaceController(cache: ClusterCache, rest: KubeRest): Controller {
  const namespaces = cache.informer(NAMESPACES);
  const workspaces = cache.informer(WORKSPACES);
  const roleBases = cache.informer(ROLE_BASES);
  const roles = cache.informer(ROLES);
  const users = cache.informer(USERS_REF);
  const get = (inf: Informer, name: string, ns = '') => inf.get(ns, name)?.object() as Obj | undefined;

  /** The creator's RoleBinding `<creator>-admin` to the namespace's `admin` Role (an existing one is left as is). */
  async function bindCreator(ns: Obj): Promise<void> {
    const creator = ns.metadata.annotations?.[CREATOR_ANNOTATION];
    if (!creator || !get(users, creator)) return;
    const name = `${creator}-admin`;
    const binding: Obj = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata: { name, namespace: ns.metadata.name, labels: { [USER_REF_LABEL]: creator } },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'admin' },
      subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: creator }],
    };
    await ensureObject(rest, ROLE_BINDINGS, binding, undefined, () => undefined);
  }

  /** Labels and owner references the namespace should carry; undefined when they are right already. */
  function desiredMeta(ns: Obj): Obj['metadata'] | undefined {
    const labels: Record<string, string> = { ...ns.metadata.labels, [NAMESPACE_LABEL]: ns.metadata.name };
    const refs = (ns.metadata.ownerReferences ?? []) as OwnerReference[];
    let ownerReferences = refs;
    const wsName = ns.metadata.labels?.[WORKSPACE_LABEL];
    if (!wsName || SYSTEM_NAMESPACES.includes(ns.metadata.name)) {
      ownerReferences = refs.filter((r) => !isWorkspaceRef(r));
    } else if (!isFederated(ns)) {
      const ws = get(workspaces, wsName);
      if (ws && !isDeleting(ws)) {
        ownerReferences = [
          ...refs.filter((r) => !isWorkspaceRef(r)),
          controllerRef(ws, WORKSPACE_API_VERSION, 'Workspace'),
        ];
      } else if (ws || refs.some(isWorkspaceRef)) {
        // The workspace is going or gone: the namespace leaves it rather than pointing at nothing.
        delete labels[WORKSPACE_LABEL];
        ownerReferences = refs.filter((r) => !isWorkspaceRef(r));
      }
    }
    if (sameJson(labels, ns.metadata.labels) && sameJson(ownerReferences, refs)) return undefined;
    const { ownerReferences: _old, ...rest } = ns.metadata;
    return ownerReferences.length > 0 ? { ...rest, labels, ownerReferences } : { ...rest, labels };
  }

  /** The namespace roles (`admin`, `operator`, `viewer`...) from the RoleBases of namespace scope. */
  async function ensureRoles(ns: Obj): Promise<void> {
    for (const key of roleBases.keysWithLabel(NAMESPACE_SCOPE_LABEL)) {
      const role = (roleBases.getByKey(key)?.object() as RoleBase | undefined)?.role;
      if (role?.kind !== 'Role' || !role.metadata?.name) continue;
      const { labels, annotations } = role.metadata;
      const desired = {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'Role',
        metadata: { name: role.metadata.name, namespace: ns.metadata.name, labels, annotations },
        rules: role.rules ?? [],
      };
      await ensureRole(rest, ROLES, desired, get(roles, role.metadata.name, ns.metadata.name));
    }
  }

  return {
    name: 'namespace',
    informers: [namespaces, workspaces, roleBases, roles, users],
    watch(enqueue) {
      const inWorkspace = (ws: string) => namespaces.keysWithLabel(WORKSPACE_LABEL, ws);
      return [
        namespaces.addEventHandler(enqueueKeys(enqueue, (o) => [String(o.metadata?.name)])),
        workspaces.addEventHandler(enqueueKeys(enqueue, (o) => inWorkspace(String(o.metadata?.name)))),
        roleBases.addEventHandler(enqueueKeys(enqueue, () => namespaces.keysWithLabel(WORKSPACE_LABEL))),
        roles.addEventHandler(
          enqueueKeys(enqueue, (o) => {
            const ns = String(o.metadata?.namespace ?? '');
            return namespaces.get('', ns)?.labels?.[WORKSPACE_LABEL] ? [ns] : [];
          }),
        ),
      ];
    },
    async reconcile(name) {
      const ns = get(namespaces, name);
      if (!ns || isDeleting(ns)) return undefined;
      const firstSight = ns.metadata.labels?.[NAMESPACE_LABEL] !== name;
      // Before the label that marks it done: a crash in between makes the next reconcile bind again (409, fine).
      if (firstSight) await bindCreator(ns);
      const meta = desiredMeta(ns);
      if (meta) {
        await rest.replace(objectPath(NAMESPACES, name), { ...ns, metadata: meta });
        return undefined; // the update event brings the namespace back with its new labels
      }
      if (ns.metadata.labels?.[WORKSPACE_LABEL]) await ensureRoles(ns);
      return undefined;
    },
  };
}
