// The JSONPath subset CRD additionalPrinterColumns use: `.spec.x`, `.status.y[0].z`,
// `.metadata.labels['app\.kubernetes\.io/name']`, `.items[*].name` (first match), optional `{...}`.

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

type Step = { field: string } | { index: number } | { any: true };

/** Parses a simple JSONPath; undefined when the expression is outside the supported subset. */
export function parseJsonPath(expr: string): Step[] | undefined {
  let s = expr.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  if (s.startsWith('$')) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      i++;
      let name = '';
      while (i < s.length && s[i] !== '.' && s[i] !== '[') {
        if (s[i] === '\\' && i + 1 < s.length) {
          name += s[i + 1];
          i += 2;
        } else {
          name += s[i++];
        }
      }
      if (name === '') return undefined;
      steps.push({ field: name });
    } else if (c === '[') {
      const end = s.indexOf(']', i);
      if (end < 0) return undefined;
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ any: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ field: inner.slice(1, -1).replace(/\\(.)/g, '$1') });
      else return undefined;
    } else {
      return undefined;
    }
  }
  return steps;
}

/** First value the path reaches in `obj`, or undefined. */
export function evalJsonPath(obj: unknown, steps: Step[]): unknown {
  let cur: unknown = obj;
  for (const step of steps) {
    if (cur === undefined || cur === null) return undefined;
    if ('field' in step) {
      cur = isObj(cur) ? cur[step.field] : undefined;
    } else if ('index' in step) {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[step.index < 0 ? cur.length + step.index : step.index];
    } else {
      cur = isObj(cur) ? Object.values(cur)[0] : Array.isArray(cur) ? cur[0] : undefined;
    }
  }
  return cur;
}
