// The LimitRanger admission plugin: a new pod's containers get the namespace's LimitRange defaults (`default` as
// limits, `defaultRequest` as requests, noted in the `kubernetes.io/limit-ranger` annotation), then pods and
// claims are checked against min, max and maxLimitRequestRatio per Container, per Pod and per PersistentVolumeClaim.
import {
  addQuantity,
  formatQuantity,
  milliValue,
  type Quantities,
  type Quantity,
  quantitiesOf,
} from '../../k8s/quantity.ts';
import { isObj } from '../meta.ts';
import type { Obj, Store } from '../store.ts';

const ANNOTATION = 'kubernetes.io/limit-ranger';

const itemsOf = (lr: Obj): Obj[] => {
  const limits = (lr.spec as Obj | undefined)?.limits;
  return Array.isArray(limits) ? limits.filter(isObj) : [];
};
const containersOf = (spec: Obj, key: string): Obj[] =>
  Array.isArray(spec[key]) ? (spec[key] as unknown[]).filter(isObj) : [];

/** Fills unset container requests and limits from each LimitRange's Container defaults (kube's MutateLimit). */
export function applyLimitRangeDefaults(store: Store, ns: string, pod: Obj): void {
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const lr of store.list('/limitranges', ns)) {
    const requests: Obj = {};
    const limits: Obj = {};
    for (const item of itemsOf(lr.obj)) {
      if (item.type !== 'Container') continue;
      Object.assign(requests, isObj(item.defaultRequest) ? item.defaultRequest : {});
      Object.assign(limits, isObj(item.default) ? item.default : {});
    }
    if (Object.keys(requests).length === 0 && Object.keys(limits).length === 0) continue;
    const notes: string[] = [];
    for (const [key, what] of [
      ['containers', 'container'],
      ['initContainers', 'init container'],
    ])
      for (const c of containersOf(spec, key)) {
        if (!isObj(c.resources)) c.resources = {};
        const r = c.resources as Obj;
        const setRequests = fill(r, 'requests', requests);
        const setLimits = fill(r, 'limits', limits);
        if (setRequests.length) notes.push(`${setRequests.join(', ')} request for ${what} ${String(c.name)}`);
        if (setLimits.length) notes.push(`${setLimits.join(', ')} limit for ${what} ${String(c.name)}`);
      }
    if (notes.length === 0) continue;
    const meta = pod.metadata as Obj;
    meta.annotations = {
      ...(isObj(meta.annotations) ? meta.annotations : {}),
      [ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}`,
    };
  }
}

/** Sets the defaults a resource list lacks; returns the names set, sorted. */
function fill(resources: Obj, key: 'requests' | 'limits', defaults: Obj): string[] {
  const set: string[] = [];
  const have = isObj(resources[key]) ? (resources[key] as Obj) : {};
  for (const [name, v] of Object.entries(defaults)) {
    if (name in have) continue;
    have[name] = v;
    set.push(name);
  }
  if (set.length > 0 || isObj(resources[key])) resources[key] = have;
  return set.sort();
}

/** Why the namespace's LimitRanges refuse a new pod or claim (the first LimitRange that does), or undefined. */
export function limitRangeRefusal(store: Store, res: string, ns: string, o: Obj): string | undefined {
  if (res !== '/pods' && res !== '/persistentvolumeclaims') return undefined;
  const spec = isObj(o.spec) ? o.spec : {};
  for (const lr of store.list('/limitranges', ns)) {
    const errs: string[] = [];
    for (const item of itemsOf(lr.obj)) {
      if (res === '/pods') checkPod(item, spec, errs);
      else if (item.type === 'PersistentVolumeClaim') {
        const requests = quantitiesOf((spec.resources as Obj | undefined)?.requests);
        check(item, 'PersistentVolumeClaim', requests, new Map(), errs, true);
      }
    }
    if (errs.length === 1) return errs[0];
    if (errs.length > 1) return `[${errs.join(', ')}]`;
  }
  return undefined;
}

function checkPod(item: Obj, spec: Obj, errs: string[]): void {
  const containers = [...containersOf(spec, 'containers'), ...containersOf(spec, 'initContainers')];
  const rl = (c: Obj, k: string) => quantitiesOf((c.resources as Obj | undefined)?.[k]);
  if (item.type === 'Container') {
    for (const c of containers) check(item, 'Container', rl(c, 'requests'), rl(c, 'limits'), errs, false);
  } else if (item.type === 'Pod') {
    const total = (k: string) => {
      const sum: Quantities = new Map();
      for (const c of containersOf(spec, 'containers'))
        for (const [n, a] of rl(c, k)) sum.set(n, addQuantity(sum.get(n), a));
      for (const c of containersOf(spec, 'initContainers'))
        for (const [n, a] of rl(c, k)) if (a.nano > (sum.get(n)?.nano ?? -1n)) sum.set(n, a);
      return sum;
    };
    check(item, 'Pod', total('requests'), total('limits'), errs, false);
  }
}

/** kube's minConstraint, maxConstraint (maxRequestConstraint for claims) and limitRequestRatioConstraint. */
function check(
  item: Obj,
  type: string,
  requests: Quantities,
  limits: Quantities,
  errs: string[],
  requestsOnly: boolean,
): void {
  const s = (a: Quantity) => formatQuantity(a);
  for (const [name, min] of quantitiesOf(item.min)) {
    const req = requests.get(name);
    const lim = limits.get(name);
    if (!req) errs.push(`minimum ${name} usage per ${type} is ${s(min)}.  No request is specified`);
    else if (req.nano < min.nano)
      errs.push(`minimum ${name} usage per ${type} is ${s(min)}, but request is ${s(req)}`);
    else if (lim && lim.nano < min.nano)
      errs.push(`minimum ${name} usage per ${type} is ${s(min)}, but limit is ${s(lim)}`);
  }
  for (const [name, max] of quantitiesOf(item.max)) {
    const req = requests.get(name);
    const lim = limits.get(name);
    if (requestsOnly) {
      if (!req) errs.push(`maximum ${name} usage per ${type} is ${s(max)}.  No request is specified`);
      else if (req.nano > max.nano)
        errs.push(`maximum ${name} usage per ${type} is ${s(max)}, but request is ${s(req)}`);
    } else if (!lim) errs.push(`maximum ${name} usage per ${type} is ${s(max)}.  No limit is specified`);
    else if (lim.nano > max.nano)
      errs.push(`maximum ${name} usage per ${type} is ${s(max)}, but limit is ${s(lim)}`);
    else if (req && req.nano > max.nano)
      errs.push(`maximum ${name} usage per ${type} is ${s(max)}, but request is ${s(req)}`);
  }
  if (requestsOnly) return;
  for (const [name, ratio] of quantitiesOf(item.maxLimitRequestRatio)) {
    const req = requests.get(name);
    const lim = limits.get(name);
    const prefix = `${name} max limit to request ratio per ${type} is ${s(ratio)}`;
    if (!req || req.nano === 0n) errs.push(`${prefix}, but no request is specified or request is 0`);
    else if (!lim || lim.nano === 0n) errs.push(`${prefix}, but no limit is specified or limit is 0`);
    else {
      // kube compares milli values as floats (limitRequestRatioConstraint).
      const observed = Number(milliValue(lim)) / Number(milliValue(req));
      if (observed * 1000 > Number(milliValue(ratio)))
        errs.push(`${prefix}, but provided ratio is ${observed.toFixed(6)}`);
    }
  }
}
