// List and map metadata of the built-in types, as the Go struct tags of k8s.io/api declare it
// (`patchMergeKey`, `patchStrategy`, `listType`, `listMapKey`, `structType=atomic`).
// Strategic merge patch reads `mergeKey`/`strategy`; server-side apply reads `listType`/`listMapKeys`
// (falling back to the patch metadata, as kube-openapi's schema conversion does) and `atomic`.
// The OpenAPI module reuses the same table for `x-kubernetes-patch-*` and `x-kubernetes-list-*`.

export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

export interface FieldSchema {
  /** Go-style type name of the value, or of the list's elements (key into PATCH_SCHEMA). */
  type?: string;
  /** The field is a list. */
  list?: boolean;
  /** x-kubernetes-patch-merge-key */
  mergeKey?: string;
  /** x-kubernetes-patch-strategy */
  strategy?: PatchStrategy;
  /** x-kubernetes-list-type */
  listType?: 'atomic' | 'set' | 'map';
  /** x-kubernetes-list-map-keys */
  listMapKeys?: string[];
  /** structType/mapType=atomic: server-side apply owns the value as a whole. */
  atomic?: boolean;
}

export type TypeSchema = Record<string, FieldSchema>;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const CORE = 'io.k8s.api.core.v1.';
const APPS = 'io.k8s.api.apps.v1.';
const BATCH = 'io.k8s.api.batch.v1.';
const RBAC = 'io.k8s.api.rbac.v1.';

const OBJECT_META = `${META}ObjectMeta`;
const LABEL_SELECTOR = `${META}LabelSelector`;
const POD_TEMPLATE = `${CORE}PodTemplateSpec`;

const mapList = (type: string, key: string, extra: Partial<FieldSchema> = {}): FieldSchema => ({
  type,
  list: true,
  mergeKey: key,
  strategy: 'merge',
  listType: 'map',
  listMapKeys: [key],
  ...extra,
});
const atomicList = (type?: string): FieldSchema => ({ type, list: true, listType: 'atomic' });
const conditions = (type: string): FieldSchema => mapList(type, 'type');
const withMeta = (fields: TypeSchema): TypeSchema => ({ metadata: { type: OBJECT_META }, ...fields });

const CONTAINER_FIELDS: TypeSchema = {
  command: atomicList(),
  args: atomicList(),
  ports: mapList(`${CORE}ContainerPort`, 'containerPort', { listMapKeys: ['containerPort', 'protocol'] }),
  envFrom: atomicList(`${CORE}EnvFromSource`),
  env: mapList(`${CORE}EnvVar`, 'name'),
  volumeMounts: mapList(`${CORE}VolumeMount`, 'mountPath'),
  volumeDevices: mapList(`${CORE}VolumeDevice`, 'devicePath'),
  resizePolicy: atomicList(`${CORE}ContainerResizePolicy`),
};

