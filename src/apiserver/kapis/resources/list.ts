// The list engine of resources.kubesphere.io/v1alpha3: filters, sorting and paging over an informer without copying
// or sorting everything per request. Filters become entry predicates; those backed by an index also offer a candidate
// key set. When the smallest candidate set is small, only it is filtered and sorted; otherwise the informer's
// incrementally sorted view is walked once, counting matches and keeping just the requested page.
import type { Entry, Informer, KubeObject } from '../../cluster/index.ts';
import { compareEntries } from '../../cluster/informer.ts';
import type { ListQuery } from '../query.ts';
import {
  ALIAS_ANNOTATION,
  ANNOTATION_KEY_INDEX,
  type IndexedFilter,
  OWNER_KIND_INDEX,
  OWNER_UID_INDEX,
  PROTECTED_ANNOTATIONS,
  type ResourceDef,
  type SortKey,
} from './defs.ts';

export type Pred = (e: Entry) => boolean;

interface Compiled {
  preds: Pred[];
  candidates: ReadonlySet<string>[];
}

export interface Page {
  entries: Entry[];
  total: number;
}

/** Candidate sets smaller than this fraction of the informer are filtered and sorted directly. */
const CANDIDATE_RATIO = 0.25;

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
    const keys = inf.keysByIndex(indexed.index, indexed.fold ? value.toLowerCase() : value);
    out.candidates.push(keys);
    out.preds.push((e) => keys.has(e.key));
    return;
  }
  switch (field) {
    case 'name':
      out.preds.push((e) => e.name.includes(value));
      return;
    case 'names': {
      const names = new Set(value.split(','));
      out.preds.push((e) => names.has(e.name));
      return;
    }
    case 'uid':
      out.preds.push((e) => e.uid === value);
      return;
    case 'namespace': {
      const keys = inf.keysInNamespace(value);
      out.candidates.push(keys);
      out.preds.push((e) => e.namespace === value);
      return;
    }
    case 'label': {
      const { key, value: v, negate } = splitKeyValue(value);
      const keys = inf.keysWithLabel(key, negate ? undefined : v);
      out.candidates.push(keys);
      out.preds.push((e) => mapMatch(e.labels, value));
      return;
    }
    case 'annotation': {
      const { key } = splitKeyValue(value);
      if (def.redact && PROTECTED_ANNOTATIONS.has(key)) {
        out.preds.push(() => false);
        return;
      }
      useIndex(inf, ANNOTATION_KEY_INDEX);
      const keys = inf.keysByIndex(ANNOTATION_KEY_INDEX.index, key);
      out.candidates.push(keys);
      out.preds.push((e) => keys.has(e.key) && mapMatch(annotationsOf(e), value));
      return;
    }
    case 'alias': {
      useIndex(inf, ANNOTATION_KEY_INDEX);
      const keys = inf.keysByIndex(ANNOTATION_KEY_INDEX.index, ALIAS_ANNOTATION);
      out.candidates.push(keys);
      out.preds.push((e) => keys.has(e.key) && (annotationsOf(e)[ALIAS_ANNOTATION] ?? '').includes(value));
      return;
    }
    case 'ownerReference': {
      useIndex(inf, OWNER_UID_INDEX);
      const keys = inf.keysByIndex(OWNER_UID_INDEX.index, value);
      out.candidates.push(keys);
      out.preds.push((e) => keys.has(e.key));
      return;
    }
    case 'ownerKind': {
      useIndex(inf, OWNER_KIND_INDEX);
      const keys = inf.keysByIndex(OWNER_KIND_INDEX.index, value);
      out.candidates.push(keys);
      out.preds.push((e) => keys.has(e.key));
      return;
    }
    default:
      // KubeSphere: a filter on a field the resource does not know matches nothing.
      out.candidates.push(new Set());
      out.preds.push(() => false);
  }
}

