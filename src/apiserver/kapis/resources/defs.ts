// The resource types resources.kubesphere.io/v1alpha3 serves: where each lives in the orchestrator, how it sorts,
// which per-kind filters it has (beyond the ObjectMeta filters every type has), and how an item is presented.
import type { IndexFunc, KubeObject, ResourceRef } from '../../cluster/index.ts';
import { withoutCredentials } from '../../iam/user-credentials.ts';
import { jobUpdateTime, podStartTime, workloadUpdateTime } from './sorting.ts';
import { daemonSetStatus, nodeStatus, podStatus, workloadStatus } from './status.ts';

/** A sort key of an object (a time in ms since the epoch). */
export type SortKey = (obj: KubeObject) => number;

/** A per-kind filter answered from a lazily built informer index (`fold`: case-insensitive values). */
export interface IndexedFilter {
  index: string;
  fn: IndexFunc;
  fold?: boolean;
}

export interface ResourceDef {
  /** Plural as it appears in the URL. */
  name: string;
  ref: ResourceRef;
  namespaced: boolean;
  /** sortBy values; the first is the default. */
  sortFields: readonly string[];
  indexedFilters: Record<string, IndexedFilter>;
  /** Sorts by something else than creation time or name (sortBy -> the object's key, ms); listed in sortFields. */
  sorters?: Record<string, SortKey>;
  /** Removes what must never be served (Secret values, User credentials). */
  redact?: (obj: KubeObject) => KubeObject;
  /**
   * Served only when the orchestrator's discovery lists it (KubeSphere's own CRDs, optional APIs); its informer starts
   * on first use. The others are always there and start at boot.
   */
  optional?: boolean;
  /**
   * Always served, but its informer starts on first use instead of at boot: its objects are many and rarely listed
   * here (Events: several per pod, most of the cache's memory), so a server nobody asks for them does not hold them.
   */
  onDemand?: boolean;
}

export const SORT_FIELDS = ['creationTimestamp', 'createTime', 'name'] as const;

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' ? (v as Rec) : {});
const str = (v: unknown): string[] => (typeof v === 'string' && v !== '' ? [v] : []);

const STATUS_NODE: IndexedFilter = { index: 'kapis:status', fn: (o) => [nodeStatus(o)] };
const STATUS_POD: IndexedFilter = { index: 'kapis:status', fn: (o) => [podStatus(o)] };
const STATUS_WORKLOAD: IndexedFilter = { index: 'kapis:status', fn: (o) => [workloadStatus(o)] };
const STATUS_DAEMONSET: IndexedFilter = { index: 'kapis:status', fn: (o) => [daemonSetStatus(o)] };

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Secret values are never served: data, stringData, and kubectl's last-applied copy (which contains them). */
export function redactSecret(obj: KubeObject): KubeObject {
  delete obj.data;
  delete obj.stringData;
  const ann = obj.metadata?.annotations;
  if (ann && LAST_APPLIED in ann) delete ann[LAST_APPLIED];
  return obj;
}

/** Users never show a credential (KubeSphere's v1alpha3 getter returns the bcrypt hash). */
export function redactUser(obj: KubeObject): KubeObject {
  return withoutCredentials(obj) as KubeObject;
}

/** A FederatedSecret's template is a Secret (its per-cluster overrides may carry values too). */
function redactFederatedSecret(obj: KubeObject): KubeObject {
  const spec = rec(obj.spec);
  if (spec.template) redactSecret(rec(spec.template) as KubeObject);
  delete spec.overrides;
  return redactSecret(obj);
}

/** A type's definition: plural `name` of group/version, the common sorts, the given filters and extras. */
export function def(
  name: string,
  group: string,
  version: string,
  namespaced: boolean,
  indexedFilters: Record<string, IndexedFilter> = {},
  extra: Partial<ResourceDef> = {},
): ResourceDef {
  return {
    name,
    ref: { group, version, resource: name },
    namespaced,
    sortFields: SORT_FIELDS,
    indexedFilters,
    ...extra,
  };
}

const RBAC = 'rbac.authorization.k8s.io';
const SNAPSHOT = 'snapshot.storage.k8s.io';
const IAM = 'iam.kubesphere.io';
const NOTIFICATION = 'notification.kubesphere.io';
const FEDERATED = [
  'federatednamespaces',
  'federateddeployments',
  'federatedconfigmaps',
  'federatedservices',
  'federatedapplications',
  'federatedpersistentvolumeclaims',
  'federatedstatefulsets',
  'federatedingresses',
];

type OptionalDef = [name: string, group: string, version: string, namespaced: boolean];
const optional = (defs: OptionalDef[]): ResourceDef[] =>
  defs.map(([name, group, version, namespaced]) =>
    def(name, group, version, namespaced, {}, { optional: true }),
  );

/** Extra sorts of a type: its sortFields are the common ones and these. */
function sortedBy(sorters: Record<string, SortKey>): Partial<ResourceDef> {
  return { sorters, sortFields: [...SORT_FIELDS, ...Object.keys(sorters)] };
}
const UPDATE_TIME = sortedBy({ updateTime: workloadUpdateTime, lastUpdateTimestamp: workloadUpdateTime });

