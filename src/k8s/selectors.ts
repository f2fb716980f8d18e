// Kubernetes label and field selectors: parsing (string and LabelSelector object forms) and matching.
// Shared by the dev cluster and kapiserver's aggregated APIs. Malformed input is a 400, never "match all".
import { badRequest } from './status.ts';

export type LabelOperator = 'Equals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export interface LabelSelector {
  requirements: LabelRequirement[];
  /** True when the selector has no requirements (matches everything). */
  empty: boolean;
  matches(labels: Record<string, string> | undefined | null): boolean;
  toString(): string;
}

// Qualified names (optionally DNS-subdomain prefixed) and label values, as Kubernetes validates them.
const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string, selector: string): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : '';
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const ok =
    NAME_PART.test(name) &&
    (slash < 0 || (prefix.length > 0 && prefix.length <= 253 && PREFIX.test(prefix) && !name.includes('/')));
  if (!ok)
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
}

function checkValue(value: string, selector: string): void {
  if (value.length > 63 || !VALUE.test(value)) {
    throw badRequest(
      `unable to parse requirement: invalid label value: "${value}" in selector "${selector}"`,
    );
  }
}

function matchRequirement(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Equals':
    case 'In':
      return has && r.values.includes(v as string);
    case 'NotEquals':
    case 'NotIn':
      return !has || !r.values.includes(v as string);
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'Equals':
      return `${r.key}=${r.values[0]}`;
    case 'NotEquals':
      return `${r.key}!=${r.values[0]}`;
    case 'In':
      return `${r.key} in (${r.values.join(',')})`;
    case 'NotIn':
      return `${r.key} notin (${r.values.join(',')})`;
  }
}

function makeSelector(requirements: LabelRequirement[]): LabelSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches(labels) {
      const l = labels ?? {};
      return requirements.every((r) => matchRequirement(r, l));
    },
    toString() {
      return requirements.map(requirementString).join(',');
    },
  };
}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(s: string, selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0 || depth > 1)
      throw badRequest(`unable to parse selector "${selector}": unbalanced parentheses`);
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) throw badRequest(`unable to parse selector "${selector}": unbalanced parentheses`);
  parts.push(cur);
  return parts;
}

/** Parses the string form (`a=b,c!=d,e in (x,y),f notin (z),g,!h`). Empty string selects everything. */
export function parseLabelSelector(selector: string): LabelSelector {
  const s = selector.trim();
  if (s === '') return makeSelector([]);
  const reqs: LabelRequirement[] = [];
  for (const raw of splitTopLevel(s, selector)) {
    const part = raw.trim();
    if (part === '') throw badRequest(`unable to parse selector "${selector}": empty requirement`);
    let m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (m) {
      const values = m[3]
        .split(',')
        .map((v) => v.trim())
        .filter((v, _i, all) => v !== '' || all.length > 1);
      if (values.length === 0)
        throw badRequest(`unable to parse selector "${selector}": set requires at least one value`);
      checkKey(m[1], selector);
      for (const v of values) checkValue(v, selector);
      reqs.push({ key: m[1], operator: m[2] === 'in' ? 'In' : 'NotIn', values });
      continue;
    }
    m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
    if (m) {
      checkKey(m[1], selector);
      checkValue(m[3], selector);
      reqs.push({ key: m[1], operator: m[2] === '!=' ? 'NotEquals' : 'Equals', values: [m[3]] });
      continue;
    }
    m = /^!\s*([^=!\s(),]+)$/.exec(part);
    if (m) {
      checkKey(m[1], selector);
      reqs.push({ key: m[1], operator: 'DoesNotExist', values: [] });
      continue;
    }
    if (/^[^=!\s(),]+$/.test(part)) {
      checkKey(part, selector);
      reqs.push({ key: part, operator: 'Exists', values: [] });
      continue;
    }
    throw badRequest(`unable to parse requirement: found '${part}', expected a label selector requirement`);
  }
  return makeSelector(reqs);
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: { key: string; operator: string; values?: string[] | null }[] | null;
}

/** Converts a metav1.LabelSelector object (as in Deployment.spec.selector) into a matcher. */
export function labelSelectorFromObject(obj: LabelSelectorObject | null | undefined): LabelSelector {
  const reqs: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(obj?.matchLabels ?? {})) {
    checkKey(key, 'matchLabels');
    checkValue(String(value), 'matchLabels');
    reqs.push({ key, operator: 'Equals', values: [String(value)] });
  }
  for (const e of obj?.matchExpressions ?? []) {
    checkKey(e.key, 'matchExpressions');
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          throw badRequest(`matchExpressions: ${e.operator} requires values for "${e.key}"`);
        reqs.push({ key: e.key, operator: e.operator, values });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          throw badRequest(`matchExpressions: ${e.operator} must have no values for "${e.key}"`);
        reqs.push({ key: e.key, operator: e.operator, values: [] });
        break;
      default:
        throw badRequest(`matchExpressions: "${e.operator}" is not a valid label selector operator`);
    }
  }
  return makeSelector(reqs);
}

export interface FieldRequirement {
  field: string;
  operator: 'Equals' | 'NotEquals';
  value: string;
}

/** Parses `a=b,c!=d` (also `==`); values may escape `\,` `\=` `\\`. The caller checks which fields it supports. */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const s = selector.trim();
  if (s === '') return [];
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\' && i + 1 < s.length) {
      cur += ch + s[i + 1];
      i++;
    } else if (ch === ',') {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((raw) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)(.*)$/.exec(raw);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${raw}'`);
    const value = m[3].replace(/\\(.)/g, '$1');
    return { field: m[1], operator: m[2] === '!=' ? 'NotEquals' : 'Equals', value };
  });
}

/** True when every requirement holds for the given field values (a missing field counts as ""). */
export function matchFields(reqs: FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => {
    const v = fields[r.field] ?? '';
    return r.operator === 'Equals' ? v === r.value : v !== r.value;
  });
}
