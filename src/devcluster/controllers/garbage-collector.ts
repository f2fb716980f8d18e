// Garbage collector, as kube-controller-manager's: over every resource (custom ones included) it deletes objects
// whose owners are all gone (an owner with another uid is gone), drops references to missing owners while another
// owner remains, and finishes the two deletion finalizers rest.ts adds:
//   orphan              dependents lose their ownerReference to the object, then the finalizer goes;
//   foregroundDeletion  dependents are deleted (foreground themselves when they block), and the finalizer goes once
//                       no dependent with blockOwnerDeletion remains. A dependent that waits on this owner in turn
//                       (a cycle of ownerReferences) does not block, so a cycle never deadlocks.
import { StatusError } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { ResourceDef } from '../resources.ts';
import type { Entry, Obj, StoreEvent } from '../store.ts';
import {
  type Controller,
  type ControllerContext,
  type ObjectRef,
  objectKey,
  writeObject,
} from './framework.ts';

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';

const keyOf = (r: ObjectRef) => `${r.res}|${objectKey(r.ns, r.name)}`;

function refOfKey(key: string): ObjectRef {
  const bar = key.indexOf('|');
  const rest = key.slice(bar + 1);
  const slash = rest.indexOf('/');
  return slash < 0
    ? { res: key.slice(0, bar), ns: '', name: rest }
    : { res: key.slice(0, bar), ns: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

const metaOf = (o: Obj) => o.metadata as Obj;
const finalizersOf = (o: Obj | undefined): string[] =>
  o && Array.isArray(metaOf(o).finalizers) ? (metaOf(o).finalizers as string[]) : [];
const ownerRefs = (o: Obj | undefined): Obj[] => {
  const refs = o ? metaOf(o).ownerReferences : undefined;
  return Array.isArray(refs) ? refs.filter(isObj) : [];
};
const deleting = (o: Obj) => !!metaOf(o).deletionTimestamp;

/** Which keys an event wakes: the object when its owners or deletion state change, its dependents and owners. */
function keysFor(ctx: ControllerContext, ev: StoreEvent): string[] {
  const self: ObjectRef = { res: ev.res, ns: ev.ns, name: ev.name };
  const out: string[] = [];
  const refsChanged = JSON.stringify(ownerRefs(ev.obj)) !== JSON.stringify(ownerRefs(ev.prev));
  const gcFinalizer = finalizersOf(ev.obj).some((f) => f === ORPHAN || f === FOREGROUND);
  if (ev.type !== 'DELETED' && (refsChanged || gcFinalizer)) out.push(keyOf(self));
  const uid = String(metaOf(ev.obj).uid ?? '');
  const becameDeleting = deleting(ev.obj) && !(ev.prev && deleting(ev.prev));
  if (uid && (ev.type === 'DELETED' || becameDeleting))
    for (const dep of ctx.dependents(uid)) out.push(keyOf(dep));
  // An owner waiting in foreground deletion looks again when a dependent goes or starts going (an owner that is
  // not being deleted has nothing to finish: a login record's deletion need not wake its User).
  if (ev.type === 'DELETED' || becameDeleting)
    for (const r of ownerRefs(ev.obj)) {
      const owner = ctx.byUid(String(r.uid));
      const ownerObj = owner && entryOf(ctx, owner)?.obj;
      if (owner && ownerObj && deleting(ownerObj)) out.push(keyOf(owner));
    }
  return out;
}

export function garbageCollector(ctx: ControllerContext): Controller {
  return {
    name: 'garbage-collector',
    watches: [{ res: '*', keys: (ev) => keysFor(ctx, ev) }],
    reconcile(key) {
      const ref = refOfKey(key);
      const e = ctx.store.get(ref.res, ref.ns, ref.name);
      if (!e) return undefined;
      const d = defOf(ctx, ref.res);
      if (!d) return undefined;
      const finalizers = finalizersOf(e.obj);
      if (deleting(e.obj) && finalizers.includes(ORPHAN)) orphanDependents(ctx, d, e);
      else if (deleting(e.obj) && finalizers.includes(FOREGROUND)) deleteForeground(ctx, d, e);
      else collectIfOwnerless(ctx, d, e);
      return undefined;
    },
  };
}

function defOf(ctx: ControllerContext, res: string): ResourceDef | undefined {
  const slash = res.indexOf('/');
  return ctx.registry.anyVersion(res.slice(0, slash), res.slice(slash + 1));
}

function entryOf(ctx: ControllerContext, r: ObjectRef): Entry | undefined {
  return ctx.store.get(r.res, r.ns, r.name);
}

function withoutFinalizer(ctx: ControllerContext, d: ResourceDef, e: Entry, finalizer: string): void {
  const next = structuredClone(e.obj);
  const rest = finalizersOf(next).filter((f) => f !== finalizer);
  if (rest.length > 0) metaOf(next).finalizers = rest;
  else delete metaOf(next).finalizers;
  writeObject(ctx, d, e, next);
}

function orphanDependents(ctx: ControllerContext, d: ResourceDef, e: Entry): void {
  const uid = metaOf(e.obj).uid;
  for (const r of ctx.dependents(String(uid))) {
    const dep = entryOf(ctx, r);
    const depDef = defOf(ctx, r.res);
    if (!dep || !depDef) continue;
    const next = structuredClone(dep.obj);
    const refs = ownerRefs(next).filter((o) => o.uid !== uid);
    if (refs.length > 0) metaOf(next).ownerReferences = refs;
    else delete metaOf(next).ownerReferences;
    writeObject(ctx, depDef, dep, next);
  }
  withoutFinalizer(ctx, d, e, ORPHAN);
}

function deleteForeground(ctx: ControllerContext, d: ResourceDef, e: Entry): void {
  const uid = String(metaOf(e.obj).uid);
  let blocking = 0;
  for (const r of ctx.dependents(uid)) {
    const dep = entryOf(ctx, r);
    const depDef = defOf(ctx, r.res);
    if (!dep || !depDef) continue;
    const blocks = ownerRefs(dep.obj).some((o) => o.uid === uid && o.blockOwnerDeletion === true);
    if (!deleting(dep.obj))
      remove(
        ctx,
        depDef,
        dep,
        blocks && ctx.dependents(String(metaOf(dep.obj).uid)).length > 0 ? 'Foreground' : 'Background',
      );
    if (blocks && !waitsOn(ctx, dep, uid, new Set())) blocking++;
  }
  if (blocking === 0) withoutFinalizer(ctx, d, e, FOREGROUND);
}

/** Whether `dep` is itself in foreground deletion waiting (through blocking dependents) on the object `uid`. */
function waitsOn(ctx: ControllerContext, dep: Entry, uid: string, seen: Set<string>): boolean {
  const depUid = String(metaOf(dep.obj).uid);
  if (seen.has(depUid) || !finalizersOf(dep.obj).includes(FOREGROUND)) return false;
  seen.add(depUid);
  for (const r of ctx.dependents(depUid)) {
    const next = entryOf(ctx, r);
    if (!next || !ownerRefs(next.obj).some((o) => o.uid === depUid && o.blockOwnerDeletion === true))
      continue;
    if (metaOf(next.obj).uid === uid || waitsOn(ctx, next, uid, seen)) return true;
  }
  return false;
}

/** Deletes an object whose owners are all gone; drops references to missing owners when another remains. */
function collectIfOwnerless(ctx: ControllerContext, d: ResourceDef, e: Entry): void {
  const refs = ownerRefs(e.obj);
  if (refs.length === 0 || deleting(e.obj)) return;
  // A namespaced object's owner lives in its namespace or is cluster-scoped; anything else is no owner.
  const present = refs.filter((r) => {
    const owner = ctx.byUid(String(r.uid));
    return owner !== undefined && (owner.ns === '' || owner.ns === e.ns);
  });
  if (present.length === refs.length) return;
  if (present.length > 0) {
    const next = structuredClone(e.obj);
    metaOf(next).ownerReferences = present;
    writeObject(ctx, d, e, next);
    return;
  }
  remove(ctx, d, e, 'Background');
}

function remove(ctx: ControllerContext, d: ResourceDef, e: Entry, propagationPolicy: string): void {
  try {
    ctx.rest.delete(d, e.ns, e.name, {
      propagationPolicy,
      preconditions: { uid: String(metaOf(e.obj).uid) },
    });
  } catch (err) {
    // Gone already, or replaced by a new object of the same name (uid precondition): nothing to collect.
    if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
  }
}
