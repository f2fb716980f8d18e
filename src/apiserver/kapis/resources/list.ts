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
    out.preds.push((e) => sel.matches(e.labels as Record<string, string> | undefined));
    for (const r of sel.requirements) {
      if (r.operator === 'Exists') out.sets.push(inf.keysWithLabel(r.key));
      if ((r.operator === 'Equals' || r.operator === 'In') && r.values.length === 1) {
        out.sets.push(inf.keysWithLabel(r.key, r.values[0]));
      }
    }
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

/** The page [offset, wanted) of keys kept in ascending order, read in the requested direction. */
function pageOf(
  inf: Informer,
  keys: readonly string[],
  ascending: boolean,
  offset: number,
  wanted: number,
): Page {
  const entries: Entry[] = [];
  for (let i = offset; i < keys.length && i < wanted; i++) {
    const e = inf.getByKey(keys[ascending ? i : keys.length - 1 - i]);
    if (e) entries.push(e);
  }
  return { entries, total: keys.length };
}

/** The requested page and the number of all matches; `extra` are further conditions every item must meet. */
export function listPage(
  inf: Informer,
  def: ResourceDef,
  q: ListQuery,
  namespace?: string,
  extra: readonly Pred[] = [],
): Page {
  const { sets, preds, namePart } = compile(inf, def, q);
  preds.push(...extra);
  const n = inf.size;
  // A name is checked directly on a few candidates; otherwise its remembered answer (within the route's namespace)
  // stands in for a scan of all.
  const narrow = smallestOf(sets);
  let names: NameMatches | undefined;
  if (namePart !== undefined && narrow && narrow.size * 8 <= n) preds.push((e) => e.name.includes(namePart));
  else if (namePart !== undefined) names = nameMatches(inf, namePart, namespace);
  if (names) sets.push(names.keys);
  else if (namespace !== undefined) sets.push(inf.keysInNamespace(namespace));
  const order = sortOrderOf(def, q);
  const offset = q.limit === undefined ? 0 : (q.page - 1) * q.limit;
  const wanted = q.limit === undefined ? Number.POSITIVE_INFINITY : offset + q.limit;
  if (names && sets.length === 1 && preds.length === 0 && typeof order === 'string') {
    // The name filter alone, in an order it remembers: the page is a slice.
    return pageOf(inf, names.inOrder(order), q.ascending, offset, wanted);
  }
  const others = (pool: ReadonlySet<string> | undefined) => sets.filter((s) => s !== pool);
  const matches = (e: Entry, rest: readonly ReadonlySet<string>[]) => {
    for (const s of rest) if (!s.has(e.key)) return false;
    for (const p of preds) if (!p(e)) return false;
    return true;
  };

  const pool = smallestOf(sets);
  let total: number | undefined;
  let matched: Entry[] | undefined;
  if (pool && sets.length === 1 && preds.length === 0) total = pool.size;
  else if (pool || preds.length > 0) {
    // The sets do not answer the whole query: every candidate is checked once, for the total.
    const rest = others(pool);
    matched = [];
    const candidates: Iterable<Entry | undefined> = pool
      ? [...pool].map((k) => inf.getByKey(k))
      : inf.entries();
    for (const e of candidates) if (e && matches(e, rest)) matched.push(e);
    total = matched.length;
  } else total = n;

  // Sorting the matches costs k log k comparisons; walking the view to fill the page visits about wanted * n / k
  // entries (matches spread over the order).
  const k = matched?.length ?? total;
  const sortCost = k * Math.log2(k + 1) * COMPARE_COST;
  const walkCost = k === 0 ? 0 : Math.min(n, (wanted * n) / k);
  if ((pool || matched) && sortCost < walkCost) {
    if (!matched) {
      matched = [];
      for (const key of pool ?? []) {
        const e = inf.getByKey(key);
        if (e) matched.push(e);
      }
    }
    const c = inf.comparator(order);
    matched.sort(q.ascending ? c : (a, b) => c(b, a));
    return { entries: matched.slice(offset, wanted), total };
  }

  const view = inf.sorted(order);
  const at = (i: number) => (q.ascending ? view[i] : view[view.length - 1 - i]);
  const entries: Entry[] = [];
  if (sets.length === 0 && preds.length === 0) {
    for (let i = offset; i < view.length && i < wanted; i++) entries.push(at(i));
    return { entries, total };
  }
  // Walk the order until the page is full or every match has been seen (checked matches are not checked again).
  const hits = matched && new Set(matched);
  const last = Math.min(wanted, total);
  let seen = 0;
  for (let i = 0; i < view.length && seen < last; i++) {
    const e = at(i);
    if (hits ? !hits.has(e) : !matches(e, sets)) continue;
    if (seen >= offset) entries.push(e);
    seen++;
  }
  return { entries, total };
}

/** Serialises `{items, totalItems}`: stored JSON is spliced in as is unless the item must be changed. */
export function listBody(page: Page, present?: (obj: KubeObject) => KubeObject): string {
  const items = page.entries.map((e) => (present ? JSON.stringify(present(e.object())) : e.json));
  return `{"items":[${items.join(',')}],"totalItems":${page.total}}`;
}
