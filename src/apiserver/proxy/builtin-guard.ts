// Forwarded deletes that would take built-in objects with them: the built-in global roles (the platform roles and
// their role templates) cannot be deleted by name, and neither global roles nor users can be deleted as a collection
// (that would remove the platform roles and the admin user at once, whoever holds `deletecollection`). The same
// protection /kapis gives (kapis/iam/roles.ts); delete other objects one by one. Likewise `system-workspace` (its
// WorkspaceTemplate and its Workspace own the system namespaces: deleting either would delete kube-system), as the
// tenant routes refuse it (kapis/tenant/workspaces.ts).
import { forbidden, methodNotAllowed } from '../../k8s/status.ts';
import { TENANT_GROUP } from '../crds/definitions.ts';
import { IAM_GROUP } from '../iam/rbac.ts';
import { BUILTIN_GLOBAL_ROLES } from '../iam/roles.ts';
import type { RequestInfo } from '../request.ts';
import { SYSTEM_WORKSPACE } from '../tenancy/builtins.ts';

/** Per API group: resources that cannot be deleted as a collection, and the built-in names per resource. */
const GUARDED: Record<string, { noCollectionDelete: Set<string>; builtin: Record<string, Set<string>> }> = {
  [IAM_GROUP]: {
    noCollectionDelete: new Set(['globalroles', 'users']),
    builtin: { globalroles: new Set(BUILTIN_GLOBAL_ROLES.map((r) => r.name)) },
  },
  [TENANT_GROUP]: {
    noCollectionDelete: new Set(['workspacetemplates', 'workspaces']),
    builtin: { workspacetemplates: new Set([SYSTEM_WORKSPACE]), workspaces: new Set([SYSTEM_WORKSPACE]) },
  },
};

/** Throws the StatusError answering a forbidden delete (cheap and synchronous; a no-op for everything else). */
export function refuseBuiltinDeletion(info: RequestInfo): void {
  const guarded = GUARDED[info.apiGroup];
  if (!info.isKubernetesRequest || !info.isResourceRequest || !guarded) return;
  const group = info.apiGroup;
  if (info.verb === 'deletecollection' && guarded.noCollectionDelete.has(info.resource)) {
    throw methodNotAllowed(
      `${info.resource}.${group} cannot be deleted as a collection (built-in objects would go with them): delete them by name`,
    );
  }
  if (info.verb === 'delete' && info.subresource === '' && guarded.builtin[info.resource]?.has(info.name)) {
    throw forbidden(`${info.resource}.${group} "${info.name}" is built in: it cannot be deleted`, {
      name: info.name,
      group,
      kind: info.resource,
    });
  }
}
