// ResourceQuota and LimitRange: quantities stored in canonical form (as kube re-encodes them), LimitRange's
// Container defaults (a max is the default limit, a default limit the default request, a min the default
// request), and kube's validation of both (unknown quota names, negative amounts, min > max, ...: 422).
import {
  formatQuantity,
  milliValue,
  parseQuantity,
  type Quantity,
  quantityJsonText,
} from '../../k8s/quantity.ts';
import { badRequest, type StatusCause } from '../../k8s/status.ts';
import { scopeRequirements } from '../admission/quota-scopes.ts';
import { POD_COMPUTE_NAMES } from '../admission/quota-usage.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { strategy } from './strategy.ts';

/** Quota names kube accepts without a domain (IsStandardQuotaResourceName). */
const QUOTA_NAMES = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
]);
/** Counted as whole objects: fractions are refused. */
const INTEGER_NAMES = new Set([...QUOTA_NAMES].filter((n) => !/cpu|memory|storage/.test(n)));
const SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
];
const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
const QUALIFIED =
  /^(?:[a-z0-9]([-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

const invalidCause = (field: string, value: unknown, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: "${String(value)}": ${why}`,
  field,
});

/**
 * Rewrites a ResourceList's quantities in canonical form. A value that is no quantity fails decoding in kube (400);
 * these kinds have no published schema here for the decoder to catch it, so it is refused here.
 */
function canonicalList(list: unknown, kind: string): void {
  if (!isObj(list)) return;
  for (const [k, v] of Object.entries(list)) {
    const a = parseQuantity(typeof v === 'string' ? quantityJsonText(v) : v);
    if (!a)
      throw badRequest(
        `${kind} in version "v1" cannot be handled as a ${kind}: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      );
    list[k] = formatQuantity(a);
  }
}

/** A JSON value's Go decoding name, for messages. */
const jsonType = (v: unknown) =>
  Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'object' ? 'object' : typeof v;

/**
 * The scope fields' JSON types, which kube's decoder enforces (400): `scopes` a list of strings, `scopeSelector` an
 * object whose `matchExpressions` are objects with string `scopeName` and `operator` and a string list `values`.
 */
function checkScopeShapes(spec: Obj): void {
  const fail: (v: unknown, field: string, type: string) => never = (v, field, type) => {
    throw badRequest(
      `ResourceQuota in version "v1" cannot be handled as a ResourceQuota: json: cannot unmarshal ${jsonType(v)} into Go struct field ${field} of type ${type}`,
    );
  };
  const strings = (v: unknown, field: string, type: string) => {
    if (v === undefined || v === null) return;
    if (!Array.isArray(v)) fail(v, field, `[]${type}`);
    else for (const x of v) if (typeof x !== 'string') fail(x, field, type);
  };
  strings(spec.scopes, 'ResourceQuotaSpec.spec.scopes', 'v1.ResourceQuotaScope');
  const selector = spec.scopeSelector;
  if (selector === undefined || selector === null) return;
  if (!isObj(selector)) fail(selector, 'ResourceQuotaSpec.spec.scopeSelector', 'v1.ScopeSelector');
  const exprs = selector.matchExpressions;
  if (exprs === undefined || exprs === null) return;
  const field = 'ScopeSelector.spec.scopeSelector.matchExpressions';
  if (!Array.isArray(exprs)) fail(exprs, field, '[]v1.ScopedResourceSelectorRequirement');
  for (const e of exprs) {
    if (!isObj(e)) fail(e, field, 'v1.ScopedResourceSelectorRequirement');
    for (const key of ['scopeName', 'operator'])
      if (e[key] !== undefined && e[key] !== null && typeof e[key] !== 'string')
        fail(e[key], `ScopedResourceSelectorRequirement.${field}.${key}`, 'string');
    strings(e.values, `ScopedResourceSelectorRequirement.${field}.values`, 'string');
  }
}

function validateQuotaName(name: string, field: string, causes: StatusCause[]): void {
  if (!QUALIFIED.test(name) || name.length > 316) {
    causes.push(
      invalidCause(field, name, "name part must consist of alphanumeric characters, '-', '_' or '.'"),
    );
    return;
  }
  if (name.includes('/') || name.startsWith('hugepages-') || name.startsWith('requests.hugepages-')) return;
  if (!QUOTA_NAMES.has(name)) {
    causes.push(invalidCause(field, name, 'must be a standard resource type or fully qualified'));
    causes.push(invalidCause(field, name, 'must be a standard resource for quota'));
  }
}

function validateQuotaList(list: unknown, path: string, causes: StatusCause[]): void {
  if (!isObj(list)) return;
  for (const [name, v] of Object.entries(list)) {
    const field = `${path}[${name}]`;
    validateQuotaName(name, field, causes);
    const a = parseQuantity(v);
    if (!a) continue;
    if (a.nano < 0n) causes.push(invalidCause(field, v, 'must be greater than or equal to 0'));
    else if (INTEGER_NAMES.has(name) && milliValue(a) % 1000n !== 0n)
      causes.push(invalidCause(field, v, 'must be an integer'));
  }
}

/** What kube's IsResourceQuotaScopeValidForResource allows a scope to track, of the standard quota names. */
function scopeTracks(scope: string, name: string): boolean {
  const standard =
    QUOTA_NAMES.has(name) || name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
  if (!standard || !SCOPES.includes(scope)) return true;
  if (name === 'pods') return true;
  return scope !== 'BestEffort' && POD_COMPUTE_NAMES.has(name);
}

/** A Go `%#v` of a string list, as kube's field errors print a list value. */
const goStrings = (type: string, values: string[]) =>
  `${type}{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

const rawInvalid = (field: string, repr: string, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${repr}: ${why}`,
  field,
});

