// Admission on create (and on update: a claim's resize, quota), between the strategy's defaults and storage, in
// kube-apiserver's order: the mutating step (LimitRanger's container defaults, a claim's default StorageClass,
// claims' and volumes' protection finalizers) before validation, the validating step
// (LimitRanger's bounds, then ResourceQuota) after it. They read LimitRanges, ResourceQuotas and StorageClasses
// straight from the store.
import { forbidden, qualifiedResource } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import { type ResourceDef, storageKey } from '../resources.ts';
import type { Obj, Store } from '../store.ts';
import { claimResizeRefusal } from './claim-resize.ts';
import { applyDefaultStorageClass } from './default-storage-class.ts';
import { applyLimitRangeDefaults, limitRangeRefusal } from './limit-ranger.ts';
import { quotaRefusal } from './resource-quota.ts';
import { addFinalizer, PV_PROTECTION, PVC_PROTECTION } from './storage-protection.ts';

/**
 * Mutating admission of a new object (defaults applied in place), before the strategy derives the QoS class, in
 * kube's order: LimitRanger, DefaultStorageClass, StorageObjectInUseProtection.
 */
export function mutateOnCreate(d: ResourceDef, ns: string, o: Obj, store: Store): void {
  if (d.virtual) return;
  const res = storageKey(d);
  if (res === '/pods' && isObj(o.spec)) {
    requestsFromLimits(o.spec);
    applyLimitRangeDefaults(store, ns, o);
  } else if (res === '/persistentvolumeclaims') {
    applyDefaultStorageClass(store, o);
    addFinalizer(o, PVC_PROTECTION);
  } else if (res === '/persistentvolumes') addFinalizer(o, PV_PROTECTION);
}

/**
 * Pod defaulting that precedes admission in kube (SetDefaults_Pod, pods only, not templates): a container that
 * sets a limit but no request for a resource requests its limit.
 */
export function requestsFromLimits(spec: Obj): void {
  for (const key of ['containers', 'initContainers'])
    for (const c of Array.isArray(spec[key]) ? (spec[key] as unknown[]).filter(isObj) : []) {
      const r = c.resources;
      if (!isObj(r) || !isObj(r.limits)) continue;
      const requests = isObj(r.requests) ? r.requests : {};
      for (const [name, v] of Object.entries(r.limits)) requests[name] ??= v;
      r.requests = requests;
    }
}

/** Validating admission of a new object: throws 403 Forbidden, in kube's words, when a plugin refuses it. */
export function validateOnCreate(d: ResourceDef, ns: string, o: Obj, store: Store): void {
  if (!d.namespaced || d.virtual) return;
  const res = storageKey(d);
  refuse(d, o, limitRangeRefusal(store, res, ns, o) ?? quotaRefusal(store, res, ns, o, Date.now()));
}

/**
 * Validating admission of an update: of the object itself, a claim's resize, then ResourceQuota; of a subresource,
 * only pods/resize, by ResourceQuota (as in kube).
 */
export function validateOnUpdate(
  d: ResourceDef,
  ns: string,
  o: Obj,
  old: Obj,
  store: Store,
  sub?: string,
): void {
  if (!d.namespaced || d.virtual || (sub !== undefined && sub !== 'resize')) return;
  const res = storageKey(d);
  const resize = sub === undefined ? claimResizeRefusal(store, res, o, old) : undefined;
  refuse(d, o, resize ?? quotaRefusal(store, res, ns, o, Date.now(), { old, sub }));
}

function refuse(d: ResourceDef, o: Obj, why: string | undefined): void {
  if (!why) return;
  const name = String((o.metadata as Obj).name ?? '');
  throw forbidden(`${qualifiedResource(d.group, d.resource)} "${name}" is forbidden: ${why}`, {
    name,
    group: d.group || undefined,
    kind: d.resource,
  });
}
