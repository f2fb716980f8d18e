// WorkspaceTemplate -> Workspace, the initial workspace roles and the manager's binding (reference 4.4, 3.6), and
// the deletion of a workspace (2.8). Every step is idempotent and runs on every reconcile, in an order that leaves
// nothing half-made behind a crash: the finalizer first (so a deletion always comes through here), then the
// Workspace, the roles and the binding. A deleted template deletes its Workspace (Kubernetes' garbage collector then
// deletes the namespaces it owns, or strips their owner reference when the template carries the orphan finalizer)
// and the roles and binding it owns.
import { type ClusterCache, type Informer, isNotFound, type KubeRest } from '../cluster/index.ts';
import { CREATOR_ANNOTATION, USER_REF_LABEL, WORKSPACE_LABEL } from '../iam/labels.ts';
import { IAM_GROUP, RBAC_GROUP } from '../iam/rbac.ts';
import { USERS_REF } from '../iam/users.ts';
import {
  controllerRef,
  ensureObject,
  ensureRole,
  hasFinalizer,
  IAM_API_VERSION,
  isDeleting,
  type Obj,
  ORPHAN_FINALIZER,
  objectPath,
  ROLE_BASES,
  type RoleBase,
  sameJson,
  TEMPLATE_FINALIZER,
  WORKSPACE_API_VERSION,
  WORKSPACE_ROLE_BINDINGS,
  WORKSPACE_ROLES,
  WORKSPACE_TEMPLATES,
  WORKSPACES,
} from './resources.ts';
import { type Controller, enqueueKeys } from './runner.ts';

interface Template extends Obj {
  spec?: {
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: { manager?: string } & Record<string, unknown>;
    };
  };
}

const MANAGER_INDEX = 'controllers.workspacetemplates.manager';

