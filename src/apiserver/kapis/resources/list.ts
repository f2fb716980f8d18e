// The list engine of resources.kubesphere.io/v1alpha3: filters, sorting and paging over an informer without copying
// or sorting everything per request. Filters become key sets (the informer's indexes, a remembered `name` answer)
// and, where no set answers exactly, entry predicates. The informer keeps a sorted view per sort order; a page is
// walked off that view until it is full, and the total comes from the sets' sizes when they answer the whole
// query. A small candidate set is filtered and sorted directly instead.
import type { Entry, Informer, KubeObject, SortOrder } from '../../cluster/index.ts';
import type { ListQuery } from '../query.ts';
import {
  ALIAS_ANNOTATION,
  ANNOTATION_KEY_INDEX,
  type IndexedFilter,
  OWNER_KIND_INDEX,
  OWNER_UID_INDEX,
  PROTECTED_ANNOTATIONS,
  type ResourceDef,
} from './defs.ts';
import { type NameMatches, nameMatches } from './name-matches.ts';

export type Pred = (e: Entry) => boolean;

interface Compiled {
  /** Every match's key is in each of these sets; a set may hold more, which `preds` then rule out. */
  sets: ReadonlySet<string>[];
  /** What the sets do not answer. */
  preds: Pred[];
  /** The `name` filter: a substring the name must contain (a set or a predicate, decided per request). */
  namePart?: string;
}

export interface Page {
  entries: Entry[];
  total: number;
}

/** Comparisons cost about this many set lookups (used to choose between sorting candidates and walking a view). */
const COMPARE_COST = 4;

function useIndex(inf: Informer, f: IndexedFilter): void {
  inf.addIndex(f.index, f.fn);
}

/** KubeSphere's labelMatch: `key`, `key=value`, or `key!=value` over a string map. */
function splitKeyValue(filter: string): { key: string; value?: string; negate: boolean } {
  const eq = filter.indexOf('=');
  if (eq < 0) return { key: filter, negate: false };
  let key = filter.slice(0, eq);
  let negate = false;
  if (key.endsWith('!')) {
    key = key.slice(0, -1);
    negate = true;
  }
  return { key, value: filter.slice(eq + 1), negate };
}

function mapMatch(map: Readonly<Record<string, string>> | undefined, filter: string): boolean {
  if (!map) return false;
  const { key, value, negate } = splitKeyValue(filter);
  if (!Object.hasOwn(map, key)) return false;
  if (value === undefined) return true;
  return negate ? map[key] !== value : map[key] === value;
}

function annotationsOf(e: Entry): Record<string, string> {
  return e.object().metadata?.annotations ?? {};
}

function compileFilter(inf: Informer, def: ResourceDef, field: string, value: string, out: Compiled): void {
  const indexed = def.indexedFilters[field];
  if (indexed) {
    useIndex(inf, indexed);
    out.sets.push(inf.keysByIndex(indexed.index, indexed.fold ? value.toLowerCase() : value));
    return;
  }
  switch (field) {
    case 'name':
      out.namePart = value === '' ? undefined : value;
      return;
    case 'names': {
      const names = new Set(value.split(','));
      out.preds.push((e) => names.has(e.name));
      return;
    }
    case 'uid':
      out.preds.push((e) => e.uid === value);
      return;
    case 'namespace':
      out.sets.push(inf.keysInNamespace(value));
      return;
    case 'label': {
      const { key, value: v, negate } = splitKeyValue(value);
      // The label index answers `key` and `key=value` exactly; `key!=value` needs the value checked.
      out.sets.push(inf.keysWithLabel(key, negate ? undefined : v));
      if (negate) out.preds.push((e) => mapMatch(e.labels, value));
      return;
    }
    case 'annotation': {
      const { key } = splitKeyValue(value);
      if (def.redact && PROTECTED_ANNOTATIONS.has(key)) {
        out.sets.push(new Set());
        return;
      }
      useIndex(inf, ANNOTATION_KEY_INDEX);
      out.sets.push(inf.keysByIndex(ANNOTATION_KEY_INDEX.index, key));
      out.preds.push((e) => mapMatch(annotationsOf(e), value));
      return;
    }
    case 'alias': {
      useIndex(inf, ANNOTATION_KEY_INDEX);
      out.sets.push(inf.keysByIndex(ANNOTATION_KEY_INDEX.index, ALIAS_ANNOTATION));
      out.preds.push((e) => (annotationsOf(e)[ALIAS_ANNOTATION] ?? '').includes(value));
      return;
    }
    case 'ownerReference':
      useIndex(inf, OWNER_UID_INDEX);
      out.sets.push(inf.keysByIndex(OWNER_UID_INDEX.index, value));
      return;
    case 'ownerKind':
      useIndex(inf, OWNER_KIND_INDEX);
      out.sets.push(inf.keysByIndex(OWNER_KIND_INDEX.index, value));
      return;
    default:
      // KubeSphere: a filter on a field the resource does not know matches nothing.
      out.sets.push(new Set());
  }
}

