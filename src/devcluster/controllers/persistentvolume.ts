// kube-controller-manager's PersistentVolume controller (the binder) with the dev cluster's provisioner beside it.
// Claims: a claim binds the smallest Available volume that fits (controllers/volume-match.ts) or the volume it names;
// failing that, a claim of a class whose provisioner is ours gets a volume provisioned (an Immediate class at once, a
// WaitForFirstConsumer class once the scheduler annotated the claim with its selected node); a bound claim whose
// volume is gone is Lost; a bound claim that grew gets its volume's capacity raised (expansion is simulated).
// Volumes: unclaimed ones are Available, a volume whose claim is gone is Released and then reclaimed by its policy
// (Delete removes a volume we provisioned, Retain keeps it Released). Every step is a guarded write that is skipped
// when already done, so a restart between two writes (a volume created, its claim not yet updated) converges.
import { formatQuantity } from '../../k8s/quantity.ts';
import { StatusError } from '../../k8s/status.ts';
import { claimClass } from '../admission/default-storage-class.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj, StoreEvent } from '../store.ts';
import { recordEvent } from './events.ts';
import {
  type Controller,
  type ControllerContext,
  objectKey,
  splitKey,
  timestamp,
  writeObject,
  writeStatus,
} from './framework.ts';
import {
  claimRefOf,
  LOCAL_PATH_PROVISIONER,
  PROVISIONED_BY,
  provisionedVolume,
} from './local-path-provisioner.ts';
import { boundToClaim, capacityOf, findMatchingVolume, requestOf, volumeMismatch } from './volume-match.ts';

const CLAIMS = '/persistentvolumeclaims';
const VOLUMES = '/persistentvolumes';
const CLASSES = 'storage.k8s.io/storageclasses';
const COMPONENT = 'persistentvolume-controller';

export const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
const BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
const STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
const BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});
const statusOf = (o: Obj): Obj => (isObj(o.status) ? o.status : {});
const annotationsOf = (o: Obj): Record<string, string> => {
  const a = (o.metadata as Obj | undefined)?.annotations;
  return isObj(a) ? (a as Record<string, string>) : {};
};
const uidOf = (o: Obj) => String((o.metadata as Obj).uid ?? '');

/** The StorageClass of a claim, and whether its binding waits for the first consumer (kube's IsDelayBindingMode). */
export function claimStorageClass(
  ctx: ControllerContext,
  claim: Obj,
): { name: string; sc?: Obj; delay: boolean } {
  const name = claimClass(claim);
  const sc = name ? ctx.store.get(CLASSES, '', name)?.obj : undefined;
  return { name, sc, delay: sc?.volumeBindingMode === 'WaitForFirstConsumer' };
}

/** Whether a claim is bound (kube's bind-completed annotation with a volume name). */
export const claimBound = (claim: Obj): boolean =>
  annotationsOf(claim)[BIND_COMPLETED] === 'yes' && Boolean(specOf(claim).volumeName);

function withAnnotations(o: Obj, add: Record<string, string>): Obj {
  const next = structuredClone(o);
  const meta = next.metadata as Obj;
  meta.annotations = { ...annotationsOf(o), ...add };
  return next;
}

/** The phase (and message) of a claim or volume, with the time of a volume's phase change. */
function setPhase(ctx: ControllerContext, res: string, e: Entry, phase: string, message?: string): Entry {
  const status: Obj = { ...statusOf(e.obj), phase };
  if (message) status.message = message;
  else delete status.message;
  if (res === VOLUMES && statusOf(e.obj).phase !== phase)
    status.lastPhaseTransitionTime = timestamp(ctx.now());
  return writeStatus(
    ctx,
    ctx.def('', res === VOLUMES ? 'persistentvolumes' : 'persistentvolumeclaims'),
    e,
    status,
  );
}

/**
 * Binds volume and claim both ways, each half skipped when done: the volume's claimRef and phase Bound, then the
 * claim's volumeName, bind annotations and status (phase Bound, the volume's capacity and access modes).
 */