/** Field metadata per type; fields not listed have none (maps merge, lists are atomic). */
export const PATCH_SCHEMA: Record<string, TypeSchema> = {
  [OBJECT_META]: {
    labels: {},
    annotations: {},
    finalizers: { list: true, strategy: 'merge', listType: 'set' },
    ownerReferences: mapList(`${META}OwnerReference`, 'uid'),
    managedFields: atomicList(`${META}ManagedFieldsEntry`),
  },
  [LABEL_SELECTOR]: { matchExpressions: atomicList(`${META}LabelSelectorRequirement`) },
  [`${META}OwnerReference`]: {},

  [POD_TEMPLATE]: withMeta({ spec: { type: `${CORE}PodSpec` } }),
  [`${CORE}PodSpec`]: {
    volumes: mapList(`${CORE}Volume`, 'name', { strategy: 'merge,retainKeys' }),
    initContainers: mapList(`${CORE}Container`, 'name'),
    containers: mapList(`${CORE}Container`, 'name'),
    ephemeralContainers: mapList(`${CORE}EphemeralContainer`, 'name'),
    imagePullSecrets: mapList(`${CORE}LocalObjectReference`, 'name'),
    hostAliases: mapList(`${CORE}HostAlias`, 'ip'),
    tolerations: atomicList(`${CORE}Toleration`),
    readinessGates: atomicList(`${CORE}PodReadinessGate`),
    topologySpreadConstraints: mapList(`${CORE}TopologySpreadConstraint`, 'topologyKey', {
      listMapKeys: ['topologyKey', 'whenUnsatisfiable'],
    }),
    schedulingGates: mapList(`${CORE}PodSchedulingGate`, 'name'),
    resourceClaims: mapList(`${CORE}PodResourceClaim`, 'name', { strategy: 'merge,retainKeys' }),
    nodeSelector: { atomic: true },
  },
  [`${CORE}Container`]: CONTAINER_FIELDS,
  [`${CORE}EphemeralContainer`]: CONTAINER_FIELDS,
  [`${CORE}Volume`]: {},
  [`${CORE}PodStatus`]: {
    conditions: conditions(`${CORE}PodCondition`),
    podIPs: mapList(`${CORE}PodIP`, 'ip'),
    hostIPs: mapList(`${CORE}HostIP`, 'ip'),
    containerStatuses: atomicList(`${CORE}ContainerStatus`),
    initContainerStatuses: atomicList(`${CORE}ContainerStatus`),
    ephemeralContainerStatuses: atomicList(`${CORE}ContainerStatus`),
  },
  [`${CORE}Pod`]: withMeta({ spec: { type: `${CORE}PodSpec` }, status: { type: `${CORE}PodStatus` } }),
  [`${CORE}Node`]: withMeta({ spec: { type: `${CORE}NodeSpec` }, status: { type: `${CORE}NodeStatus` } }),
  [`${CORE}NodeSpec`]: {
    podCIDRs: { list: true, strategy: 'merge', listType: 'set' },
    taints: atomicList(`${CORE}Taint`),
  },
  [`${CORE}NodeStatus`]: {
    conditions: conditions(`${CORE}NodeCondition`),
    // Duplicate address types are legal, so apply treats the list as a whole.
    addresses: {
      type: `${CORE}NodeAddress`,
      list: true,
      mergeKey: 'type',
      strategy: 'merge',
      listType: 'atomic',
    },
    images: atomicList(`${CORE}ContainerImage`),
    volumesAttached: atomicList(`${CORE}AttachedVolume`),
    volumesInUse: atomicList(),
  },
  [`${CORE}Service`]: withMeta({
    spec: { type: `${CORE}ServiceSpec` },
    status: { type: `${CORE}ServiceStatus` },
  }),
  [`${CORE}ServiceSpec`]: {
    ports: mapList(`${CORE}ServicePort`, 'port', { listMapKeys: ['port', 'protocol'] }),
    selector: { atomic: true },
    clusterIPs: atomicList(),
    externalIPs: atomicList(),
    ipFamilies: atomicList(),
  },
  [`${CORE}ServiceStatus`]: { conditions: conditions(`${META}Condition`) },
  [`${CORE}ServiceAccount`]: withMeta({
    secrets: mapList(`${CORE}ObjectReference`, 'name'),
    imagePullSecrets: atomicList(`${CORE}LocalObjectReference`),
  }),
  [`${CORE}Namespace`]: withMeta({ status: { type: `${CORE}NamespaceStatus` } }),
  [`${CORE}NamespaceStatus`]: { conditions: conditions(`${CORE}NamespaceCondition`) },
  [`${CORE}PersistentVolumeClaim`]: withMeta({
    spec: { type: `${CORE}PersistentVolumeClaimSpec` },
    status: { type: `${CORE}PersistentVolumeClaimStatus` },
  }),
  [`${CORE}PersistentVolumeClaimSpec`]: { accessModes: atomicList(), selector: { type: LABEL_SELECTOR } },
  [`${CORE}PersistentVolumeClaimStatus`]: {
    accessModes: atomicList(),
    conditions: conditions(`${CORE}PersistentVolumeClaimCondition`),
  },
  [`${CORE}ConfigMap`]: withMeta({}),
  [`${CORE}Secret`]: withMeta({}),
  [`${CORE}Event`]: withMeta({}),
  [`${CORE}Endpoints`]: withMeta({ subsets: atomicList(`${CORE}EndpointSubset`) }),

  [`${APPS}Deployment`]: withMeta({
    spec: { type: `${APPS}DeploymentSpec` },
    status: { type: `${APPS}DeploymentStatus` },
  }),
  [`${APPS}DeploymentSpec`]: {
    selector: { type: LABEL_SELECTOR, atomic: true },
    template: { type: POD_TEMPLATE },
    strategy: { type: `${APPS}DeploymentStrategy`, strategy: 'retainKeys' },
  },
  [`${APPS}DeploymentStatus`]: { conditions: conditions(`${APPS}DeploymentCondition`) },
  [`${APPS}ReplicaSet`]: withMeta({
    spec: { type: `${APPS}ReplicaSetSpec` },
    status: { type: `${APPS}ReplicaSetStatus` },
  }),
  [`${APPS}ReplicaSetSpec`]: {
    selector: { type: LABEL_SELECTOR, atomic: true },
    template: { type: POD_TEMPLATE },
  },
  [`${APPS}ReplicaSetStatus`]: { conditions: conditions(`${APPS}ReplicaSetCondition`) },
  [`${APPS}StatefulSet`]: withMeta({
    spec: { type: `${APPS}StatefulSetSpec` },
    status: { type: `${APPS}StatefulSetStatus` },
  }),
  [`${APPS}StatefulSetSpec`]: {
    selector: { type: LABEL_SELECTOR, atomic: true },
    template: { type: POD_TEMPLATE },
    volumeClaimTemplates: atomicList(`${CORE}PersistentVolumeClaim`),
  },
  [`${APPS}StatefulSetStatus`]: { conditions: conditions(`${APPS}StatefulSetCondition`) },
  [`${APPS}DaemonSet`]: withMeta({
    spec: { type: `${APPS}DaemonSetSpec` },
    status: { type: `${APPS}DaemonSetStatus` },
  }),
  [`${APPS}DaemonSetSpec`]: {
    selector: { type: LABEL_SELECTOR, atomic: true },
    template: { type: POD_TEMPLATE },
  },
  [`${APPS}DaemonSetStatus`]: { conditions: conditions(`${APPS}DaemonSetCondition`) },

  [`${BATCH}Job`]: withMeta({ spec: { type: `${BATCH}JobSpec` }, status: { type: `${BATCH}JobStatus` } }),
  [`${BATCH}JobSpec`]: { selector: { type: LABEL_SELECTOR, atomic: true }, template: { type: POD_TEMPLATE } },
  [`${BATCH}JobStatus`]: { conditions: { ...conditions(`${BATCH}JobCondition`), listType: 'atomic' } },
  [`${BATCH}JobTemplateSpec`]: withMeta({ spec: { type: `${BATCH}JobSpec` } }),
  [`${BATCH}CronJob`]: withMeta({
    spec: { type: `${BATCH}CronJobSpec` },
    status: { type: `${BATCH}CronJobStatus` },
  }),
  [`${BATCH}CronJobSpec`]: { jobTemplate: { type: `${BATCH}JobTemplateSpec` } },
  [`${BATCH}CronJobStatus`]: { active: atomicList(`${CORE}ObjectReference`) },

  [`${RBAC}Role`]: withMeta({ rules: atomicList(`${RBAC}PolicyRule`) }),
  [`${RBAC}ClusterRole`]: withMeta({ rules: atomicList(`${RBAC}PolicyRule`) }),
  [`${RBAC}RoleBinding`]: withMeta({ subjects: atomicList(`${RBAC}Subject`) }),
  [`${RBAC}ClusterRoleBinding`]: withMeta({ subjects: atomicList(`${RBAC}Subject`) }),
  'io.k8s.api.coordination.v1.Lease': withMeta({}),
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition': withMeta({}),
  'io.k8s.api.autoscaling.v1.Scale': withMeta({}),
};

