// metadata.managedFields and server-side apply, following the Kubernetes field manager
// (k8s.io/apimachinery/pkg/util/managedfields + structured-merge-diff):
// - an Update (create, PUT, non-apply PATCH) gives its manager the fields it changed and takes them
//   from every other manager; removed fields leave every manager's set;
// - an Apply makes the manager own exactly the applied fields; a field another manager owns with a
//   different value is a 409 conflict unless forced (forcing takes it); fields the manager applied
//   before but no longer applies are removed from the object unless someone else owns them.

import { badRequest, invalid, type StatusCause, StatusError } from '../../k8s/status.ts';
import {
  fieldSetOf,
  fieldSetWithContainers,
  fieldsV1Of,
  fromFieldsV1,
  getAt,
  itemKey,
  keyPath,
  type Path,
  pathKey,
  pathString,
  removeAt,
  toFieldsV1,
  valueDiffers,
} from './fieldset.ts';
import { clone, isObj, type Obj } from './json.ts';
import { type FieldSchema, fieldSchema, type GVK, listSemantics, rootType } from './schema.ts';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Obj;
  subresource?: string;
}

interface Owner {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  subresource: string;
  set: Set<string>;
}

/** Manager identity as the field manager keys it: Update entries per API version, Apply entries not. */
function identity(o: Pick<Owner, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([
    o.manager,
    o.operation,
    o.operation === 'Update' ? o.apiVersion : '',
    o.subresource,
  ]);
}

function decodeOwners(list: unknown): Owner[] {
  if (!Array.isArray(list)) return [];
  const owners: Owner[] = [];
  for (const e of list) {
    if (!isObj(e) || typeof e.manager !== 'string') continue;
    if (e.operation !== 'Apply' && e.operation !== 'Update') continue;
    owners.push({
      manager: e.manager,
      operation: e.operation,
      apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : '',
      time: typeof e.time === 'string' ? e.time : '',
      subresource: typeof e.subresource === 'string' ? e.subresource : '',
      set: fromFieldsV1(e.fieldsV1),
    });
  }
  return owners;
}

/** Entries in the order the API server writes them: Apply before Update, then by time, manager, version. */
function encodeOwners(owners: Owner[]): ManagedFieldsEntry[] {
  const sorted = owners
    .filter((o) => o.set.size > 0)
    .sort(
      (p, q) =>
        p.operation.localeCompare(q.operation) ||
        Date.parse(p.time || '0') - Date.parse(q.time || '0') ||
        p.manager.localeCompare(q.manager) ||
        p.apiVersion.localeCompare(q.apiVersion) ||
        p.subresource.localeCompare(q.subresource),
    );
  return sorted.map((o) => entryOf(o, toFieldsV1(o.set)));
}

function entryOf(o: Omit<Owner, 'set'>, fieldsV1: Obj): ManagedFieldsEntry {
  const e: ManagedFieldsEntry = {
    manager: o.manager,
    operation: o.operation,
    apiVersion: o.apiVersion,
    time: o.time,
    fieldsType: 'FieldsV1',
    fieldsV1,
  };
  if (o.subresource) e.subresource = o.subresource;
  return e;
}

/**
 * The part of an object whose fields a request tracks: the status subresource owns `status`, the main resource
 * everything else. Each top-level field's paths start with it, so only that part need be walked.
 */
function inScope(obj: Obj, subresource: string): Obj {
  if (subresource === 'status') return Object.hasOwn(obj, 'status') ? { status: obj.status } : {};
  if (!Object.hasOwn(obj, 'status')) return obj;
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'status') out[k] = v;
  return out;
}

/** Fields tracked for a request. */
function trackedSet(obj: Obj, type: string, subresource: string): Set<string> {
  return fieldSetOf(inScope(obj, subresource), type);
}

function trackedWithContainers(obj: Obj, type: string, subresource: string) {
  return fieldSetWithContainers(inScope(obj, subresource), type);
}

function gvkOf(obj: Obj): GVK {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const slash = apiVersion.lastIndexOf('/');
  return {
    group: slash >= 0 ? apiVersion.slice(0, slash) : '',
    version: slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion,
    kind: typeof obj.kind === 'string' ? obj.kind : '',
  };
}

function withManagedFields(obj: Obj, entries: ManagedFieldsEntry[]): Obj {
  const out = { ...obj };
  const meta: Obj = isObj(out.metadata) ? { ...out.metadata } : {};
  if (entries.length > 0) meta.managedFields = entries;
  else delete meta.managedFields;
  out.metadata = meta;
  return out;
}