function bind(ctx: ControllerContext, pvEntry: Entry, claimEntry: Entry): void {
  const claim = claimEntry.obj;
  let pv = pvEntry;
  const ref = specOf(pv.obj).claimRef;
  if (!isObj(ref) || !ref.uid) {
    const next = isObj(ref)
      ? structuredClone(pv.obj)
      : withAnnotations(pv.obj, { [BOUND_BY_CONTROLLER]: 'yes' });
    (next.spec as Obj).claimRef = claimRefOf(claim);
    pv = writeObject(ctx, ctx.def('', 'persistentvolumes'), pv, next);
  }
  if (statusOf(pv.obj).phase !== 'Bound') pv = setPhase(ctx, VOLUMES, pv, 'Bound');

  const add: Record<string, string> = { [BIND_COMPLETED]: 'yes' };
  if (!specOf(claim).volumeName) add[BOUND_BY_CONTROLLER] = 'yes';
  const next = withAnnotations(claim, add);
  (next.spec as Obj).volumeName = pv.name;
  const claims = ctx.def('', 'persistentvolumeclaims');
  const written = writeObject(ctx, claims, claimEntry, next);
  const pvSpec = specOf(pv.obj);
  writeStatus(ctx, claims, written, {
    ...statusOf(written.obj),
    phase: 'Bound',
    accessModes: pvSpec.accessModes,
    capacity: { ...(pvSpec.capacity as Obj) },
  });
}

export function persistentVolumeControllers(): Controller[] {
  /** Claims told once that they wait for a consumer. */
  const toldWaiting = new Set<string>();

  const pendingClaims = (ctx: ControllerContext, className?: string): string[] =>
    ctx.store
      .list(CLAIMS)
      .filter(
        (c) => !specOf(c.obj).volumeName && (className === undefined || claimClass(c.obj) === className),
      )
      .map((c) => objectKey(c.ns, c.name));

  const claimKeysOfVolume = (ev: StoreEvent, ctx: ControllerContext): string[] => {
    const out = new Set<string>();
    for (const o of [ev.obj, ev.prev]) {
      const ref = o && specOf(o).claimRef;
      if (isObj(ref) && typeof ref.name === 'string')
        out.add(objectKey(String(ref.namespace ?? ''), ref.name));
    }
    // A volume that became Available may be the one a pending claim waits for.
    if (
      ev.type !== 'DELETED' &&
      statusOf(ev.obj).phase === 'Available' &&
      statusOf(ev.prev ?? {}).phase !== 'Available'
    )
      for (const k of pendingClaims(ctx)) out.add(k);
    return [...out];
  };

  const claimController: Controller = {
    name: 'persistentvolume-binder',
    watches: [
      { res: CLAIMS, keys: (ev) => (ev.type === 'DELETED' ? [] : [objectKey(ev.ns, ev.name)]) },
      { res: VOLUMES, keys: claimKeysOfVolume },
      { res: CLASSES, keys: (ev, ctx) => (ev.type === 'ADDED' ? pendingClaims(ctx, ev.name) : []) },
    ],
    reconcile(key, ctx) {
      const { ns, name } = splitKey(key);
      const e = ctx.store.get(CLAIMS, ns, name);
      if (!e) return undefined;
      if (annotationsOf(e.obj)[BIND_COMPLETED] === 'yes') syncBoundClaim(ctx, e);
      else syncUnboundClaim(ctx, e, toldWaiting);
      return undefined;
    },
  };

  const volumeController: Controller = {
    name: 'persistentvolume-reclaimer',
    watches: [
      { res: VOLUMES, keys: (ev) => (ev.type === 'DELETED' ? [] : [ev.name]) },
      {
        res: CLAIMS,
        keys(ev, ctx) {
          const out = new Set<string>();
          for (const o of [ev.obj, ev.prev])
            if (o && specOf(o).volumeName) out.add(String(specOf(o).volumeName));
          if (ev.type === 'DELETED') {
            toldWaiting.delete(uidOf(ev.obj));
            // Volumes the scheduler pre-bound to it (claimRef set, the claim not yet bound).
            for (const v of ctx.store.list(VOLUMES))
              if ((specOf(v.obj).claimRef as Obj | undefined)?.uid === uidOf(ev.obj)) out.add(v.name);
          }
          return [...out];
        },
      },
    ],
    reconcile(name, ctx) {
      const e = ctx.store.get(VOLUMES, '', name);
      if (e) syncVolume(ctx, e);
      return undefined;
    },
  };
  return [claimController, volumeController];
}

