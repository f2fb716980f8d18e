// Forwarded deletes that would take built-in objects with them: the built-in global roles (the platform roles and
// their role templates) cannot be deleted by name, and neither global roles nor users can be deleted as a collection
// (that would remove the platform roles and the admin user at once, whoever holds `deletecollection`). The same
// protection /kapis gives (kapis/iam/roles.ts); delete other objects one by one.
import { forbidden, methodNotAllowed } from '../../k8s/status.ts';
import { IAM_GROUP } from '../iam/rbac.ts';
import { BUILTIN_GLOBAL_ROLES } from '../iam/roles.ts';
import type { RequestInfo } from '../request.ts';

const BUILTIN_ROLES = new Set(BUILTIN_GLOBAL_ROLES.map((r) => r.name));
const NO_COLLECTION_DELETE = new Set(['globalroles', 'users']);

/** Throws the StatusError answering a forbidden delete (cheap and synchronous; a no-op for everything else). */
export function refuseBuiltinDeletion(info: RequestInfo): void {
  if (!info.isKubernetesRequest || !info.isResourceRequest || info.apiGroup !== IAM_GROUP) return;
  if (info.verb === 'deletecollection' && NO_COLLECTION_DELETE.has(info.resource)) {
    throw methodNotAllowed(
      `${info.resource}.${IAM_GROUP} cannot be deleted as a collection (built-in objects would go with them): delete them by name`,
    );
  }
  if (
    info.verb === 'delete' &&
    info.resource === 'globalroles' &&
    info.subresource === '' &&
    BUILTIN_ROLES.has(info.name)
  ) {
    throw forbidden(`globalroles.${IAM_GROUP} "${info.name}" is built in: it cannot be deleted`, {
      name: info.name,
      group: IAM_GROUP,
      kind: 'globalroles',
    });
  }
}
