// kube-controller-manager's pvc-protection and pv-protection controllers: a claim keeps its
// `kubernetes.io/pvc-protection` finalizer while a scheduled, non-terminated pod uses it (so a claim deleted under a
// running pod stays Terminating), a volume its `kubernetes.io/pv-protection` finalizer while it is Bound. A live
// object missing its finalizer (stored before admission added them) gets it.
import { addFinalizer, PV_PROTECTION, PVC_PROTECTION } from '../admission/storage-protection.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj } from '../store.ts';
import {
  type Controller,
  type ControllerContext,
  objectKey,
  ownKey,
  splitKey,
  writeObject,
} from './framework.ts';
import { isTerminal } from './pods.ts';

const CLAIMS = '/persistentvolumeclaims';
const VOLUMES = '/persistentvolumes';

/** The claim names a pod's volumes use. */
export function claimNamesOf(pod: Obj): string[] {
  const volumes = (pod.spec as Obj | undefined)?.volumes;
  if (!Array.isArray(volumes)) return [];
  return volumes
    .filter(isObj)
    .map((v) => (v.persistentVolumeClaim as Obj | undefined)?.claimName)
    .filter((n): n is string => typeof n === 'string');
}

const finalizersOf = (o: Obj): unknown[] => {
  const f = (o.metadata as Obj).finalizers;
  return Array.isArray(f) ? f : [];
};

/** Adds `finalizer` to a live object missing it, or lifts it from a deleted one when `inUse` says it may go. */
function syncFinalizer(
  ctx: ControllerContext,
  res: 'persistentvolumeclaims' | 'persistentvolumes',
  e: Entry,
  finalizer: string,
  inUse: () => boolean,
): void {
  const has = finalizersOf(e.obj).includes(finalizer);
  const deleting = Boolean((e.obj.metadata as Obj).deletionTimestamp);
  const d = ctx.def('', res);
  if (!deleting && !has) {
    const next = structuredClone(e.obj);
    addFinalizer(next, finalizer);
    writeObject(ctx, d, e, next);
  } else if (deleting && has && !inUse()) {
    const meta = {
      ...(e.obj.metadata as Obj),
      finalizers: finalizersOf(e.obj).filter((f) => f !== finalizer),
    };
    writeObject(ctx, d, e, { ...e.obj, metadata: meta });
  }
}

/** Whether a scheduled pod that has not terminated mounts the claim (kube's podUsesPVC). */
function claimInUse(ctx: ControllerContext, ns: string, name: string): boolean {
  return ctx.store
    .list('/pods', ns)
    .some(
      (p) =>
        (p.obj.spec as Obj | undefined)?.nodeName && !isTerminal(p.obj) && claimNamesOf(p.obj).includes(name),
    );
}

export const pvcProtectionController: Controller = {
  name: 'pvc-protection',
  watches: [
    { res: CLAIMS, keys: ownKey },
    {
      res: '/pods',
      keys: (ev) =>
        [...new Set([ev.obj, ev.prev].flatMap((p) => (p ? claimNamesOf(p) : [])))].map((c) =>
          objectKey(ev.ns, c),
        ),
    },
  ],
  reconcile(key, ctx) {
    const { ns, name } = splitKey(key);
    const e = ctx.store.get(CLAIMS, ns, name);
    if (e) syncFinalizer(ctx, 'persistentvolumeclaims', e, PVC_PROTECTION, () => claimInUse(ctx, ns, name));
    return undefined;
  },
};

export const pvProtectionController: Controller = {
  name: 'pv-protection',
  watches: [{ res: VOLUMES, keys: ownKey }],
  reconcile(name, ctx) {
    const e = ctx.store.get(VOLUMES, '', name);
    if (e)
      syncFinalizer(
        ctx,
        'persistentvolumes',
        e,
        PV_PROTECTION,
        () => (e.obj.status as Obj | undefined)?.phase === 'Bound',
      );
    return undefined;
  },
};