/** `group/version/Kind` (core group empty: `/v1/Pod`) -> root type name in PATCH_SCHEMA. */
export const KIND_SCHEMA: Record<string, string> = {
  '/v1/Pod': `${CORE}Pod`,
  '/v1/Node': `${CORE}Node`,
  '/v1/Service': `${CORE}Service`,
  '/v1/ServiceAccount': `${CORE}ServiceAccount`,
  '/v1/Namespace': `${CORE}Namespace`,
  '/v1/PersistentVolumeClaim': `${CORE}PersistentVolumeClaim`,
  '/v1/ConfigMap': `${CORE}ConfigMap`,
  '/v1/Secret': `${CORE}Secret`,
  '/v1/Event': `${CORE}Event`,
  '/v1/Endpoints': `${CORE}Endpoints`,
  '/v1/PodTemplate': `${CORE}PodTemplateSpec`,
  'apps/v1/Deployment': `${APPS}Deployment`,
  'apps/v1/ReplicaSet': `${APPS}ReplicaSet`,
  'apps/v1/StatefulSet': `${APPS}StatefulSet`,
  'apps/v1/DaemonSet': `${APPS}DaemonSet`,
  'batch/v1/Job': `${BATCH}Job`,
  'batch/v1/CronJob': `${BATCH}CronJob`,
  'rbac.authorization.k8s.io/v1/Role': `${RBAC}Role`,
  'rbac.authorization.k8s.io/v1/ClusterRole': `${RBAC}ClusterRole`,
  'rbac.authorization.k8s.io/v1/RoleBinding': `${RBAC}RoleBinding`,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': `${RBAC}ClusterRoleBinding`,
  'coordination.k8s.io/v1/Lease': 'io.k8s.api.coordination.v1.Lease',
  'apiextensions.k8s.io/v1/CustomResourceDefinition':
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  'autoscaling/v1/Scale': 'io.k8s.api.autoscaling.v1.Scale',
};

