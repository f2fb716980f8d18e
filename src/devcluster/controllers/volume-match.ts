// Which PersistentVolume may back a claim, as kube's FindMatchingVolume and checkVolumeSatisfyClaim decide it (the
// PV controller and kube-scheduler's VolumeBinding plugin share it): volumeMode equal, not being deleted, node
// affinity met (scheduler path), pre-bound to the claim first, else Available, unclaimed, matching the claim's
// selector and class, access modes a superset of the claim's, capacity >= its request; the smallest such volume.
import { parseQuantity, ZERO } from '../../k8s/quantity.ts';
import { claimClass } from '../admission/default-storage-class.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj } from '../store.ts';
import { nodeSelected } from './node-fit.ts';
import { selectorMatches } from './pods.ts';

const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** The claim's storage request. */
export const requestOf = (claim: Obj) =>
  parseQuantity(((specOf(claim).resources as Obj | undefined)?.requests as Obj | undefined)?.storage) ?? ZERO;
/** The volume's capacity. */
export const capacityOf = (pv: Obj) =>
  parseQuantity((specOf(pv).capacity as Obj | undefined)?.storage) ?? ZERO;

const modeOf = (spec: Obj) => String(spec.volumeMode ?? 'Filesystem');

/** Whether the volume offers every access mode the claim asks for. */
const accessModesFit = (claim: Obj, pv: Obj) => {
  const offered = strings(specOf(pv).accessModes);
  return strings(specOf(claim).accessModes).every((m) => offered.includes(m));
};

/** Whether the volume's claimRef names this claim (uid too, once set). */
export function boundToClaim(pv: Obj, claim: Obj): boolean {
  const ref = specOf(pv).claimRef;
  const meta = claim.metadata as Obj;
  return (
    isObj(ref) &&
    ref.name === meta.name &&
    ref.namespace === meta.namespace &&
    (!ref.uid || ref.uid === meta.uid)
  );
}

/** Whether the volume's required node affinity admits the node (no affinity: every node). */
export function volumeNodeFits(pv: Obj, node: Obj): boolean {
  const required = (specOf(pv).nodeAffinity as Obj | undefined)?.required;
  if (!isObj(required)) return true;
  return nodeSelected(
    { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } },
    node,
  );
}

/**
 * kube's FindMatchingVolume. Without a node (the PV controller), a claim whose binding waits for its first consumer
 * (`delayBinding`) matches only a volume pre-bound to it.
 */
export function findMatchingVolume(
  claim: Obj,
  volumes: Entry[],
  delayBinding: boolean,
  node?: Obj,
): Entry | undefined {
  const request = requestOf(claim).nano;
  const selector = specOf(claim).selector;
  const wanted = claimClass(claim);
  let best: Entry | undefined;
  for (const v of volumes) {
    const pv = v.obj;
    if (modeOf(specOf(pv)) !== modeOf(specOf(claim)) || (pv.metadata as Obj).deletionTimestamp) continue;
    const nodeOk = !node || volumeNodeFits(pv, node);
    if (boundToClaim(pv, claim)) {
      if (capacityOf(pv).nano < request) continue;
      return nodeOk ? v : undefined;
    }
    if (!node && delayBinding) continue;
    if ((pv.status as Obj | undefined)?.phase !== 'Available' || isObj(specOf(pv).claimRef)) continue;
    if (
      isObj(selector) &&
      Object.keys(selector).length > 0 &&
      !selectorMatches(selector, (pv.metadata as Obj).labels)
    )
      continue;
    if (claimClass(pv) !== wanted || !nodeOk || !accessModesFit(claim, pv)) continue;
    const size = capacityOf(pv).nano;
    if (size >= request && (!best || capacityOf(best.obj).nano > size)) best = v;
  }
  return best;
}

/** kube's checkVolumeSatisfyClaim, for a claim naming its volume: the reason it does not fit, or undefined. */
export function volumeMismatch(claim: Obj, pv: Obj): string | undefined {
  if (capacityOf(pv).nano < requestOf(claim).nano) return 'requested PV is too small';
  if (claimClass(pv) !== claimClass(claim)) return 'storageClassName does not match';
  if (modeOf(specOf(pv)) !== modeOf(specOf(claim))) return 'incompatible volumeMode';
  if (!accessModesFit(claim, pv)) return 'incompatible accessMode';
  return undefined;
}