/** kube's conflicting pairs: a quota cannot select both halves of one. */
function conflicting(scopes: string[]): boolean {
  return (
    (scopes.includes('BestEffort') && scopes.includes('NotBestEffort')) ||
    (scopes.includes('Terminating') && scopes.includes('NotTerminating'))
  );
}

/** kube's validateResourceQuotaScopes. */
function validateScopes(spec: Obj, hard: string[], causes: StatusCause[]): void {
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.map(String) : [];
  const repr = goStrings('[]core.ResourceQuotaScope', scopes);
  for (const scope of scopes) {
    if (!SCOPES.includes(scope)) causes.push(rawInvalid('spec.scopes', repr, 'unsupported scope'));
    for (const name of hard)
      if (!scopeTracks(scope, name))
        causes.push(rawInvalid('spec.scopes', repr, 'unsupported scope applied to resource'));
  }
  if (conflicting(scopes)) causes.push(rawInvalid('spec.scopes', repr, 'conflicting scopes'));
}

/** kube's validateScopedResourceSelectorRequirement. */
function validateScopeSelector(spec: Obj, hard: string[], causes: StatusCause[]): void {
  if (!isObj(spec.scopeSelector)) return;
  const path = 'spec.scopeSelector.matchExpressions';
  const requirements = scopeRequirements({ scopeSelector: spec.scopeSelector });
  const repr = `core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{${requirements
    .map(
      (r) =>
        `core.ScopedResourceSelectorRequirement{ScopeName:${JSON.stringify(r.scopeName)}, Operator:${JSON.stringify(r.operator)}, Values:${r.values.length ? goStrings('[]string', r.values) : '[]string(nil)'}}`,
    )
    .join(', ')}}}`;
  for (const r of requirements) {
    if (!SCOPES.includes(r.scopeName))
      causes.push(invalidCause(`${path}.scopeName`, r.scopeName, 'unsupported scope'));
    for (const name of hard)
      if (!scopeTracks(r.scopeName, name))
        causes.push(rawInvalid(path, repr, 'unsupported scope applied to resource'));
    if (r.scopeName !== 'PriorityClass' && SCOPES.includes(r.scopeName) && r.operator !== 'Exists')
      causes.push(
        invalidCause(
          `${path}.operator`,
          r.operator,
          "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    if (r.operator === 'In' || r.operator === 'NotIn') {
      if (r.values.length === 0)
        causes.push({
          reason: 'FieldValueRequired',
          message:
            "Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
          field: `${path}.values`,
        });
    } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
      if (r.values.length > 0)
        causes.push(
          rawInvalid(
            `${path}.values`,
            goStrings('[]string', r.values),
            "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
          ),
        );
    } else causes.push(invalidCause(`${path}.operator`, r.operator, 'not a valid selector operator'));
  }
  if (conflicting(requirements.map((r) => r.scopeName)))
    causes.push(rawInvalid(path, repr, 'conflicting scopes'));
}

export const resourceQuotaStrategy = strategy({
  prepareForCreate(o) {
    delete o.status; // the quota controller fills it in
  },
  canonicalize(o) {
    if (isObj(o.spec)) {
      canonicalList(o.spec.hard, 'ResourceQuota');
      checkScopeShapes(o.spec);
    }
    if (isObj(o.status)) {
      canonicalList(o.status.hard, 'ResourceQuota');
      canonicalList(o.status.used, 'ResourceQuota');
    }
  },
  validate(o) {
    const causes: StatusCause[] = [];
    const spec = isObj(o.spec) ? o.spec : {};
    validateQuotaList(spec.hard, 'spec.hard', causes);
    const hard = isObj(spec.hard) ? Object.keys(spec.hard).sort() : [];
    validateScopes(spec, hard, causes);
    validateScopeSelector(spec, hard, causes);
    if (isObj(o.status)) {
      validateQuotaList(o.status.hard, 'status.hard', causes);
      validateQuotaList(o.status.used, 'status.used', causes);
    }
    return causes;
  },
});

