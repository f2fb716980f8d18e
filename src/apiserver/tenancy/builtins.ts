// The tenancy objects a fresh KubeSphere install has, created at start when missing: `system-workspace` (its
// WorkspaceTemplate and Workspace, as the ks-core chart creates them) holding the system namespaces, and the role
// templates and role bases (role-templates.ts). Create-only: an object that exists is left as it is (409 from a
// concurrent replica included), so an operator's edit of a built-in role survives restarts.
import type { Logger } from 'pino';
import { isConflict, isNotFound, type KubeObject, KubeRest } from '../cluster/index.ts';
import type { ServerContext } from '../context.ts';
import { CREATOR_ANNOTATION, WORKSPACE_LABEL } from '../iam/labels.ts';
import { retryUntilDone } from '../startup-retry.ts';
import { ROLE_TEMPLATES } from './role-templates.ts';

export const SYSTEM_WORKSPACE = 'system-workspace';

/** The namespaces ks-installer v3.4.1 puts in system-workspace (roles/common/tasks/init-namespaces.yaml), when they exist. */
export const SYSTEM_NAMESPACES = [
  'default',
  'kube-public',
  'kube-system',
  'kube-node-lease',
  'kubesphere-system',
  'kubesphere-controls-system',
  'kubesphere-monitoring-system',
  'kubesphere-monitoring-federated',
  'kubesphere-logging-system',
  'kubesphere-devops-system',
  'istio-system',
  'kube-federation-system',
];

const systemWorkspaceMeta = {
  name: SYSTEM_WORKSPACE,
  labels: { 'kubefed.io/managed': 'false' },
  annotations: { [CREATOR_ANNOTATION]: 'admin' },
};
const systemWorkspaceSpec = { manager: 'admin', networkIsolation: false };

const SYSTEM_WORKSPACE_TEMPLATE: KubeObject = {
  apiVersion: 'tenant.kubesphere.io/v1alpha2',
  kind: 'WorkspaceTemplate',
  metadata: {
    ...systemWorkspaceMeta,
    annotations: {
      ...systemWorkspaceMeta.annotations,
      'kubesphere.io/description':
        'system-workspace is a built-in workspace automatically created by KubeSphere. It contains all system components to run KubeSphere.',
    },
  },
  spec: { placement: { clusterSelector: {} }, template: { spec: systemWorkspaceSpec } },
};

const SYSTEM_WORKSPACE_OBJECT: KubeObject = {
  apiVersion: 'tenant.kubesphere.io/v1alpha1',
  kind: 'Workspace',
  metadata: systemWorkspaceMeta,
  spec: systemWorkspaceSpec,
};

// Every kind created here pluralises regularly (ClusterRole -> clusterroles, RoleBase -> rolebases, ...).
const collectionPath = (o: KubeObject) => `/apis/${o.apiVersion}/${o.kind!.toLowerCase()}s`;

/** Creates `obj`; false when it exists already. */
async function createIfMissing(rest: KubeRest, obj: KubeObject): Promise<boolean> {
  try {
    await rest.create(collectionPath(obj), obj);
    return true;
  } catch (err) {
    if (isConflict(err)) return false;
    throw err;
  }
}

/**
 * Labels the system namespaces that exist and belong to no workspace. Only done while system-workspace does not
 * exist, so a namespace an operator later takes out of it stays out; the resourceVersion in the patch makes a
 * concurrent change win over this one.
 */
async function labelSystemNamespaces(rest: KubeRest): Promise<number> {
  const { items } = await rest.list('/api/v1/namespaces');
  let labelled = 0;
  for (const ns of items) {
    const { name, resourceVersion, labels } = ns.metadata ?? {};
    if (!name || !SYSTEM_NAMESPACES.includes(name) || labels?.[WORKSPACE_LABEL] !== undefined) continue;
    try {
      await rest.mergePatch(`/api/v1/namespaces/${name}`, {
        metadata: { resourceVersion, labels: { [WORKSPACE_LABEL]: SYSTEM_WORKSPACE } },
      });
      labelled++;
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }
  return labelled;
}

async function ensureSystemWorkspace(rest: KubeRest): Promise<{ created: number; labelled: number }> {
  let created = 0;
  let labelled = 0;
  try {
    await rest.get(`${collectionPath(SYSTEM_WORKSPACE_TEMPLATE)}/${SYSTEM_WORKSPACE}`);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    // Namespaces first: a start interrupted before the template exists labels them again next time.
    labelled = await labelSystemNamespaces(rest);
    if (await createIfMissing(rest, SYSTEM_WORKSPACE_TEMPLATE)) created++;
  }
  // The chart creates the Workspace itself rather than waiting for the workspace controller.
  if (await createIfMissing(rest, SYSTEM_WORKSPACE_OBJECT)) created++;
  return { created, labelled };
}

/** Creates the role templates and role bases that are missing: one list per kind, then a create per missing one. */
async function ensureRoleTemplates(rest: KubeRest): Promise<number> {
  const byCollection = new Map<string, KubeObject[]>();
  for (const obj of ROLE_TEMPLATES) {
    const path = collectionPath(obj);
    byCollection.set(path, [...(byCollection.get(path) ?? []), obj]);
  }
  let created = 0;
  for (const [path, objects] of byCollection) {
    const { items } = await rest.list(path);
    const existing = new Set(items.map((o) => o.metadata?.name));
    for (const obj of objects) {
      if (existing.has(obj.metadata?.name)) continue;
      if (await createIfMissing(rest, obj)) created++;
    }
  }
  return created;
}

/** Creates the built-in tenancy objects that are missing; returns how many objects it created or labelled. */
export async function ensureTenancyBuiltins(rest: KubeRest, logger: Logger): Promise<number> {
  const workspace = await ensureSystemWorkspace(rest);
  const roles = await ensureRoleTemplates(rest);
  const total = workspace.created + workspace.labelled + roles;
  if (total > 0) logger.info({ ...workspace, roleTemplates: roles }, 'created built-in tenancy objects');
  return total;
}

/** Runs ensureTenancyBuiltins once `crdsReady` resolves, retrying until it succeeds or the server closes. */
export function startTenancyBuiltins(
  ctx: Pick<ServerContext, 'cluster' | 'logger' | 'onClose'>,
  crdsReady: Promise<unknown>,
): Promise<void> {
  const rest = new KubeRest(ctx.cluster);
  return retryUntilDone(ctx, crdsReady, 'built-in tenancy objects', () =>
    ensureTenancyBuiltins(rest, ctx.logger),
  );
}
