// kube-scheduler's VolumeBinding plugin for the simulated scheduler. PreFilter: a pod whose claim is missing, being
// deleted or unbound in an Immediate class is unschedulable everywhere. Filter: a bound claim's volume must admit the
// node by its node affinity; an unbound WaitForFirstConsumer claim needs an Available volume that fits on the node
// or a class that provisions. Reserve/PreBind: on the chosen node each such claim gets a pre-bound volume (its
// claimRef) or the `volume.kubernetes.io/selected-node` annotation its provisioner waits for; the pod is bound once
// the PV controller has bound every claim.
import type { ControllerContext } from '../controllers/framework.ts';
import { claimRefOf } from '../controllers/local-path-provisioner.ts';
import { claimBound, claimStorageClass, SELECTED_NODE } from '../controllers/persistentvolume.ts';
import { claimNamesOf } from '../controllers/storage-protection.ts';
import { findMatchingVolume, volumeNodeFits } from '../controllers/volume-match.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj } from '../store.ts';

const CLAIMS = '/persistentvolumeclaims';
const VOLUMES = '/persistentvolumes';
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

export interface PodVolumes {
  /** The volumes of the pod's bound claims. */
  bound: Obj[];
  /** The pod's unbound claims whose binding waits for it (WaitForFirstConsumer). */
  delayed: Entry[];
  /** Delayed claims already given their node or volume (by an earlier attempt): the PV controller binds them. */
  assumed: Set<string>;
  /** Whether every delayed claim is assumed: the pod waits for the PV controller. */
  inFlight: boolean;
  /** Every stored volume, read once per scheduling attempt (the filter runs for each node). */
  volumes: Entry[];
}

const uidOf = (o: Obj) => String((o.metadata as Obj).uid ?? '');
const annotationsOf = (o: Obj): Obj => {
  const a = (o.metadata as Obj).annotations;
  return isObj(a) ? a : {};
};

/** The volume pre-bound to the claim by its uid (by an earlier Reserve), if any. */
const preBoundVolume = (volumes: Entry[], claim: Obj) =>
  volumes.find((v) => ((v.obj.spec as Obj | undefined)?.claimRef as Obj | undefined)?.uid === uidOf(claim));

/**
 * PreFilter: the pod's claims (undefined when it uses none), or the reason no node can take it, in kube's words.
 */
export function podVolumes(ctx: ControllerContext, pod: Obj): PodVolumes | string | undefined {
  const names = claimNamesOf(pod);
  if (names.length === 0) return undefined;
  const ns = String((pod.metadata as Obj).namespace);
  const out: PodVolumes = {
    bound: [],
    delayed: [],
    assumed: new Set(),
    inFlight: false,
    volumes: ctx.store.list(VOLUMES),
  };
  for (const name of new Set(names)) {
    const claim = ctx.store.get(CLAIMS, ns, name);
    if (!claim) return `persistentvolumeclaim "${name}" not found`;
    if ((claim.obj.metadata as Obj).deletionTimestamp)
      return `persistentvolumeclaim "${name}" is being deleted`;
    if (claimBound(claim.obj)) {
      const volumeName = String((claim.obj.spec as Obj).volumeName);
      const pv = ctx.store.get(VOLUMES, '', volumeName);
      if (!pv) return `persistentvolume "${volumeName}" not found`;
      out.bound.push(pv.obj);
    } else if (claimStorageClass(ctx, claim.obj).delay) {
      out.delayed.push(claim);
      if (annotationsOf(claim.obj)[SELECTED_NODE] || preBoundVolume(out.volumes, claim.obj))
        out.assumed.add(name);
    } else return 'pod has unbound immediate PersistentVolumeClaims';
  }
  // A partial set (a write between two claims' failed) is assumed again for the rest.
  out.inFlight = out.delayed.length > 0 && out.assumed.size === out.delayed.length;
  return out;
}

/** Filter: why the node cannot take the pod's volumes, or undefined. */
export function volumeMisfit(ctx: ControllerContext, vols: PodVolumes, node: Obj): string | undefined {
  if (vols.bound.some((pv) => !volumeNodeFits(pv, node))) return 'node(s) had volume node affinity conflict';
  for (const claim of vols.delayed) {
    if (findMatchingVolume(claim.obj, vols.volumes, true, node)) continue;
    const { sc } = claimStorageClass(ctx, claim.obj);
    if (!sc || sc.provisioner === NO_PROVISIONER)
      return "node(s) didn't find available persistent volumes to bind";
  }
  return undefined;
}

/**
 * Reserve and PreBind on `node`: each delayed claim gets the smallest fitting volume pre-bound to it, or, to be
 * provisioned, the selected-node annotation.
 */
export function assumeVolumes(ctx: ControllerContext, vols: PodVolumes, node: Obj, scheduler: string): void {
  const nodeName = String((node.metadata as Obj).name);
  const taken = new Set<string>();
  for (const claim of vols.delayed) {
    if (vols.assumed.has(claim.name)) continue;
    const match = findMatchingVolume(
      claim.obj,
      ctx.store.list(VOLUMES).filter((v) => !taken.has(v.name)),
      true,
      node,
    );
    if (match) {
      taken.add(match.name);
      const next = structuredClone(match.obj);
      (next.metadata as Obj).annotations = {
        ...annotationsOf(match.obj),
        'pv.kubernetes.io/bound-by-controller': 'yes',
      };
      (next.spec as Obj).claimRef = claimRefOf(claim.obj);
      writeAsScheduler(ctx, 'persistentvolumes', match, next, scheduler);
      continue;
    }
    const next = structuredClone(claim.obj);
    (next.metadata as Obj).annotations = { ...annotationsOf(claim.obj), [SELECTED_NODE]: nodeName };
    writeAsScheduler(ctx, 'persistentvolumeclaims', claim, next, scheduler);
  }
}

/** Replaces an object as the scheduler (its managedFields name it), guarded by the version it was derived from. */
function writeAsScheduler(ctx: ControllerContext, res: string, e: Entry, next: Obj, scheduler: string): void {
  const meta = { ...(next.metadata as Obj), resourceVersion: String(e.rv) };
  ctx.rest.update(ctx.def('', res), e.ns, e.name, { ...next, metadata: meta }, { fieldManager: scheduler });
}