/** The query's conditions; the route's namespace is left to the caller (a name answer may be scoped to it). */
function compile(inf: Informer, def: ResourceDef, q: ListQuery): Compiled {
  const out: Compiled = { sets: [], preds: [] };
  for (const [field, value] of q.filters) compileFilter(inf, def, field, value, out);
  const sel = q.labelSelector;
  if (sel && !sel.empty) {
    // `key`, `key=value` and `key in (value)` are answered by the label index; any other requirement is checked.
    let exact = true;
    for (const r of sel.requirements) {
      if (r.operator === 'Exists') out.sets.push(inf.keysWithLabel(r.key));
      else if ((r.operator === 'Equals' || r.operator === 'In') && r.values.length === 1) {
        out.sets.push(inf.keysWithLabel(r.key, r.values[0]));
      } else exact = false;
    }
    if (!exact) out.preds.push((e) => sel.matches(e.labels as Record<string, string> | undefined));
  }
  return out;
}

function sortOrderOf(def: ResourceDef, q: ListQuery): SortOrder {
  return def.sorters?.[q.sortBy] ?? (q.sortBy === 'name' ? 'name' : 'creationTimestamp');
}

function smallestOf(sets: readonly ReadonlySet<string>[]): ReadonlySet<string> | undefined {
  let smallest: ReadonlySet<string> | undefined;
  for (const s of sets) if (!smallest || s.size < smallest.size) smallest = s;
  return smallest;
}

/** Items [offset, wanted) of an ascending list, read in the requested direction. */
function sliceOf<T>(items: readonly T[], ascending: boolean, offset: number, wanted: number): T[] {
  const out: T[] = [];
  for (let i = offset; i < items.length && i < wanted; i++)
    out.push(items[ascending ? i : items.length - 1 - i]);
  return out;
}

/**
 * Adds the `name` filter to the conditions: checked on each candidate when another set leaves few, else as its
 * remembered answer within the route's namespace (which then stands for the namespace too). Returns that answer.
 */
function addName(inf: Informer, c: Compiled, namespace: string | undefined): NameMatches | undefined {
  const part = c.namePart;
  const narrow = smallestOf(c.sets);
  let names: NameMatches | undefined;
  if (part !== undefined && narrow && narrow.size * 8 <= inf.size) c.preds.push((e) => e.name.includes(part));
  else if (part !== undefined) names = nameMatches(inf, part, namespace);
  if (names) c.sets.push(names.keys);
  else if (namespace !== undefined) c.sets.push(inf.keysInNamespace(namespace));
  return names;
}

/** Whether an entry meets every condition (its membership of `skip`, a set it was taken from, is not checked). */
function matcher(c: Compiled, skip?: ReadonlySet<string>): Pred {
  const sets = c.sets.filter((s) => s !== skip);
  const preds = c.preds;
  return (e) => {
    for (const s of sets) if (!s.has(e.key)) return false;
    for (const p of preds) if (!p(e)) return false;
    return true;
  };
}

