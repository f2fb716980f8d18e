// Strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch, server-side application):
// maps merge recursively, null deletes, lists with `patchStrategy=merge` merge by their merge key
// (or as sets of scalars), other lists are replaced. Directives: `$patch: replace|delete|merge`,
// `$retainKeys`, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`.
// Ordering follows the Go implementation: $setElementOrder > order in the patch > order in the live list.

import { badRequest, StatusError } from '../../k8s/status.ts';
import { clone, isObj, type Obj } from './json.ts';
import { type FieldSchema, fieldSchema, type GVK, rootType } from './schema.ts';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_PREFIX = '$deleteFromPrimitiveList/';
const ORDER_PREFIX = '$setElementOrder/';

/** A patch that cannot be applied; `code` is what the API server answers (400 or 422). */
class SmpError extends Error {
  constructor(
    message: string,
    readonly code: 400 | 422 = 400,
  ) {
    super(message);
  }
}

const isMergeList = (f: FieldSchema): boolean => f.strategy?.split(',').includes('merge') ?? false;

type Kind = 'map' | 'scalar';

/** Element kind shared by all given lists (maps or scalars); lists of lists are refused like Kubernetes does. */
function elementKind(...lists: unknown[][]): Kind | undefined {
  let kind: Kind | undefined;
  let scalarType: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      if (Array.isArray(v)) throw new SmpError('lists of lists are not supported', 422);
      const k: Kind = isObj(v) ? 'map' : 'scalar';
      const t = v === null ? 'null' : typeof v;
      if (kind === undefined) {
        kind = k;
        scalarType = t;
      } else if (kind !== k || (k === 'scalar' && scalarType !== t)) {
        throw new SmpError(`list element types are not identical: ${JSON.stringify(lists)}`);
      }
    }
  }
  return kind;
}

function mergeKeyOf(item: unknown, mergeKey: string): unknown {
  if (!isObj(item))
    throw new SmpError(`expected a map in a list merged by "${mergeKey}", got ${JSON.stringify(item)}`);
  if (!Object.hasOwn(item, mergeKey)) {
    throw new SmpError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
  }
  return item[mergeKey];
}

function indexIn(list: unknown[], item: unknown, mergeKey: string, kind: Kind): number {
  const value = (v: unknown) => (kind === 'map' ? (isObj(v) ? v[mergeKey] : undefined) : v);
  const want = value(item);
  return list.findIndex((v) => value(v) === want);
}

/** Sorts `items` by their position in `order`; `$patch: delete` items go last, unknown items after the rest. */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, kind: Kind): unknown[] {
  let keep = items;
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    for (const v of [...items, ...order]) mergeKeyOf(v, mergeKey);
    keep = items.filter((v) => !(isObj(v) && v[DIRECTIVE] === 'delete'));
    toDelete = items.filter((v) => isObj(v) && v[DIRECTIVE] === 'delete');
  }
  const ranked = keep.map((v, i) => ({ v, i, rank: indexIn(order, v, mergeKey, kind) }));
  ranked.sort((a, b) => {
    const ra = a.rank < 0 ? Number.MAX_SAFE_INTEGER : a.rank;
    const rb = b.rank < 0 ? Number.MAX_SAFE_INTEGER : b.rank;
    return ra - rb || a.i - b.i;
  });
  return [...ranked.map((r) => r.v), ...toDelete];
}

/** Interleaves server-only items into the patch items, keeping each side's relative order (mergeSortedSlice). */
function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: Kind,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function partition(merged: unknown[], by: unknown[], mergeKey: string, kind: Kind): [unknown[], unknown[]] {
  const inBy: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of merged) {
    if (kind === 'map') mergeKeyOf(v, mergeKey);
    (indexIn(by, v, mergeKey, kind) >= 0 ? inBy : serverOnly).push(v);
  }
  return [inBy, serverOnly];
}

/** A patch value placed where the original has nothing: merged into emptiness so directives disappear. */
function normalizeNew(value: unknown, f: FieldSchema): unknown {
  if (isObj(value)) return mergeMap({}, value, f.type);
  if (Array.isArray(value) && isMergeList(f)) return mergeSlice([], value, f, false);
  return clone(value);
}

function mergeSlice(original: unknown[], patch: unknown[], f: FieldSchema, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch) ?? 'scalar';
  const mergeKey = f.mergeKey ?? '';
  let merged: unknown[];
  let patchList = patch;
  if (kind === 'scalar') {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = [];
    for (const v of [...original, ...patch]) if (!merged.includes(v)) merged.push(v);
  } else {
    if (!mergeKey) throw new SmpError('cannot merge lists without merge key');
    let base = original;
    const plain: unknown[] = [];
    let replace = false;
    for (const item of patch) {
      if (!isObj(item)) throw new SmpError(`expected a map in the patch list, got ${JSON.stringify(item)}`);
      if (!Object.hasOwn(item, DIRECTIVE)) {
        plain.push(item);
        continue;
      }
      const directive = item[DIRECTIVE];
      if (directive === 'delete') {
        const key = mergeKeyOf(item, mergeKey);
        base = base.filter((v) => !(isObj(v) && v[mergeKey] === key));
      } else if (directive === 'replace') {
        replace = true;
      } else if (directive === 'merge') {
        throw new SmpError('merging lists cannot yet be specified in the patch');
      } else {
        throw new SmpError(
          `Unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(item)}`,
        );
      }
    }
    if (replace) {
      base = plain.map((v) => mergeMap({}, v as Obj, f.type));
      patchList = [];
    } else {
      patchList = plain;
    }
    merged = [...base];
    for (const item of patchList as Obj[]) {
      const key = mergeKeyOf(item, mergeKey);
      const at = merged.findIndex((v) => isObj(v) && v[mergeKey] === key);
      if (at >= 0) merged[at] = mergeMap(merged[at] as Obj, item, f.type);
      else merged.push(mergeMap({}, item, f.type));
    }
  }
  const [patchItems, serverOnly] = partition(merged, patchList, mergeKey, kind);
  return normalizeElementOrder(patchItems, serverOnly, patchList, original, mergeKey, kind);
}

