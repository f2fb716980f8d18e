// kube's DefaultStorageClass admission plugin: a new claim that names no class (spec.storageClassName absent, not
// "", and no beta class annotation) gets the default StorageClass, the newest when several are marked default.
// It runs before ResourceQuota, so a per-class quota charges the defaulted class.
import { isObj } from '../meta.ts';
import type { Obj, Store } from '../store.ts';
import { BETA_STORAGE_CLASS } from '../strategy/storage.ts';

export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const BETA_DEFAULT_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

const isDefault = (sc: Obj): boolean => {
  const a = (sc.metadata as Obj | undefined)?.annotations;
  return isObj(a) && (a[DEFAULT_CLASS_ANNOTATION] === 'true' || a[BETA_DEFAULT_ANNOTATION] === 'true');
};

/** kube's GetDefaultClass: of the classes marked default, the newest (then by name), or undefined. */
export function defaultStorageClass(store: Store): string | undefined {
  const defaults = store
    .list('storage.k8s.io/storageclasses')
    .filter((e) => isDefault(e.obj))
    .map((e) => ({ name: e.name, created: String((e.obj.metadata as Obj).creationTimestamp ?? '') }))
    .sort((a, b) =>
      a.created === b.created ? a.name.localeCompare(b.name) : a.created < b.created ? 1 : -1,
    );
  return defaults[0]?.name;
}

/**
 * kube's GetPersistentVolumeClaimClass (and GetPersistentVolumeClass, the same for a volume): the beta annotation,
 * else spec.storageClassName, else "".
 */
export function claimClass(o: Obj): string {
  const annotations = (o.metadata as Obj | undefined)?.annotations;
  const beta = isObj(annotations) ? annotations[BETA_STORAGE_CLASS] : undefined;
  if (typeof beta === 'string') return beta;
  const name = (o.spec as Obj | undefined)?.storageClassName;
  return typeof name === 'string' ? name : '';
}

/** Sets the default class on claim `o` when it names none. */
export function applyDefaultStorageClass(store: Store, o: Obj): void {
  const spec = isObj(o.spec) ? o.spec : undefined;
  if (!spec || spec.storageClassName !== undefined) return;
  const annotations = (o.metadata as Obj | undefined)?.annotations;
  if (isObj(annotations) && annotations[BETA_STORAGE_CLASS] !== undefined) return;
  const name = defaultStorageClass(store);
  if (name) spec.storageClassName = name;
}
