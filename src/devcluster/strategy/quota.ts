// ResourceQuota and LimitRange: quantities stored in canonical form (as kube re-encodes them), LimitRange's
// Container defaults (a max is the default limit, a default limit the default request, a min the default
// request), and kube's validation of both (unknown quota names, negative amounts, min > max, ...: 422).
import { formatQuantity, milliValue, parseQuantity, type Quantity } from '../../k8s/quantity.ts';
import { badRequest, type StatusCause } from '../../k8s/status.ts';
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
/** What a BestEffort quota may track; the other scopes also allow the compute names. */
const BEST_EFFORT_NAMES = new Set(['pods', 'count/pods']);
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
    const a = parseQuantity(v);
    if (!a)
      throw badRequest(
        `${kind} in version "v1" cannot be handled as a ${kind}: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      );
    list[k] = formatQuantity(a);
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

function validateScopes(spec: Obj, causes: StatusCause[]): void {
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.map(String) : [];
  const hard = isObj(spec.hard) ? Object.keys(spec.hard) : [];
  scopes.forEach((scope, i) => {
    const field = `spec.scopes[${i}]`;
    if (!SCOPES.includes(scope)) causes.push(invalidCause(field, scope, 'unsupported scope'));
    const allowed = (name: string) =>
      scope === 'BestEffort'
        ? BEST_EFFORT_NAMES.has(name)
        : BEST_EFFORT_NAMES.has(name) || /^(requests\.|limits\.)?(cpu|memory)$/.test(name);
    for (const name of hard)
      if (!allowed(name))
        causes.push(invalidCause('spec.hard', name, `unsupported scope applied to resource`));
  });
  for (const [a, b] of [
    ['Terminating', 'NotTerminating'],
    ['BestEffort', 'NotBestEffort'],
  ])
    if (scopes.includes(a) && scopes.includes(b))
      causes.push(invalidCause('spec.scopes', scopes.join(','), 'conflicting scopes'));
}

export const resourceQuotaStrategy = strategy({
  prepareForCreate(o) {
    delete o.status; // the quota controller fills it in
  },
  canonicalize(o) {
    if (isObj(o.spec)) canonicalList(o.spec.hard, 'ResourceQuota');
    if (isObj(o.status)) {
      canonicalList(o.status.hard, 'ResourceQuota');
      canonicalList(o.status.used, 'ResourceQuota');
    }
  },
  validate(o) {
    const causes: StatusCause[] = [];
    const spec = isObj(o.spec) ? o.spec : {};
    validateQuotaList(spec.hard, 'spec.hard', causes);
    validateScopes(spec, causes);
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
