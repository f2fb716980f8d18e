// The scope of a request in KubeSphere's terms (reference 3.5): Global for the platform's own objects, Namespace,
// Workspace, else Cluster; and which resources are cluster-scoped wherever a path puts them (a namespaced grant never
// reaches a cluster-scoped object). Read by request info and by the authorizer.
import type { RequestInfo, ResourceScope } from './request.ts';

/** KubeSphere's global resources by API group (reference 3.5): only platform (global) role bindings grant them. */
const GLOBAL_RESOURCES: Readonly<Record<string, ReadonlySet<string>>> = {
  'iam.kubesphere.io': new Set(['users', 'globalroles', 'globalrolebindings']),
  'tenant.kubesphere.io': new Set(['workspaces', 'clusters']),
  'cluster.kubesphere.io': new Set(['clusters']),
  'resources.kubesphere.io': new Set(['clusters']),
};

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
export function isClusterScopedResource(
  info: Pick<RequestInfo, 'resource' | 'name' | 'namespace' | 'workspace'>,
): boolean {
  if (info.resource === 'namespaces') return info.namespace !== '' && info.name !== info.namespace;
  // Likewise a workspace under its own path outside the tenant group (monitoring's /workspaces/{ws} metrics) is that
  // workspace's, as in KubeSphere; the tenant group's workspaces are global (resourceScopeOf checks that first).
  if (info.resource === 'workspaces' && info.workspace !== '' && info.name === info.workspace)
    return info.namespace !== '';
  if (WORKSPACE_RESOURCES.has(info.resource)) return info.namespace !== '';
  return CLUSTER_SCOPED_RESOURCES.has(info.resource);
}

/**
 * The scope whose bindings may grant a request (reference 3.5, with cluster-scoped resources never taking the
 * namespace or workspace their path names): Global for the global resources, then Cluster for other cluster-scoped
 * ones, Namespace when the path names one, Workspace when it names one, else Cluster (non-resource requests too).
 */
export function resourceScopeOf(
  info: Pick<RequestInfo, 'isResourceRequest' | 'apiGroup' | 'resource' | 'name' | 'namespace' | 'workspace'>,
): ResourceScope {
  if (!info.isResourceRequest) return 'Cluster';
  if (GLOBAL_RESOURCES[info.apiGroup]?.has(info.resource)) return 'Global';
  if (isClusterScopedResource(info)) return 'Cluster';
  if (info.namespace !== '') return 'Namespace';
  return info.workspace !== '' ? 'Workspace' : 'Cluster';
}

/**
 * Resources whose `kubesphere.io/workspace` label is their workspace membership (cluster-scoped, so the label alone
 * places them): a watch selecting one workspace's is judged in that workspace. Namespaced resources are left out: any
 * namespace's objects may carry the label.
 */
export const WORKSPACE_LABELLED_RESOURCES: ReadonlySet<string> = new Set([
  'namespaces',
  'workspaceroles',
  'workspacerolebindings',
  'groups',
  'groupbindings',
]);
