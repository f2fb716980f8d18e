// Workspaces as the aggregated APIs check them (shared by the iam and tenant routes): a workspace exists when its
// WorkspaceTemplate does (the object the tenant API serves; the Workspace follows it), and the objects labelled with
// one (label kubesphere.io/workspace). Who is a member is the authorizer's rule resolver's answer
// (RuleResolver.isWorkspaceMember, workspacesOf), read through its binding indexes.
import { notFound } from '../../k8s/status.ts';
import type { Entry, Informer } from '../cluster/index.ts';
import {
  IAM_GROUP,
  IAM_VERSION,
  TENANT_GROUP,
  WORKSPACE_ROLE_BINDING_CRD,
  WORKSPACE_TEMPLATE_CRD,
} from '../crds/definitions.ts';
import { WORKSPACE_LABEL } from '../iam/labels.ts';
import { resourceDef } from './iam/common.ts';
import type { ResourceDef } from './resources/defs.ts';

const WORKSPACE_INDEX = 'kapis:workspace';

export const WORKSPACE_TEMPLATES = resourceDef(
  TENANT_GROUP,
  WORKSPACE_TEMPLATE_CRD.spec.versions[0].name,
  WORKSPACE_TEMPLATE_CRD.spec.names.plural,
  false,
);
export const WORKSPACE_ROLE_BINDINGS = resourceDef(
  IAM_GROUP,
  IAM_VERSION,
  WORKSPACE_ROLE_BINDING_CRD.spec.names.plural,
  false,
);

/** The informer of a type once its first list is in (a 503 StatusError otherwise). */
export type Synced = (def: ResourceDef) => Promise<Informer>;

/** The workspace's WorkspaceTemplate; a 404 `workspaces.tenant.kubesphere.io "<name>" not found` when it is absent. */
export async function requireWorkspace(synced: Synced, name: string): Promise<Entry> {
  const e = (await synced(WORKSPACE_TEMPLATES)).get('', name);
  if (!e) throw notFound(TENANT_GROUP, 'workspaces', name);
  return e;
}

/** Entries of a cluster-scoped informer labelled with the workspace (through an index on the label). */
export function inWorkspace(inf: Informer, workspace: string): Entry[] {
  inf.addIndex(WORKSPACE_INDEX, (o) => {
    const ws = o.metadata?.labels?.[WORKSPACE_LABEL];
    return ws ? [ws] : [];
  });
  const out: Entry[] = [];
  for (const key of inf.keysByIndex(WORKSPACE_INDEX, workspace)) {
    const e = inf.getByKey(key);
    if (e) out.push(e);
  }
  return out;
}
