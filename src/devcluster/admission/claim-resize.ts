// kube's PersistentVolumeClaimResize admission plugin: a claim's storage request may grow only when the claim keeps
// its class and that StorageClass allows expansion. (The plugin's "only bound claims" refusal cannot be reached
// here: validation refuses any change of an unbound claim's request first, with 422, as in kube.)
import { parseQuantity, ZERO } from '../../k8s/quantity.ts';
import { isObj } from '../meta.ts';
import type { Obj, Store } from '../store.ts';
import { claimClass } from './default-storage-class.ts';

const storageOf = (claim: Obj): bigint => {
  const requests = ((claim.spec as Obj | undefined)?.resources as Obj | undefined)?.requests;
  return ((isObj(requests) ? parseQuantity(requests.storage) : undefined) ?? ZERO).nano;
};

/** Why growing claim `o` (stored as `old`) is refused, or undefined. */
export function claimResizeRefusal(store: Store, res: string, o: Obj, old: Obj): string | undefined {
  if (res !== '/persistentvolumeclaims' || storageOf(o) <= storageOf(old)) return undefined;
  const name = claimClass(o);
  const sc =
    name && name === claimClass(old) ? store.get('storage.k8s.io/storageclasses', '', name) : undefined;
  if (sc?.obj.allowVolumeExpansion === true) return undefined;
  return 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';
}