const itemsOf = (o: Obj): Obj[] => {
  const limits = (o.spec as Obj | undefined)?.limits;
  return Array.isArray(limits) ? limits.filter(isObj) : [];
};

/** kube's SetDefaults_LimitRangeItem for Container items. */
function defaultItem(item: Obj): void {
  for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'])
    canonicalList(item[key], 'LimitRange');
  if (item.type !== 'Container') return;
  const def = isObj(item.default) ? item.default : {};
  const req = isObj(item.defaultRequest) ? item.defaultRequest : {};
  for (const [k, v] of Object.entries(isObj(item.max) ? item.max : {})) def[k] ??= v;
  for (const [k, v] of Object.entries(def)) req[k] ??= v;
  for (const [k, v] of Object.entries(isObj(item.min) ? item.min : {})) req[k] ??= v;
  if (Object.keys(def).length > 0) item.default = def;
  if (Object.keys(req).length > 0) item.defaultRequest = req;
}

function validateItem(item: Obj, i: number, seen: Set<string>, causes: StatusCause[]): void {
  const path = `spec.limits[${i}]`;
  const type = String(item.type ?? '');
  if (!LIMIT_TYPES.includes(type) && !type.includes('/'))
    causes.push(invalidCause(`${path}.type`, type, 'must be a standard limit type or fully qualified'));
  if (seen.has(type))
    causes.push({
      reason: 'FieldValueDuplicate',
      message: `Duplicate value: "${type}"`,
      field: `${path}.type`,
    });
  seen.add(type);
  const lists: Record<string, Map<string, Quantity>> = {};
  for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) {
    const m = new Map<string, Quantity>();
    for (const [k, v] of Object.entries(isObj(item[key]) ? item[key] : {})) {
      const a = parseQuantity(v);
      if (!a) continue;
      if (a.nano < 0n)
        causes.push(invalidCause(`${path}.${key}[${k}]`, v, 'must be greater than or equal to 0'));
      m.set(k, a);
    }
    lists[key] = m;
  }
  if (type === 'Pod')
    for (const key of ['default', 'defaultRequest'])
      if (lists[key].size > 0)
        causes.push({
          reason: 'FieldValueForbidden',
          message: "Forbidden: may not be specified when `type` is 'Pod'",
          field: `${path}.${key}`,
        });
  if (type === 'PersistentVolumeClaim' && !lists.min.has('storage') && !lists.max.has('storage'))
    causes.push({
      reason: 'FieldValueRequired',
      message:
        'Required value: either minimum or maximum storage value is required, but neither was provided',
      field: `${path}.limits`,
    });
  const keys = new Set(Object.values(lists).flatMap((m) => [...m.keys()]));
  const s = formatQuantity;
  for (const k of [...keys].sort()) {
    const [min, max, def, req, ratio] = [
      'min',
      'max',
      'default',
      'defaultRequest',
      'maxLimitRequestRatio',
    ].map((key) => lists[key].get(k));
    const bad = (key: string, value: Quantity, why: string) =>
      causes.push(invalidCause(`${path}.${key}[${k}]`, s(value), why));
    if (min && max && min.nano > max.nano)
      bad('min', min, `min value ${s(min)} is greater than max value ${s(max)}`);
    if (req && min && min.nano > req.nano)
      bad('defaultRequest', req, `min value ${s(min)} is greater than default request value ${s(req)}`);
    if (req && max && req.nano > max.nano)
      bad('defaultRequest', req, `default request value ${s(req)} is greater than max value ${s(max)}`);
    if (req && def && req.nano > def.nano)
      bad(
        'defaultRequest',
        req,
        `default request value ${s(req)} is greater than default limit value ${s(def)}`,
      );
    if (def && min && min.nano > def.nano)
      bad('default', min, `min value ${s(min)} is greater than default value ${s(def)}`);
    if (def && max && def.nano > max.nano)
      bad('default', max, `default value ${s(def)} is greater than max value ${s(max)}`);
    if (ratio && ratio.nano < 1000n) bad('maxLimitRequestRatio', ratio, `ratio ${s(ratio)} is less than 1`);
  }
}

export const limitRangeStrategy = strategy({
  canonicalize(o) {
    for (const item of itemsOf(o)) defaultItem(item);
  },
  validate(o) {
    const causes: StatusCause[] = [];
    const seen = new Set<string>();
    itemsOf(o).forEach((item, i) => {
      validateItem(item, i, seen, causes);
    });
    return causes;
  },
});