function syncUnboundClaim(ctx: ControllerContext, e: Entry, toldWaiting: Set<string>): void {
  const claim = e.obj;
  const volumeName = specOf(claim).volumeName;
  if (!volumeName) {
    const { name, sc, delay } = claimStorageClass(ctx, claim);
    const match = findMatchingVolume(claim, ctx.store.list(VOLUMES), delay);
    if (match) {
      bind(ctx, match, e);
      return;
    }
    const node = annotationsOf(claim)[SELECTED_NODE];
    if (delay && !node) {
      if (!toldWaiting.has(uidOf(claim))) {
        toldWaiting.add(uidOf(claim));
        recordEvent(
          ctx,
          COMPONENT,
          claim,
          'Normal',
          'WaitForFirstConsumer',
          'waiting for first consumer to be created before binding',
        );
      }
    } else if (name) {
      if (provision(ctx, e, name, sc, node)) return;
    } else
      recordEvent(
        ctx,
        COMPONENT,
        claim,
        'Normal',
        'FailedBinding',
        'no persistent volumes available for this claim and no storage class is set',
      );
    setPhase(ctx, CLAIMS, ctx.store.get(CLAIMS, e.ns, e.name) ?? e, 'Pending');
    return;
  }
  const pv = ctx.store.get(VOLUMES, '', String(volumeName));
  if (!pv) {
    setPhase(ctx, CLAIMS, e, 'Pending');
    return;
  }
  if (!isObj(specOf(pv.obj).claimRef)) {
    const why = volumeMismatch(claim, pv.obj);
    if (!why) {
      bind(ctx, pv, e);
      return;
    }
    recordEvent(
      ctx,
      COMPONENT,
      claim,
      'Warning',
      'VolumeMismatch',
      `Cannot bind to requested volume "${pv.name}": ${why}`,
    );
  } else if (boundToClaim(pv.obj, claim)) {
    bind(ctx, pv, e);
    return;
  } else
    recordEvent(
      ctx,
      COMPONENT,
      claim,
      'Warning',
      'FailedBinding',
      `volume "${pv.name}" already bound to a different claim.`,
    );
  setPhase(ctx, CLAIMS, e, 'Pending');
}

/**
 * Provisions a volume for the claim when its class's provisioner is ours (true: the claim is then bound); for
 * another provisioner the claim waits for it, as kube's controller leaves it to the external provisioner.
 */