/**
 * Records an ordinary write (create, update, non-apply patch) by `manager` in metadata.managedFields.
 * `old` is the stored object (undefined on create), `next` the object about to be stored.
 * Returns a copy of `next` carrying the new managedFields, and the entries themselves.
 */
export function updateManagedFields(
  old: Obj | undefined,
  next: Obj,
  manager: string,
  operation: 'Update',
  apiVersion: string,
  now: string,
  subresource = '',
): { object: Obj; managedFields: ManagedFieldsEntry[] } {
  const type = rootType(gvkOf(next));
  const oldEntries = isObj(old?.metadata) ? old.metadata.managedFields : undefined;
  const nextEntries = isObj(next.metadata) ? next.metadata.managedFields : undefined;
  // A client that sends its own (different, non-empty) managedFields replaces them, as in Kubernetes.
  const clientSet =
    Array.isArray(nextEntries) &&
    nextEntries.length > 0 &&
    JSON.stringify(nextEntries) !== JSON.stringify(oldEntries);
  const owners = decodeOwners(clientSet ? nextEntries : oldEntries);
  const me = { manager, operation, apiVersion, subresource };
  if (!old && owners.length === 0) {
    // A create no manager owns yet: the writer owns every field it sets (the general path's result, in one walk).
    const fieldsV1 = fieldsV1Of(inScope(next, subresource), type);
    const managedFields = fieldsV1 ? [entryOf({ ...me, time: now }, fieldsV1)] : [];
    return { object: withManagedFields(next, managedFields), managedFields };
  }

  // Leaves are changed when added or modified; a map or pointer struct only when this write creates it.
  const now_ = trackedWithContainers(next, type, subresource);
  const changed = new Set<string>();
  const removed = new Set<string>();
  if (!old) {
    for (const k of [...now_.leaves, ...now_.containers]) changed.add(k);
  } else {
    const before = trackedWithContainers(old, type, subresource);
    for (const k of now_.leaves)
      if (!before.leaves.has(k) || valueDiffers(old, next, keyPath(k))) changed.add(k);
    for (const k of now_.containers) if (!before.containers.has(k) && !before.leaves.has(k)) changed.add(k);
    for (const k of [...before.leaves, ...before.containers]) {
      if (!now_.leaves.has(k) && !now_.containers.has(k)) removed.add(k);
    }
  }

  const myId = identity(me);
  for (const o of owners) {
    if (identity(o) === myId) continue;
    for (const k of changed) o.set.delete(k);
    for (const k of removed) o.set.delete(k);
  }
  let mine = owners.find((o) => identity(o) === myId);
  if (!mine && changed.size > 0) {
    mine = { ...me, time: now, set: new Set() };
    owners.push(mine);
  }
  if (mine) {
    const before = mine.set.size;
    const hadAll = [...changed].every((k) => mine?.set.has(k));
    for (const k of changed) mine.set.add(k);
    for (const k of removed) mine.set.delete(k);
    if (!hadAll || mine.set.size !== before) mine.time = now;
  }
  const managedFields = encodeOwners(owners);
  return { object: withManagedFields(next, managedFields), managedFields };
}

function mergeObject(live: Obj, applied: Obj, type: string | undefined): Obj {
  const out = clone(live);
  for (const [k, v] of Object.entries(applied)) {
    if (v === null) delete out[k];
    else out[k] = mergeValue(out[k], v, fieldSchema(type, k));
  }
  return out;
}

function mergeValue(live: unknown, applied: unknown, f: FieldSchema): unknown {
  if (isObj(applied) && isObj(live) && !f.atomic) return mergeObject(live, applied, f.type);
  if (Array.isArray(applied) && Array.isArray(live)) {
    const sem = listSemantics(f);
    if (sem.kind === 'map') {
      const out = [...live];
      for (const item of applied) {
        const key = itemKey(item, sem.keys);
        if (key === undefined) return clone(applied);
        const at = out.findIndex((x) => itemKey(x, sem.keys) === key);
        if (at >= 0 && isObj(out[at])) out[at] = mergeObject(out[at] as Obj, item as Obj, f.type);
        else out.push(clone(item));
      }
      return out;
    }
    if (sem.kind === 'set') {
      const out = [...live];
      for (const v of applied) if (!out.some((x) => JSON.stringify(x) === JSON.stringify(v))) out.push(v);
      return out;
    }
  }
  return clone(applied);
}

