// The built-in resource types the dev cluster serves: discovery metadata (verbs, short names, categories,
// subresources) and the per-kind field-selector fields. Behaviour per resource lives in strategy/
import type { Obj } from './store.ts';

export interface ResourceDef {
  group: string;
  version: string;
  /** Plural resource name, e.g. `deployments`. */
  resource: string;
  kind: string;
  singular: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  /** Subresources served, e.g. `status`, `scale`, `log`. */
  subresources: string[];
  /** Whether metadata.generation is maintained (bumped when anything outside metadata/status changes). */
  generation?: boolean;
  /** Review-style resources (create only, answered, never stored). */
  virtual?: boolean;
  /** Extra field-selector fields beyond metadata.name/namespace. */
  fields?: (o: Obj) => Record<string, string>;
  /** Set for custom resources: the CRD version's schema and printer columns. */
  crd?: CrdVersionInfo;
}

export interface CrdVersionInfo {
  crdName: string;
  schema?: Obj;
  printerColumns?: Obj[];
  /** Scale subresource paths. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const NO_COLLECTION_DELETE = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** `group/version` as objects carry it (`v1` for the core group). */
export const apiVersionOf = (d: { group: string; version: string }) =>
  d.group ? `${d.group}/${d.version}` : d.version;

/** Storage key of a resource: versions of one group/resource share their objects. */
export const storageKey = (d: { group: string; resource: string }) => `${d.group}/${d.resource}`;

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
const at = (o: Obj, ...path: string[]): unknown => {
  let cur: unknown = o;
  for (const p of path) cur = cur && typeof cur === 'object' ? (cur as Obj)[p] : undefined;
  return cur;
};

function def(
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<ResourceDef> = {},
): ResourceDef {
  return {
    group,
    version,
    resource,
    kind,
    singular: kind.toLowerCase(),
    namespaced,
    verbs: ALL_VERBS,
    subresources: [],
    ...extra,
  };
}

const all = ['all'];

export const BUILTIN_RESOURCES: ResourceDef[] = [
  def('', 'v1', 'namespaces', 'Namespace', false, {
    verbs: NO_COLLECTION_DELETE,
    shortNames: ['ns'],
    subresources: ['status', 'finalize'],
    fields: (o) => ({ 'status.phase': str(at(o, 'status', 'phase')) }),
  }),
  def('', 'v1', 'nodes', 'Node', false, {
    shortNames: ['no'],
    subresources: ['status', 'proxy'],
    fields: (o) => ({ 'spec.unschedulable': String(at(o, 'spec', 'unschedulable') === true) }),
  }),
  def('', 'v1', 'pods', 'Pod', true, {
    shortNames: ['po'],
    categories: all,
    subresources: [
      'status',
      'log',
      'exec',
      'attach',
      'portforward',
      'binding',
      'eviction',
      'ephemeralcontainers',
      'resize',
    ],
    fields: (o) => ({
      'spec.nodeName': str(at(o, 'spec', 'nodeName')),
      'spec.restartPolicy': str(at(o, 'spec', 'restartPolicy')),
      'spec.schedulerName': str(at(o, 'spec', 'schedulerName')),
      'spec.serviceAccountName': str(at(o, 'spec', 'serviceAccountName')),
      'spec.hostNetwork': String(at(o, 'spec', 'hostNetwork') === true),
      'status.phase': str(at(o, 'status', 'phase')),
      'status.podIP': str(at(o, 'status', 'podIP')),
      'status.nominatedNodeName': str(at(o, 'status', 'nominatedNodeName')),
    }),
  }),
  def('', 'v1', 'services', 'Service', true, {
    shortNames: ['svc'],
    categories: all,
    subresources: ['status', 'proxy'],
  }),
  def('', 'v1', 'endpoints', 'Endpoints', true, { shortNames: ['ep'] }),
  def('', 'v1', 'configmaps', 'ConfigMap', true, { shortNames: ['cm'] }),
  def('', 'v1', 'secrets', 'Secret', true, { fields: (o) => ({ type: str(o.type) }) }),
  def('', 'v1', 'serviceaccounts', 'ServiceAccount', true, { shortNames: ['sa'], subresources: ['token'] }),
  def('', 'v1', 'events', 'Event', true, {
    shortNames: ['ev'],
    fields: (o) => ({
      'involvedObject.kind': str(at(o, 'involvedObject', 'kind')),
      'involvedObject.namespace': str(at(o, 'involvedObject', 'namespace')),
      'involvedObject.name': str(at(o, 'involvedObject', 'name')),
      'involvedObject.uid': str(at(o, 'involvedObject', 'uid')),
      'involvedObject.apiVersion': str(at(o, 'involvedObject', 'apiVersion')),
      'involvedObject.resourceVersion': str(at(o, 'involvedObject', 'resourceVersion')),
      'involvedObject.fieldPath': str(at(o, 'involvedObject', 'fieldPath')),
      reason: str(o.reason),
      reportingComponent: str(o.reportingComponent),
      source: str(at(o, 'source', 'component')),
      type: str(o.type),
    }),
  }),
  def('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, {
    shortNames: ['pvc'],
    subresources: ['status'],
  }),
  // Enforced on create by admission/ (quota, LimitRanger); controllers/resourcequota.ts keeps quotas' status.
  def('', 'v1', 'resourcequotas', 'ResourceQuota', true, { shortNames: ['quota'], subresources: ['status'] }),
  def('', 'v1', 'limitranges', 'LimitRange', true, { shortNames: ['limits'] }),
  def('', 'v1', 'persistentvolumes', 'PersistentVolume', false, {
    shortNames: ['pv'],
    subresources: ['status'],
  }),
  def('apps', 'v1', 'deployments', 'Deployment', true, {
    shortNames: ['deploy'],
    categories: all,
    subresources: ['status', 'scale'],
    generation: true,
  }),
  def('apps', 'v1', 'replicasets', 'ReplicaSet', true, {
    shortNames: ['rs'],
    categories: all,
    subresources: ['status', 'scale'],
    generation: true,
    fields: (o) => ({ 'status.replicas': str(at(o, 'status', 'replicas') ?? 0) }),
  }),
  def('apps', 'v1', 'statefulsets', 'StatefulSet', true, {
    shortNames: ['sts'],
    categories: all,
    subresources: ['status', 'scale'],
    generation: true,
  }),
  def('apps', 'v1', 'daemonsets', 'DaemonSet', true, {
    shortNames: ['ds'],
    categories: all,
    subresources: ['status'],
    generation: true,
  }),
  def('apps', 'v1', 'controllerrevisions', 'ControllerRevision', true),
  def('batch', 'v1', 'jobs', 'Job', true, {
    categories: all,
    subresources: ['status'],
    generation: true,
    fields: (o) => ({ 'status.successful': str(at(o, 'status', 'succeeded') ?? 0) }),
  }),
  def('batch', 'v1', 'cronjobs', 'CronJob', true, {
    shortNames: ['cj'],
    categories: all,
    subresources: ['status'],
    generation: true,
  }),
  def('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true),
  def('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true),
  def('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  def('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
  def('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  def('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true, {
    shortNames: ['netpol'],
    generation: true,
  }),
  def('networking.k8s.io', 'v1', 'ingresses', 'Ingress', true, {
    shortNames: ['ing'],
    subresources: ['status'],
    generation: true,
  }),
  def('networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', false, { generation: true }),
  def('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, {
    shortNames: ['pdb'],
    subresources: ['status'],
    generation: true,
  }),
  def('scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false, { shortNames: ['pc'] }),
  // Read by claims' resize admission (allowVolumeExpansion); nothing provisions volumes.
  def('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false, { shortNames: ['sc'] }),
  def('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  def('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, {
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
    generation: true,
  }),
  def('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, {
    verbs: ['create'],
    virtual: true,
  }),
  def('authorization.k8s.io', 'v1', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, {
    verbs: ['create'],
    virtual: true,
  }),
  def('authorization.k8s.io', 'v1', 'subjectaccessreviews', 'SubjectAccessReview', false, {
    verbs: ['create'],
    virtual: true,
  }),
  def('authentication.k8s.io', 'v1', 'selfsubjectreviews', 'SelfSubjectReview', false, {
    verbs: ['create'],
    virtual: true,
  }),
  def('authentication.k8s.io', 'v1', 'tokenreviews', 'TokenReview', false, {
    verbs: ['create'],
    virtual: true,
  }),
];

/** Group order in discovery, as Kubernetes lists them (CRD groups follow, alphabetically). */
export const BUILTIN_GROUP_ORDER = [
  '',
  'apps',
  'batch',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
];

/** Discovery verbs of a subresource entry (`pods/log`, `deployments/scale`, ...). */
export function subresourceVerbs(sub: string): string[] {
  switch (sub) {
    case 'log':
      return ['get'];
    case 'exec':
    case 'attach':
    case 'portforward':
    case 'proxy':
      return ['create', 'get'];
    case 'binding':
    case 'eviction':
    case 'token':
      return ['create'];
    case 'finalize':
      return ['update'];
    default:
      return ['get', 'patch', 'update'];
  }
}

/** Kind reported for a subresource entry in discovery. */
export function subresourceKind(
  d: ResourceDef,
  sub: string,
): { kind: string; group?: string; version?: string } {
  switch (sub) {
    case 'scale':
      return { kind: 'Scale', group: 'autoscaling', version: 'v1' };
    case 'exec':
      return { kind: 'PodExecOptions' };
    case 'attach':
      return { kind: 'PodAttachOptions' };
    case 'portforward':
      return { kind: 'PodPortForwardOptions' };
    case 'proxy':
      return { kind: d.kind === 'Node' ? 'NodeProxyOptions' : `${d.kind}ProxyOptions` };
    case 'binding':
      return { kind: 'Binding' };
    case 'eviction':
      return { kind: 'Eviction', group: 'policy', version: 'v1' };
    case 'token':
      return { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1' };
    default:
      return { kind: d.kind };
  }
}
