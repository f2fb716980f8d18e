// Escalation checks for what the iam routes write on the caller's behalf (roles, and the bindings behind members):
// the object is judged as if the caller wrote it through the Kubernetes API (iam/rbac-escalation.ts), so nobody
// grants through /kapis what they do not hold themselves (unless they hold `escalate`/`bind`).
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from '../../context.ts';
import type { RequestInfo } from '../../filters/requestinfo.ts';
import { checkRbacWrite } from '../../iam/rbac-escalation.ts';

export interface WriteTarget {
  group: string;
  /** Plural of the written object's type: globalroles, clusterroles, roles, clusterrolebindings, rolebindings. */
  resource: string;
  namespace: string;
  name: string;
  verb: 'create' | 'update' | 'patch';
}

/** Throws 403 when `obj` grants more than the caller holds at its scope. A no-op outside RBAC mode. */
export async function checkEscalation(
  ctx: ServerContext,
  request: FastifyRequest,
  target: WriteTarget,
  obj: unknown,
): Promise<void> {
  const user = request.user;
  const authorizer = ctx.authorizer;
  if (!user || !authorizer || ctx.config.authorization.mode !== 'RBAC') return;
  const info: RequestInfo = {
    ...request.requestInfo,
    isResourceRequest: true,
    isKubernetesRequest: true,
    apiPrefix: 'apis',
    apiGroup: target.group,
    apiVersion: target.group === 'rbac.authorization.k8s.io' ? 'v1' : 'v1alpha2',
    verb: target.verb,
    workspace: '',
    namespace: target.namespace,
    resource: target.resource,
    subresource: '',
    name: target.name,
    resourceScope: target.namespace ? 'Namespace' : 'Cluster',
  };
  await checkRbacWrite(authorizer, user, info, obj);
}