export interface ServerSideApplyArgs {
  live: Obj | undefined;
  applied: Obj;
  manager: string;
  force: boolean;
  gvk: GVK;
  now: string;
  subresource?: string;
}

function printManager(o: Owner): string {
  let s = JSON.stringify(o.manager);
  if (o.subresource) s += ` with subresource ${JSON.stringify(o.subresource)}`;
  if (o.operation === 'Update') s += ` using ${o.apiVersion}`;
  return s;
}

function conflictError(conflicts: { owner: Owner; path: Path }[]): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.owner)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].owner)}: ${pathString(conflicts[0].path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const m = printManager(c.owner);
      byManager.set(m, [...(byManager.get(m) ?? []), pathString(c.path)]);
    }
    const parts: string[] = [];
    for (const m of [...byManager.keys()].sort()) {
      parts.push(`conflicts with ${m}:`);
      for (const p of byManager.get(m) ?? []) parts.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${parts.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}

/**
 * Server-side apply (`application/apply-patch+yaml`). `applied` is the parsed configuration,
 * `live` the stored object (undefined when the apply creates it). Returns the object to store
 * (with metadata.managedFields set) and the entries; throws 409 Conflict (FieldManagerConflict causes),
 * 400 or 422 for bad input.
 */
export function serverSideApply(args: ServerSideApplyArgs): {
  object: Obj;
  managedFields: ManagedFieldsEntry[];
} {
  const { live, applied, manager, force, gvk, now } = args;
  const subresource = args.subresource ?? '';
  if (!manager) {
    throw invalid('meta.k8s.io', 'PatchOptions', '', [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
    ]);
  }
  if (!isObj(applied)) throw badRequest('error decoding YAML: the apply configuration must be an object');
  const wantVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
  if (typeof applied.apiVersion !== 'string' || applied.apiVersion === '') {
    throw badRequest('apiVersion must be set in an apply configuration');
  }
  if (typeof applied.kind !== 'string' || applied.kind === '') {
    throw badRequest('kind must be set in an apply configuration');
  }
  if (applied.apiVersion !== wantVersion || applied.kind !== gvk.kind) {
    throw badRequest(
      `the apply configuration is ${applied.apiVersion}, Kind=${applied.kind}, but the request is for ${wantVersion}, Kind=${gvk.kind}`,
    );
  }
  const appliedMeta = applied.metadata;
  if (
    isObj(appliedMeta) &&
    Array.isArray(appliedMeta.managedFields) &&
    appliedMeta.managedFields.length > 0
  ) {
    throw badRequest('metadata.managedFields must be nil');
  }

  const type = rootType(gvk);
  const liveObj: Obj = live ?? {};
  const owners = decodeOwners(isObj(liveObj.metadata) ? liveObj.metadata.managedFields : undefined);
  const appliedSet = trackedSet(applied, type, subresource);
  const me = { manager, operation: 'Apply' as const, apiVersion: applied.apiVersion, subresource };
  const myId = identity(me);

  const conflicts: { owner: Owner; path: Path }[] = [];
  for (const o of owners) {
    if (identity(o) === myId) continue;
    for (const k of appliedSet) {
      if (o.set.has(k) && valueDiffers(liveObj, applied, keyPath(k)))
        conflicts.push({ owner: o, path: keyPath(k) });
    }
  }
  if (conflicts.length > 0) {
    if (!force) throw conflictError(conflicts);
    for (const c of conflicts) c.owner.set.delete(pathKey(c.path));
  }

  const merged = mergeObject(liveObj, applied, type);

  // Fields this manager applied before and dropped now go, unless another manager still holds them.
  const previous = owners.find((o) => identity(o) === myId)?.set ?? new Set<string>();
  const othersHold = (k: string) =>
    owners.some((o) => identity(o) !== myId && [...o.set].some((x) => x === k || x.startsWith(`${k}\u0000`)));
  const dropped = [...previous]
    .filter(
      (k) => !appliedSet.has(k) && !othersHold(k) && ![...appliedSet].some((x) => x.startsWith(`${k}\u0000`)),
    )
    .sort((a, b) => keyPath(a).length - keyPath(b).length); // parents first: an item loses its key otherwise
  for (const k of dropped) {
    if (getAt(merged, keyPath(k)).found) removeAt(merged, keyPath(k));
  }

  const kept = owners.filter((o) => identity(o) !== myId);
  kept.push({ ...me, time: now, set: appliedSet });
  const managedFields = encodeOwners(kept);
  return { object: withManagedFields(merged, managedFields), managedFields };
}
