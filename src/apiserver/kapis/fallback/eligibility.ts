// Which /kapis/{group}/{version}/{resources} the fallback serves (reference 6.2): the groups of Kubernetes' built-in
// scheme except core, apiextensions and the review APIs (kapiserver answers reviews itself, for the caller), the
// KubeSphere group-versions KubeSphere registers, and any CRD labelled kubesphere.io/resource-served: "true"; in every
// case only what the orchestrator's discovery lists.
import type { Informer } from '../../cluster/index.ts';

const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  'admissionregistration.k8s.io',
  'internal.apiserver.k8s.io',
  'apps',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

const KUBESPHERE_GROUP_VERSIONS: ReadonlySet<string> = new Set([
  'iam.kubesphere.io/v1alpha2',
  'tenant.kubesphere.io/v1alpha1',
  'tenant.kubesphere.io/v1alpha2',
  'cluster.kubesphere.io/v1alpha1',
  'quota.kubesphere.io/v1alpha2',
  'network.kubesphere.io/v1alpha1',
  'storage.kubesphere.io/v1alpha1',
  'servicemesh.kubesphere.io/v1alpha2',
  'devops.kubesphere.io/v1alpha1',
  'devops.kubesphere.io/v1alpha3',
  'application.kubesphere.io/v1alpha1',
  'alerting.kubesphere.io/v2beta1',
  'auditing.kubesphere.io/v1alpha1',
  'notification.kubesphere.io/v2beta1',
  'notification.kubesphere.io/v2beta2',
  'monitoring.kubesphere.io/v1alpha2',
  'types.kubefed.io/v1beta1',
  'types.kubefed.io/v1beta2',
]);

export const RESOURCE_SERVED_LABEL = 'kubesphere.io/resource-served';

export type Eligibility = 'builtin' | 'kubesphere' | 'labelled' | undefined;

/**
 * Why the fallback may serve `resource` of group/version (before discovery is asked), or undefined. `crds` is the
 * informer of CustomResourceDefinitions.
 */
export function eligibility(group: string, version: string, resource: string, crds: Informer): Eligibility {
  if (group === '') return undefined;
  if (BUILTIN_GROUPS.has(group)) return 'builtin';
  if (KUBESPHERE_GROUP_VERSIONS.has(`${group}/${version}`)) return 'kubesphere';
  return crds.get('', `${resource}.${group}`)?.labels?.[RESOURCE_SERVED_LABEL] === 'true'
    ? 'labelled'
    : undefined;
}
