// Formatting helpers with the exact output of k8s.io/apimachinery and the kubectl printers:
// duration.HumanDuration, labels.FormatLabels, metav1.FormatLabelSelector.

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** duration.HumanDuration: `45s`, `5m3s`, `12m`, `3h2m`, `20h`, `2d5h`, `40d`, `2y30d`, `9y`. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** translateTimestampSince: `<unknown>` for a missing or unparsable timestamp. */
export function since(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now - t);
}

/** labels.FormatLabels: `a=b,c=d` sorted by key, `<none>` when empty. */
export function formatLabels(m: unknown): string {
  if (!isObj(m)) return '<none>';
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${String(m[k] ?? '')}`).join(',');
}

/** metav1.FormatLabelSelector: requirements sorted by key, `<none>` for an empty or missing selector. */
export function formatLabelSelector(sel: unknown): string {
  if (!isObj(sel)) return '<none>';
  const reqs: { key: string; text: string }[] = [];
  if (isObj(sel.matchLabels)) {
    for (const [k, v] of Object.entries(sel.matchLabels)) reqs.push({ key: k, text: `${k}=${String(v)}` });
  }
  if (Array.isArray(sel.matchExpressions)) {
    for (const e of sel.matchExpressions) {
      if (!isObj(e) || typeof e.key !== 'string') return '<error>';
      const values = Array.isArray(e.values) ? e.values.map(String).sort() : [];
      switch (e.operator) {
        case 'In':
          reqs.push({ key: e.key, text: `${e.key} in (${values.join(',')})` });
          break;
        case 'NotIn':
          reqs.push({ key: e.key, text: `${e.key} notin (${values.join(',')})` });
          break;
        case 'Exists':
          reqs.push({ key: e.key, text: e.key });
          break;
        case 'DoesNotExist':
          reqs.push({ key: e.key, text: `!${e.key}` });
          break;
        default:
          return '<error>';
      }
    }
  }
  if (reqs.length === 0) return '<none>';
  return reqs
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(',');
}
