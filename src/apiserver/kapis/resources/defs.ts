// The resource types resources.kubesphere.io/v1alpha3 serves: where each lives in the orchestrator, how it sorts,
// which per-kind filters it has (beyond the ObjectMeta filters every type has), and how an item is presented.
import type { IndexFunc, KubeObject, ResourceRef } from '../../cluster/index.ts';
import { daemonSetStatus, nodeStatus, podStatus, workloadStatus } from './status.ts';

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
  /** Removes what must never be served (Secret values). */
  redact?: (obj: KubeObject) => KubeObject;
}

const SORT_FIELDS = ['creationTimestamp', 'createTime', 'name'] as const;

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

function def(
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

export const RESOURCES: readonly ResourceDef[] = [
  def('nodes', '', 'v1', false, { status: STATUS_NODE }),
  def('namespaces', '', 'v1', false),
  def('pods', '', 'v1', true, {
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
  }),
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
  def('events', '', 'v1', true),
  def('deployments', 'apps', 'v1', true, { status: STATUS_WORKLOAD }),
  def('statefulsets', 'apps', 'v1', true, { status: STATUS_WORKLOAD }),
  def('daemonsets', 'apps', 'v1', true, { status: STATUS_DAEMONSET }),
  def('replicasets', 'apps', 'v1', true),
  def('jobs', 'batch', 'v1', true),
  def('cronjobs', 'batch', 'v1', true),
  def('ingresses', 'networking.k8s.io', 'v1', true),
  def('storageclasses', 'storage.k8s.io', 'v1', false),
  def('customresourcedefinitions', 'apiextensions.k8s.io', 'v1', false),
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
