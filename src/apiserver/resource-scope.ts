// Which resources are cluster-scoped wherever a path puts them: read by request info (the request's scope) and by the
// authorizer (a namespaced grant never reaches a cluster-scoped object).
import type { RequestInfo } from './request.ts';

/**
 * Resources that live outside any namespace (Kubernetes' cluster-scoped ones and KubeSphere's global ones). A path
 * may still name a namespace before them (/api/v1/namespaces/demo/nodes): Kubernetes parses that as resource `nodes`
 * in namespace `demo` and answers 404, as no such namespaced route exists; a namespaced grant must never reach them.
 */
const CLUSTER_SCOPED_RESOURCES = new Set([
  'namespaces',
  'nodes',
  'persistentvolumes',
  'clusterroles',
  'clusterrolebindings',
  'customresourcedefinitions',
  'storageclasses',
  'priorityclasses',
  'csidrivers',
  'csinodes',
  'volumeattachments',
  'ingressclasses',
  'runtimeclasses',
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'apiservices',
  'certificatesigningrequests',
  'tokenreviews',
  'subjectaccessreviews',
  'selfsubjectaccessreviews',
  'selfsubjectrulesreviews',
  'componentstatuses',
  'users',
  'globalroles',
  'globalrolebindings',
  'workspaces',
  'workspacetemplates',
  'clusters',
  'loginrecords',
  'clusterconfigurations',
]);

/** KubeSphere's workspace-level objects: cluster-scoped, granted by workspace bindings but never by namespace ones. */
const WORKSPACE_RESOURCES = new Set(['workspaceroles', 'workspacerolebindings']);

/**
 * True when the request is about a cluster-scoped resource, wherever its path puts it. The one exception is a
 * namespace itself (/namespaces/{ns}, its status and finalize), which Kubernetes' RBAC places in its own namespace;
 * `namespaces` in a workspace are that workspace's. So `namespaces/demo/namespaces/x` is cluster-scoped (x is not
 * demo), and so is `namespaces/demo/namespaces` (a list).
 */
export function isClusterScopedResource(info: Pick<RequestInfo, 'resource' | 'name' | 'namespace'>): boolean {
  if (info.resource === 'namespaces') return info.namespace !== '' && info.name !== info.namespace;
  if (WORKSPACE_RESOURCES.has(info.resource)) return info.namespace !== '';
  return CLUSTER_SCOPED_RESOURCES.has(info.resource);
}