function applyRetainKeys(original: Obj, patch: Obj): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw new SmpError('invalid patch: the $retainKeys directive must be a list');
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PREFIX) || k.startsWith(ORDER_PREFIX) || k === DIRECTIVE) continue;
    if (!retain.includes(k)) {
      throw new SmpError(`invalid patch: the $retainKeys list does not contain "${k}", which the patch sets`);
    }
  }
  for (const k of Object.keys(original)) if (!retain.includes(k)) delete original[k];
}

/** Checks that the patch list is in the relative order $setElementOrder gives (deletions aside). */
function validateOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((v) => !(isObj(v) && v[DIRECTIVE] === 'delete')) : patchList;
  const keyOf = (v: unknown) => (mergeKey ? mergeKeyOf(v, mergeKey) : v);
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isObj(items[p]) && Object.hasOwn(items[p] as Obj, DIRECTIVE)) {
      p++;
      continue;
    }
    if (keyOf(items[p]) === keyOf(order[o])) p++;
    o++;
  }
  if (p < items.length) {
    throw new SmpError(
      `The order in patch list: ${JSON.stringify(patchList)} doesn't match $setElementOrder list: ${JSON.stringify(order)}`,
    );
  }
}

function applySetElementOrder(original: Obj, patch: Obj, type: string | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(ORDER_PREFIX)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw new SmpError('invalid patch: the $setElementOrder list must be a list');
    const field = key.slice(ORDER_PREFIX.length);
    if (!field) throw new SmpError('invalid patch: $setElementOrder without a field name');
    const f = fieldSchema(type, field);
    const mergeKey = f.mergeKey ?? '';
    const hasOriginal = Array.isArray(original[field]);
    const hasPatch = Object.hasOwn(patch, field);
    if (hasPatch && !Array.isArray(patch[field])) {
      throw new SmpError(`invalid patch: "${field}" must be a list when $setElementOrder is given`);
    }
    const originalList = hasOriginal ? (original[field] as unknown[]) : [];
    const patchList = hasPatch ? (patch[field] as unknown[]) : [];
    validateOrder(patchList, order, mergeKey);
    let merged: unknown[];
    if (hasOriginal && !hasPatch) merged = originalList;
    else if (!hasOriginal && hasPatch) merged = mergeSlice([], patchList, f, false);
    else if (hasOriginal && hasPatch) {
      merged = isMergeList(f)
        ? mergeSlice(originalList, patchList, f, false)
        : (normalizeNew(patchList, f) as unknown[]);
    } else continue;
    const kind = elementKind(originalList, patchList, order);
    if (kind === undefined) {
      original[field] = merged;
    } else {
      const [patchItems, serverOnly] = partition(merged, order, mergeKey, kind);
      original[field] = normalizeElementOrder(patchItems, serverOnly, order, originalList, mergeKey, kind);
    }
    delete patch[field];
  }
}

function mergeMap(original: Obj, patch: Obj, type: string | undefined): Obj {
  if (Object.hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    const rest = { ...patch };
    delete rest[DIRECTIVE];
    if (directive === 'replace') return mergeMap({}, rest, type);
    if (directive === 'delete') return {};
    if (directive !== 'merge') {
      throw new SmpError(`Unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(patch)}`);
    }
    patch = rest;
  } else {
    patch = { ...patch };
  }
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, type);

  for (let [k, patchV] of Object.entries(patch)) {
    let isDeleteList = false;
    if (k.startsWith(DELETE_PREFIX)) {
      k = k.slice(DELETE_PREFIX.length);
      if (!k) throw new SmpError('invalid patch: $deleteFromPrimitiveList without a field name');
      if (!Array.isArray(patchV))
        throw new SmpError('invalid patch: $deleteFromPrimitiveList must be a list');
      isDeleteList = true;
      if (!Array.isArray(original[k])) continue; // nothing to delete from
    }
    if (patchV === null) {
      delete original[k];
      continue;
    }
    const f = fieldSchema(type, k);
    const current = original[k];
    if (!Object.hasOwn(original, k) || current === null || current === undefined) {
      original[k] = normalizeNew(patchV, f);
    } else if (isObj(current) && isObj(patchV)) {
      original[k] = f.strategy === 'replace' ? normalizeNew(patchV, f) : mergeMap(current, patchV, f.type);
    } else if (Array.isArray(current) && Array.isArray(patchV)) {
      original[k] =
        isMergeList(f) || isDeleteList ? mergeSlice(current, patchV, f, isDeleteList) : clone(patchV);
    } else {
      original[k] = normalizeNew(patchV, f);
    }
  }
  return original;
}

/**
 * Applies a strategic merge patch to a copy of `target`, using the list metadata of the kind
 * (unknown kinds: maps merge, lists replace). Throws StatusError 400 (malformed patch) or 422.
 */
export function applyStrategicMergePatch(target: Obj, patch: unknown, gvk: GVK): Obj {
  if (!isObj(patch)) throw badRequest('invalid JSON document');
  try {
    return mergeMap(clone(target), clone(patch), rootType(gvk));
  } catch (err) {
    if (err instanceof SmpError) {
      if (err.code === 422) {
        throw new StatusError(
          422,
          'Invalid',
          `the server rejected our request due to an error in our request: ${err.message}`,
        );
      }
      throw badRequest(err.message);
    }
    throw err;
  }
}