function provision(
  ctx: ControllerContext,
  e: Entry,
  className: string,
  sc: Obj | undefined,
  node: string | undefined,
): boolean {
  const claim = e.obj;
  if (!sc) {
    recordEvent(
      ctx,
      COMPONENT,
      claim,
      'Warning',
      'ProvisioningFailed',
      `storageclass.storage.k8s.io "${className}" not found`,
    );
    return false;
  }
  const provisioner = String(sc.provisioner ?? '');
  if (provisioner === NO_PROVISIONER) return false;
  const claims = ctx.def('', 'persistentvolumeclaims');
  const annotated = writeObject(
    ctx,
    claims,
    e,
    withAnnotations(claim, { [STORAGE_PROVISIONER]: provisioner, [BETA_STORAGE_PROVISIONER]: provisioner }),
  );
  if (provisioner !== LOCAL_PATH_PROVISIONER) {
    recordEvent(
      ctx,
      COMPONENT,
      claim,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
    return false;
  }
  const pvName = `pvc-${uidOf(claim)}`;
  let pv = ctx.store.get(VOLUMES, '', pvName);
  if (!pv) {
    pv = ctx.rest.create(ctx.def('', 'persistentvolumes'), '', provisionedVolume(annotated.obj, sc, node), {
      fieldManager: LOCAL_PATH_PROVISIONER,
    });
    recordEvent(
      ctx,
      LOCAL_PATH_PROVISIONER,
      claim,
      'Normal',
      'ProvisioningSucceeded',
      `Successfully provisioned volume ${pvName}`,
    );
  }
  bind(ctx, pv, annotated);
  return true;
}

function syncBoundClaim(ctx: ControllerContext, e: Entry): void {
  const claim = e.obj;
  const volumeName = String(specOf(claim).volumeName ?? '');
  const lost = (message: string, reason = 'ClaimLost') => {
    if (statusOf(claim).phase === 'Lost') return;
    setPhase(ctx, CLAIMS, e, 'Lost');
    recordEvent(ctx, COMPONENT, claim, 'Warning', reason, message);
  };
  if (!volumeName) {
    lost('Bound claim has lost its PersistentVolume. Data on the volume is lost!');
    return;
  }
  const pv = ctx.store.get(VOLUMES, '', volumeName);
  if (!pv) {
    lost('Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
    return;
  }
  if (isObj(specOf(pv.obj).claimRef) && !boundToClaim(pv.obj, claim)) {
    lost('Two claims are bound to the same volume, this one is bound incorrectly', 'ClaimMisbound');
    return;
  }
  bind(ctx, pv, e);
  expand(ctx, e.ns, e.name, volumeName);
}

/**
 * Simulated expansion (kube's expand controller and the kubelet's resize in one step): a bound claim of our
 * provisioner whose request outgrew its capacity gets its volume's capacity and then its own raised.
 */
function expand(ctx: ControllerContext, ns: string, name: string, volumeName: string): void {
  const e = ctx.store.get(CLAIMS, ns, name);
  const pv = ctx.store.get(VOLUMES, '', volumeName);
  if (!e || !pv || annotationsOf(pv.obj)[PROVISIONED_BY] !== LOCAL_PATH_PROVISIONER) return;
  const request = requestOf(e.obj);
  if (request.nano <= capacityOf(pv.obj).nano) return;
  const next = structuredClone(pv.obj);
  (next.spec as Obj).capacity = { ...(specOf(pv.obj).capacity as Obj), storage: formatQuantity(request) };
  const volume = writeObject(ctx, ctx.def('', 'persistentvolumes'), pv, next);
  writeStatus(ctx, ctx.def('', 'persistentvolumeclaims'), e, {
    ...statusOf(e.obj),
    capacity: { ...(specOf(volume.obj).capacity as Obj) },
  });
}

function syncVolume(ctx: ControllerContext, e: Entry): void {
  const pv = e.obj;
  const ref = specOf(pv).claimRef;
  const phase = statusOf(pv).phase;
  if (!isObj(ref) || !ref.uid) {
    // Unused, or pre-bound by its author to a claim that will bind it.
    if (phase !== 'Available') setPhase(ctx, VOLUMES, e, 'Available');
    return;
  }
  const found = ctx.store.get(CLAIMS, String(ref.namespace ?? ''), String(ref.name ?? ''));
  const claim = found && uidOf(found.obj) === ref.uid ? found.obj : undefined;
  if (!claim) {
    release(ctx, e);
    return;
  }
  const volumeName = specOf(claim).volumeName;
  if (!volumeName) return; // being bound: the claim's sync finishes it
  if (volumeName === e.name) {
    if (phase !== 'Bound') setPhase(ctx, VOLUMES, e, 'Bound');
    return;
  }
  // The claim is bound to another volume.
  if (annotationsOf(pv)[PROVISIONED_BY]) {
    release(ctx, e);
    return;
  }
  if (annotationsOf(pv)[BOUND_BY_CONTROLLER] === 'yes') {
    const next = structuredClone(pv);
    delete (next.spec as Obj).claimRef;
    delete ((next.metadata as Obj).annotations as Obj)[BOUND_BY_CONTROLLER];
    setPhase(ctx, VOLUMES, writeObject(ctx, ctx.def('', 'persistentvolumes'), e, next), 'Available');
  }
}

/** A volume whose claim is gone: Released, then reclaimed by its policy (a manual volume's default is Retain). */
function release(ctx: ControllerContext, e: Entry): void {
  let pv = e;
  const phase = statusOf(pv.obj).phase;
  if (phase !== 'Released' && phase !== 'Failed') pv = setPhase(ctx, VOLUMES, pv, 'Released');
  if ((pv.obj.metadata as Obj).deletionTimestamp || statusOf(pv.obj).phase === 'Failed') return;
  const policy = String(specOf(pv.obj).persistentVolumeReclaimPolicy ?? 'Retain');
  if (policy === 'Retain') return;
  if (policy === 'Delete' && annotationsOf(pv.obj)[PROVISIONED_BY] === LOCAL_PATH_PROVISIONER) {
    try {
      ctx.rest.delete(ctx.def('', 'persistentvolumes'), '', pv.name, {
        preconditions: { uid: uidOf(pv.obj) },
      });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
    return;
  }
  const [reason, message] =
    policy === 'Delete'
      ? [
          'VolumeFailedDelete',
          `error getting deleter volume plugin for volume "${pv.name}": no deletable volume plugin matched`,
        ]
      : ['VolumeFailedRecycle', 'No recycler plugin found for the volume!'];
  setPhase(ctx, VOLUMES, pv, 'Failed', message);
  recordEvent(ctx, COMPONENT, pv.obj, 'Warning', reason, message);
}