/** The requested page and the number of all matches; `extra` are further conditions every item must meet. */
export function listPage(
  inf: Informer,
  def: ResourceDef,
  q: ListQuery,
  namespace?: string,
  extra: readonly Pred[] = [],
): Page {
  const c = compile(inf, def, q);
  c.preds.push(...extra);
  const names = addName(inf, c, namespace);
  const { sets, preds } = c;
  const order = sortOrderOf(def, q);
  const offset = q.limit === undefined ? 0 : (q.page - 1) * q.limit;
  const wanted = q.limit === undefined ? Number.POSITIVE_INFINITY : offset + q.limit;
  // A page in a namespace walks that namespace's own view: other namespaces' entries never cost a step.
  const n = namespace === undefined ? inf.size : inf.keysInNamespace(namespace).size;
  if (sets.length === 0 && preds.length === 0) {
    return { entries: sliceOf(inf.sorted(order), q.ascending, offset, wanted), total: n };
  }
  if (!names && namespace !== undefined && sets.length === 1 && preds.length === 0) {
    // The namespace alone: the page is a slice of its view.
    const all = inf.sorted(order, namespace);
    return { entries: sliceOf(all, q.ascending, offset, wanted), total: all.length };
  }
  if (names && sets.length === 1 && preds.length === 0 && typeof order === 'string') {
    // The name filter alone, in an order its answer remembers: the page is a slice.
    const keys = names.inOrder(order);
    const entries = sliceOf(keys, q.ascending, offset, wanted).map((key) => inf.getByKey(key));
    return { entries: entries.filter((e) => e !== undefined), total: keys.length };
  }

  const pool = smallestOf(sets);
  let total: number;
  let matched: Entry[] | undefined;
  if (pool && sets.length === 1 && preds.length === 0) total = pool.size;
  else {
    // The sets do not answer the whole query: every candidate is checked once, for the total.
    const match = matcher(c, pool);
    matched = [];
    const candidates = pool ? [...pool].map((k) => inf.getByKey(k)) : inf.entries();
    for (const e of candidates) if (e && match(e)) matched.push(e);
    total = matched.length;
  }

  // Sorting the matches costs k log k comparisons; walking the view to fill the page visits about wanted * n / k
  // entries (matches spread over the order).
  const sortCost = total * Math.log2(total + 1) * COMPARE_COST;
  const walkCost = total === 0 ? 0 : Math.min(n, (wanted * n) / total);
  if (sortCost < walkCost) {
    const all = matched ?? [...(pool ?? [])].map((k) => inf.getByKey(k)).filter((e) => e !== undefined);
    const compare = inf.comparator(order);
    all.sort(q.ascending ? compare : (a, b) => compare(b, a));
    return { entries: all.slice(offset, wanted), total };
  }

  // Walk the order until the page is full or every match has been seen (checked matches are not checked again).
  const view = inf.sorted(order, namespace);
  const hits = matched && new Set(matched);
  const match = hits ? (e: Entry) => hits.has(e) : matcher(c);
  const entries: Entry[] = [];
  const last = Math.min(wanted, total);
  let seen = 0;
  for (let i = 0; i < view.length && seen < last; i++) {
    const e = view[q.ascending ? i : view.length - 1 - i];
    if (!match(e)) continue;
    if (seen >= offset) entries.push(e);
    seen++;
  }
  return { entries, total };
}

const COMMA = 0x2c;

/**
 * Serialises `{items, totalItems}` as UTF-8: stored JSON bytes are copied in as they are unless the item must be
 * changed (no string is built from them, so a page leaves little garbage on the heap).
 */
export function listBody(page: Page, present?: (obj: KubeObject) => KubeObject): Buffer {
  const items = page.entries.map((e) =>
    present ? Buffer.from(JSON.stringify(present(e.object()))) : e.bytes,
  );
  const head = '{"items":[';
  const tail = `],"totalItems":${page.total}}`;
  let size = head.length + Math.max(0, items.length - 1) + tail.length;
  for (const item of items) size += item.byteLength;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(head, 0, 'latin1');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = COMMA;
    out.set(items[i], at);
    at += items[i].byteLength;
  }
  out.write(tail, at, 'latin1');
  return out;
}