export const RESOURCES: readonly ResourceDef[] = [
  def('nodes', '', 'v1', false, { status: STATUS_NODE }),
  def('namespaces', '', 'v1', false),
  def(
    'pods',
    '',
    'v1',
    true,
    {
      status: STATUS_POD,
      phase: { index: 'kapis:phase', fn: (o) => str(rec(o.status).phase) },
      nodeName: { index: 'kapis:nodeName', fn: (o) => str(rec(o.spec).nodeName) },
      pvcName: {
        index: 'kapis:pvcName',
        fn: (o) => {
          const vols = rec(o.spec).volumes;
          return Array.isArray(vols)
            ? vols.flatMap((v) => str(rec(rec(v).persistentVolumeClaim).claimName))
            : [];
        },
      },
    },
    sortedBy({ startTime: podStartTime }),
  ),
  def('services', '', 'v1', true),
  def('configmaps', '', 'v1', true),
  def(
    'secrets',
    '',
    'v1',
    true,
    { type: { index: 'kapis:type', fn: (o) => str(o.type) } },
    { redact: redactSecret },
  ),
  def('serviceaccounts', '', 'v1', true),
  def('persistentvolumeclaims', '', 'v1', true, {
    status: {
      index: 'kapis:phase',
      fn: (o) => str(rec(o.status).phase).map((s) => s.toLowerCase()),
      fold: true,
    },
    storageClassName: { index: 'kapis:storageClassName', fn: (o) => str(rec(o.spec).storageClassName) },
  }),
  def('persistentvolumes', '', 'v1', false),
  def('events', '', 'v1', true, {}, { onDemand: true }),
  def('deployments', 'apps', 'v1', true, { status: STATUS_WORKLOAD }, UPDATE_TIME),
  def('statefulsets', 'apps', 'v1', true, { status: STATUS_WORKLOAD }, UPDATE_TIME),
  def('daemonsets', 'apps', 'v1', true, { status: STATUS_DAEMONSET }, UPDATE_TIME),
  def('replicasets', 'apps', 'v1', true),
  def('jobs', 'batch', 'v1', true, {}, sortedBy({ updateTime: jobUpdateTime })),
  def('cronjobs', 'batch', 'v1', true),
  def('ingresses', 'networking.k8s.io', 'v1', true),
  def('storageclasses', 'storage.k8s.io', 'v1', false),
  def('customresourcedefinitions', 'apiextensions.k8s.io', 'v1', false),
  def('roles', RBAC, 'v1', true),
  def('rolebindings', RBAC, 'v1', true),
  def('clusterroles', RBAC, 'v1', false),
  def('clusterrolebindings', RBAC, 'v1', false),
  ...optional([
    ['networkpolicies', 'networking.k8s.io', 'v1', true],
    ['applications', 'app.k8s.io', 'v1beta1', true],
    ['volumesnapshots', SNAPSHOT, 'v1', true],
    ['volumesnapshotclasses', SNAPSHOT, 'v1', false],
    ['volumesnapshotcontents', SNAPSHOT, 'v1', false],
    ['ippools', 'network.kubesphere.io', 'v1alpha1', false],
    ['dashboards', 'monitoring.kubesphere.io', 'v1alpha2', true],
    ['clusterdashboards', 'monitoring.kubesphere.io', 'v1alpha2', false],
    ['devopsprojects', 'devops.kubesphere.io', 'v1alpha3', false],
    ['workspaces', 'tenant.kubesphere.io', 'v1alpha1', false],
    ['workspacetemplates', 'tenant.kubesphere.io', 'v1alpha2', false],
    ['globalroles', IAM, 'v1alpha2', false],
    ['globalrolebindings', IAM, 'v1alpha2', false],
    ['workspaceroles', IAM, 'v1alpha2', false],
    ['workspacerolebindings', IAM, 'v1alpha2', false],
    ['loginrecords', IAM, 'v1alpha2', false],
    ['groups', IAM, 'v1alpha2', false],
    ['groupbindings', IAM, 'v1alpha2', false],
    ['clusters', 'cluster.kubesphere.io', 'v1alpha1', false],
    ['notificationmanagers', NOTIFICATION, 'v2beta2', false],
    ['configs', NOTIFICATION, 'v2beta2', false],
    ['receivers', NOTIFICATION, 'v2beta2', false],
    ['routers', NOTIFICATION, 'v2beta2', false],
    ['silences', NOTIFICATION, 'v2beta2', false],
    ...FEDERATED.map((name): OptionalDef => [name, 'types.kubefed.io', 'v1beta1', true]),
  ]),
  def(
    'federatedsecrets',
    'types.kubefed.io',
    'v1beta1',
    true,
    {},
    {
      optional: true,
      redact: redactFederatedSecret,
    },
  ),
  def('users', IAM, 'v1alpha2', false, {}, { optional: true, redact: redactUser }),
];

export const RESOURCE_BY_NAME: ReadonlyMap<string, ResourceDef> = new Map(RESOURCES.map((r) => [r.name, r]));

// ObjectMeta-based indexes every type may use, built on first use.
export const OWNER_UID_INDEX: IndexedFilter = {
  index: 'kapis:ownerUid',
  fn: (o) => (o.metadata?.ownerReferences ?? []).flatMap((r) => str(r.uid)),
};
export const OWNER_KIND_INDEX: IndexedFilter = {
  index: 'kapis:ownerKind',
  fn: (o) => (o.metadata?.ownerReferences ?? []).flatMap((r) => str(r.kind)),
};
/** Annotation keys (not values: kubectl's last-applied copy of a Secret must not become a filter oracle). */
export const ANNOTATION_KEY_INDEX: IndexedFilter = {
  index: 'kapis:annotationKeys',
  fn: (o) => Object.keys(o.metadata?.annotations ?? {}),
};
export const ALIAS_ANNOTATION = 'kubesphere.io/alias-name';
export const PROTECTED_ANNOTATIONS = new Set([LAST_APPLIED]);