function compile(inf: Informer, def: ResourceDef, q: ListQuery, namespace: string | undefined): Compiled {
  const out: Compiled = { preds: [], candidates: [] };
  if (namespace !== undefined) {
    out.candidates.push(inf.keysInNamespace(namespace));
    out.preds.push((e) => e.namespace === namespace);
  }
  for (const [field, value] of q.filters) compileFilter(inf, def, field, value, out);
  const sel = q.labelSelector;
  if (sel && !sel.empty) {
    out.preds.push((e) => sel.matches(e.labels as Record<string, string> | undefined));
    for (const r of sel.requirements) {
      if (r.operator === 'Exists') out.candidates.push(inf.keysWithLabel(r.key));
      if ((r.operator === 'Equals' || r.operator === 'In') && r.values.length === 1) {
        out.candidates.push(inf.keysWithLabel(r.key, r.values[0]));
      }
    }
  }
  return out;
}

/** Per-kind sort keys, computed once per cached entry (entries are immutable: an update replaces them). */
const sortKeys = new WeakMap<SortKey, WeakMap<Entry, number>>();

function compareBy(key: SortKey): (a: Entry, b: Entry) => number {
  let known = sortKeys.get(key);
  if (!known) {
    known = new WeakMap();
    sortKeys.set(key, known);
  }
  const cache = known;
  const of = (e: Entry) => {
    let k = cache.get(e);
    if (k === undefined) {
      k = key(e.object());
      cache.set(e, k);
    }
    return k;
  };
  const byName = compareEntries('name');
  return (a, b) => of(a) - of(b) || byName(a, b);
}

function sortFieldOf(q: ListQuery): 'name' | 'creationTimestamp' {
  return q.sortBy === 'name' ? 'name' : 'creationTimestamp';
}

/** The requested page and the number of all matches; `extra` are further conditions every item must meet. */
export function listPage(
  inf: Informer,
  def: ResourceDef,
  q: ListQuery,
  namespace?: string,
  extra: readonly Pred[] = [],
): Page {
  const { preds, candidates } = compile(inf, def, q, namespace);
  preds.push(...extra);
  const by = sortFieldOf(q);
  const offset = q.limit === undefined ? 0 : (q.page - 1) * q.limit;
  const limit = q.limit ?? Number.POSITIVE_INFINITY;
  const match = (e: Entry) => {
    for (const p of preds) if (!p(e)) return false;
    return true;
  };

  let smallest: ReadonlySet<string> | undefined;
  for (const c of candidates) if (!smallest || c.size < smallest.size) smallest = c;

  const sorter = def.sorters?.[q.sortBy];
  const small = smallest && smallest.size <= Math.max(64, inf.size * CANDIDATE_RATIO);
  if (small || sorter) {
    // Keys of the smallest candidate set, or (a per-kind sort the informer keeps no view of) every entry.
    const pool: Iterable<Entry | undefined> =
      smallest && small ? [...smallest].map((k) => inf.getByKey(k)) : inf.entries();
    const matched: Entry[] = [];
    for (const e of pool) if (e && match(e)) matched.push(e);
    const c = sorter ? compareBy(sorter) : compareEntries(by);
    matched.sort(q.ascending ? c : (a, b) => c(b, a));
    return { entries: matched.slice(offset, offset + limit), total: matched.length };
  }

  const view = inf.sorted(by);
  const n = view.length;
  const at = (i: number) => (q.ascending ? view[i] : view[n - 1 - i]);
  if (preds.length === 0) {
    const entries: Entry[] = [];
    for (let i = offset; i < n && entries.length < limit; i++) entries.push(at(i));
    return { entries, total: n };
  }
  const entries: Entry[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    const e = at(i);
    if (!match(e)) continue;
    if (total >= offset && entries.length < limit) entries.push(e);
    total++;
  }
  return { entries, total };
}

/** Serialises `{items, totalItems}`: stored JSON is spliced in as is unless the item must be changed. */
export function listBody(page: Page, present?: (obj: KubeObject) => KubeObject): string {
  const items = page.entries.map((e) => (present ? JSON.stringify(present(e.object())) : e.json));
  return `{"items":[${items.join(',')}],"totalItems":${page.total}}`;
}