/** Any object has ObjectMeta, even kinds the table does not know (custom resources). */
export const GENERIC_OBJECT = '__generic_object__';
PATCH_SCHEMA[GENERIC_OBJECT] = withMeta({});

export interface GVK {
  group: string;
  version: string;
  kind: string;
}

export function gvkKey(gvk: GVK): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

/** Root type name for a kind; unknown kinds get the generic object (metadata only). */
export function rootType(gvk: GVK): string {
  return KIND_SCHEMA[gvkKey(gvk)] ?? GENERIC_OBJECT;
}

/** Metadata of `field` inside a value of type `type` (empty when nothing is declared). */
export function fieldSchema(type: string | undefined, field: string): FieldSchema {
  if (!type) return {};
  return PATCH_SCHEMA[type]?.[field] ?? {};
}

/** Server-side apply list semantics: explicit listType, else derived from the patch strategy. */
export function listSemantics(f: FieldSchema): { kind: 'atomic' | 'set' | 'map'; keys: string[] } {
  if (f.listType === 'map') return { kind: 'map', keys: f.listMapKeys ?? (f.mergeKey ? [f.mergeKey] : []) };
  if (f.listType) return { kind: f.listType, keys: [] };
  if (f.strategy?.startsWith('merge')) {
    return f.mergeKey ? { kind: 'map', keys: [f.mergeKey] } : { kind: 'set', keys: [] };
  }
  return { kind: 'atomic', keys: [] };
}

export interface ListMetadata {
  mergeKey?: string;
  strategy?: PatchStrategy;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
}

function flatten(type: string, prefix: string, out: Record<string, ListMetadata>, depth: number): void {
  if (depth > 12) return;
  for (const [name, f] of Object.entries(PATCH_SCHEMA[type] ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (f.list && (f.strategy || f.listType)) {
      const entry: ListMetadata = {};
      if (f.mergeKey) entry.mergeKey = f.mergeKey;
      if (f.strategy) entry.strategy = f.strategy;
      if (f.listType) entry.listType = f.listType;
      if (f.listMapKeys) entry.listMapKeys = f.listMapKeys;
      out[path] = entry;
    } else if (f.strategy) {
      out[path] = { strategy: f.strategy };
    }
    if (f.type) flatten(f.type, f.list ? `${path}[]` : path, out, depth + 1);
  }
}

/**
 * The strategic-merge list metadata per kind, flattened to paths: `MERGE_KEYS['apps/v1/Deployment']
 * ['spec.template.spec.containers'] = { mergeKey: 'name', strategy: 'merge', ... }`; `[]` marks list items
 * (`spec.template.spec.containers[].env`). Derived from PATCH_SCHEMA, which is keyed by Go-style type name.
 */
export const MERGE_KEYS: Record<string, Record<string, ListMetadata>> = Object.fromEntries(
  Object.entries(KIND_SCHEMA).map(([key, type]) => {
    const out: Record<string, ListMetadata> = {};
    flatten(type, '', out, 0);
    return [key, out];
  }),
);
