// Spec comparison for updates that may change only some fields (pods, claims): JSON values compared as kube's
// Semantic.DeepEqual compares the Go values they decode to, and the changed fields listed for the refusal's message
// (kube prints a Go diff of its internal type; here the JSON paths and values, bounded).
import { formatQuantity, parseQuantity } from '../../k8s/quantity.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';

/** Changed fields listed in the message, and the characters of each value shown: the message stays bounded. */
const MAX_DIFFS = 20;
const MAX_VALUE = 200;

/** ResourceList fields and single quantities (of pod and claim specs), compared by value as Semantic.DeepEqual does. */
const QUANTITY_LISTS = new Set(['requests', 'limits', 'overhead']);
const QUANTITY_FIELDS = new Set(['sizeLimit', 'divisor']);

const canonicalQuantity = (v: unknown): unknown => {
  const q = parseQuantity(v);
  return q ? formatQuantity(q) : v;
};

/**
 * A JSON value in the form two equal Go values share: keys sorted, null and empty lists and objects dropped (Go
 * decodes them as the zero value), quantities canonical. Objects have no prototype, so any key is an own property.
 */
export function comparable(v: unknown): unknown {
  if (Array.isArray(v)) return v.length > 0 ? v.map((x) => comparable(x) ?? null) : undefined;
  if (!isObj(v)) return v ?? undefined;
  const out: Obj = Object.create(null);
  for (const k of Object.keys(v).sort()) {
    const x = v[k];
    let c: unknown;
    if (QUANTITY_LISTS.has(k) && isObj(x)) {
      const canonical: Obj = Object.create(null);
      for (const name of Object.keys(x).sort()) canonical[name] = canonicalQuantity(x[name]);
      c = comparable(canonical);
    } else c = QUANTITY_FIELDS.has(k) ? canonicalQuantity(x) : comparable(x);
    if (c !== undefined) out[k] = c;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

type Difference = { path: string; before: unknown; after: unknown };

/** The leaf paths where two comparable values differ. */
function differences(before: unknown, after: unknown, path: string, out: Difference[]): void {
  if (isObj(before) && isObj(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const k of keys) differences(before[k], after[k], path ? `${path}.${k}` : k, out);
  } else if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((x, i) => {
      differences(x, after[i], `${path}[${i}]`, out);
    });
  } else if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, before, after });
}

const shown = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE)}...` : s;
};

/**
 * The fields where `after` differs from `before`, in the shape of kube's diff of a `type` (`-` the stored value, `+`
 * the new one), or undefined when they are equal.
 */
export function changedFields(type: string, before: Obj, after: Obj): string | undefined {
  const changed: Difference[] = [];
  differences(comparable(before), comparable(after), '', changed);
  if (changed.length === 0) return undefined;
  const lines = [`  ${type}{`];
  for (const d of changed.slice(0, MAX_DIFFS)) {
    if (d.before !== undefined) lines.push(`- \t${d.path}: ${shown(d.before)},`);
    if (d.after !== undefined) lines.push(`+ \t${d.path}: ${shown(d.after)},`);
  }
  if (changed.length > MAX_DIFFS) lines.push(`  \t... // ${changed.length - MAX_DIFFS} more changed fields`);
  lines.push('  }');
  return lines.join('\n');
}
