// kube's StorageObjectInUseProtection admission plugin: every new claim and volume gets its protection finalizer,
// which the protection controllers (controllers/storage-protection.ts) lift once nothing uses the object.
import { metaOf } from '../meta.ts';
import type { Obj } from '../store.ts';

export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION = 'kubernetes.io/pv-protection';

/** Adds `finalizer` to the object's finalizers unless present. */
export function addFinalizer(o: Obj, finalizer: string): void {
  const meta = metaOf(o);
  const list = Array.isArray(meta.finalizers) ? (meta.finalizers as unknown[]) : [];
  if (!list.includes(finalizer)) meta.finalizers = [...list, finalizer];
}