export function workspaceTemplateController(cache: ClusterCache, rest: KubeRest): Controller {
  const templates = cache.informer(WORKSPACE_TEMPLATES);
  const workspaces = cache.informer(WORKSPACES);
  const roles = cache.informer(WORKSPACE_ROLES);
  const bindings = cache.informer(WORKSPACE_ROLE_BINDINGS);
  const roleBases = cache.informer(ROLE_BASES);
  const users = cache.informer(USERS_REF);
  templates.addIndex(MANAGER_INDEX, (o) => {
    const manager = (o as Template).spec?.template?.spec?.manager;
    return manager ? [manager] : [];
  });
  const get = <T extends Obj>(inf: Informer, name: string) => inf.get('', name)?.object() as T | undefined;

  async function ensureWorkspace(tpl: Template): Promise<void> {
    const name = tpl.metadata.name;
    const labels = tpl.spec?.template?.metadata?.labels ?? {};
    const spec = tpl.spec?.template?.spec ?? {};
    const desired: Obj = {
      apiVersion: WORKSPACE_API_VERSION,
      kind: 'Workspace',
      metadata: { name, labels },
      spec,
    };
    await ensureObject(rest, WORKSPACES, desired, get(workspaces, name), (cur) =>
      sameJson(cur.metadata.labels, labels) && sameJson(cur.spec, spec)
        ? undefined
        : { ...cur, metadata: { ...cur.metadata, labels }, spec },
    );
  }

  async function ensureRoles(tpl: Template): Promise<void> {
    const ws = tpl.metadata.name;
    for (const entry of roleBases.entries()) {
      const role = (entry.object() as RoleBase).role;
      if (role?.kind !== 'WorkspaceRole' || !role.metadata?.name) continue;
      const labels = { ...role.metadata.labels, [WORKSPACE_LABEL]: ws };
      const annotations = { [CREATOR_ANNOTATION]: 'system', ...role.metadata.annotations };
      const desired = {
        apiVersion: IAM_API_VERSION,
        kind: 'WorkspaceRole',
        metadata: {
          name: `${ws}-${role.metadata.name}`,
          labels,
          annotations,
          ownerReferences: [controllerRef(tpl, tpl.apiVersion as string, 'WorkspaceTemplate')],
        },
        rules: role.rules ?? [],
      };
      // Edits to the built-in roles are reverted, as KubeSphere does; roles are never deleted here.
      await ensureRole(rest, WORKSPACE_ROLES, desired, get(roles, desired.metadata.name));
    }
  }

  /** The manager, when it names an existing user, holds `<ws>-admin` through a binding of that name. */
  async function ensureManagerBinding(tpl: Template): Promise<void> {
    const ws = tpl.metadata.name;
    const manager = tpl.spec?.template?.spec?.manager;
    const user = manager ? get(users, manager) : undefined;
    if (!manager || !user || isDeleting(user)) return;
    const name = `${ws}-admin`;
    const labels = { [WORKSPACE_LABEL]: ws, [USER_REF_LABEL]: manager };
    const roleRef = { apiGroup: IAM_GROUP, kind: 'WorkspaceRole', name };
    const subjects = [{ apiGroup: RBAC_GROUP, kind: 'User', name: manager }];
    const desired: Obj = {
      apiVersion: IAM_API_VERSION,
      kind: 'WorkspaceRoleBinding',
      metadata: {
        name,
        labels,
        ownerReferences: [controllerRef(tpl, tpl.apiVersion as string, 'WorkspaceTemplate')],
      },
      roleRef,
      subjects,
    };
    // A new manager replaces the old one in the subject: the old manager loses admin.
    await ensureObject(rest, WORKSPACE_ROLE_BINDINGS, desired, get(bindings, name), (cur) =>
      sameJson(cur.metadata.labels, labels) &&
      sameJson(cur.roleRef, roleRef) &&
      sameJson(cur.subjects, subjects)
        ? undefined
        : { ...cur, metadata: { ...cur.metadata, labels }, roleRef, subjects },
    );
  }

  async function finalize(tpl: Template): Promise<void> {
    const orphan = hasFinalizer(tpl, ORPHAN_FINALIZER);
    const propagationPolicy = orphan ? 'Orphan' : 'Background';
    try {
      await rest.call('DELETE', objectPath(WORKSPACES, tpl.metadata.name), { propagationPolicy });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const finalizers = (tpl.metadata.finalizers ?? []).filter(
      (f) => f !== TEMPLATE_FINALIZER && f !== ORPHAN_FINALIZER,
    );
    await rest.replace(objectPath(WORKSPACE_TEMPLATES, tpl.metadata.name), {
      ...tpl,
      metadata: { ...tpl.metadata, finalizers },
    });
  }

  return {
    name: 'workspacetemplate',
    informers: [templates, workspaces, roles, bindings, roleBases, users],
    watch(enqueue) {
      const on = (inf: Informer, keysOf: (o: Obj) => Iterable<string>) =>
        inf.addEventHandler(enqueueKeys(enqueue, (o) => keysOf(o as Obj)));
      const ownName = (o: Obj) => [o.metadata.name];
      const ownWorkspace = (o: Obj) => [o.metadata.labels?.[WORKSPACE_LABEL] ?? ''].filter(Boolean);
      return [
        on(templates, ownName),
        on(workspaces, ownName),
        on(roles, ownWorkspace),
        on(bindings, ownWorkspace),
        on(roleBases, () => [...templates.entries()].map((e) => e.name)),
        on(users, (o) => templates.keysByIndex(MANAGER_INDEX, o.metadata.name)),
      ];
    },
    async reconcile(name) {
      const tpl = get<Template>(templates, name);
      if (!tpl) return undefined;
      if (isDeleting(tpl)) {
        if (hasFinalizer(tpl, TEMPLATE_FINALIZER)) await finalize(tpl);
        return undefined;
      }
      if (!hasFinalizer(tpl, TEMPLATE_FINALIZER)) {
        // Written first and alone: the update event brings the template back here for the rest.
        await rest.replace(objectPath(WORKSPACE_TEMPLATES, name), {
          ...tpl,
          metadata: { ...tpl.metadata, finalizers: [...(tpl.metadata.finalizers ?? []), TEMPLATE_FINALIZER] },
        });
        return undefined;
      }
      await ensureWorkspace(tpl);
      await ensureRoles(tpl);
      await ensureManagerBinding(tpl);
      return undefined;
    },
  };
}
