// What an object charges against a ResourceQuota, as kube's quota evaluators measure it: object counts
// (`count/<resource>.<group>` and the legacy names `pods`, `services`, ...), a pod's compute resources (not once it
// has finished), services' load balancers and node ports, claims' storage. Shared by quota admission and the
// ResourceQuota controller, so both count the same way.
import {
  addQuantities,
  addQuantity,
  type Quantities,
  type Quantity,
  quantitiesOf,
  quantity,
  unitValue,
  ZERO,
} from '../../k8s/quantity.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj, Store } from '../store.ts';
import { inScope } from './quota-scopes.ts';

/** Legacy object-count names (the core kinds quota counted before `count/...`). */
const LEGACY_COUNTS: Record<string, string> = {
  '/pods': 'pods',
  '/services': 'services',
  '/configmaps': 'configmaps',
  '/secrets': 'secrets',
  '/persistentvolumeclaims': 'persistentvolumeclaims',
  '/replicationcontrollers': 'replicationcontrollers',
  '/resourcequotas': 'resourcequotas',
};

/** Container resources a pod is charged for as `<name>`, `requests.<name>` and `limits.<name>`. */
const COMPUTE = ['cpu', 'memory', 'ephemeral-storage'];

/**
 * kube's pod compute quota names: a pod that leaves one unset is refused while a quota tracks it (kube's
 * backward-compatible rule), and they are what a scope other than BestEffort may track besides `pods`.
 */
export const POD_COMPUTE_NAMES = new Set([
  'cpu',
  'memory',
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
]);

/** `count/<resource>` (core) or `count/<resource>.<group>` of a storage key (`group/resource`). */
export function countName(res: string): string {
  const i = res.indexOf('/');
  const group = res.slice(0, i);
  const resource = res.slice(i + 1);
  return `count/${resource}${group ? `.${group}` : ''}`;
}

/** Whether a quota entry named `name` can be charged by objects of storage key `res`. */
export function charges(res: string, name: string): boolean {
  if (name === countName(res) || name === LEGACY_COUNTS[res]) return true;
  if (res === '/pods') return isPodResource(name);
  if (res === '/services') return name === 'services.loadbalancers' || name === 'services.nodeports';
  if (res === '/persistentvolumeclaims')
    return (
      name === 'requests.storage' ||
      /\.storageclass\.storage\.k8s\.io\/(requests\.storage|persistentvolumeclaims)$/.test(name)
    );
  return false;
}

function isPodResource(name: string): boolean {
  if (COMPUTE.includes(name)) return true;
  const dot = name.indexOf('.');
  if (dot < 0) return name.startsWith('hugepages-');
  const prefix = name.slice(0, dot);
  const rest = name.slice(dot + 1);
  // requests.<extended resource> (a domain-qualified name), never requests.storage (claims').
  if (prefix === 'requests')
    return COMPUTE.includes(rest) || rest.startsWith('hugepages-') || rest.includes('/');
  return prefix === 'limits' && COMPUTE.includes(rest);
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const resourcesOf = (c: Obj, k: 'requests' | 'limits') => quantitiesOf((c.resources as Obj | undefined)?.[k]);

/** Kubernetes' PodRequests / PodLimits: the containers' sum, at least any init container, plus the overhead. */
function podTotals(spec: Obj, k: 'requests' | 'limits'): Quantities {
  const total: Quantities = new Map();
  for (const c of list(spec.containers)) addQuantities(total, resourcesOf(c, k));
  for (const c of list(spec.initContainers))
    for (const [name, a] of resourcesOf(c, k)) {
      const have = total.get(name);
      if (!have || a.nano > have.nano) total.set(name, a);
    }
  const overhead = quantitiesOf(spec.overhead);
  for (const [name, a] of overhead)
    if (k === 'requests' || total.has(name)) total.set(name, addQuantity(total.get(name), a));
  return total;
}

/** kube's QuotaV1Pod: finished pods, and pods past their deletion grace, are not charged compute resources. */
function podCharged(pod: Obj, now: number): boolean {
  const phase = (pod.status as Obj | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const meta = pod.metadata as Obj;
  if (typeof meta.deletionTimestamp === 'string') {
    const grace = Number(meta.deletionGracePeriodSeconds ?? 0) * 1000;
    if (now > Date.parse(meta.deletionTimestamp) + grace) return false;
  }
  return true;
}

/** A container's (or a pod's) compute usage by quota name, as kube's podComputeUsageHelper. */
export function computeUsage(requests: Quantities, limits: Quantities): Quantities {
  const out: Quantities = new Map();
  for (const [name, a] of requests) {
    out.set(`requests.${name}`, a);
    if (COMPUTE.includes(name) || name.startsWith('hugepages-')) out.set(name, a);
  }
  for (const [name, a] of limits) if (COMPUTE.includes(name)) out.set(`limits.${name}`, a);
  return out;
}

/** A quantity rounded up to whole units (Quantity.RoundUp(0)): unchanged when it already is one. */
const wholeUnits = (q: Quantity): Quantity =>
  q.nano % 1_000_000_000n === 0n ? q : quantity(unitValue(q), q.format);

/** Everything `o` (stored under `res`) charges, by quota resource name. */
export function usageOf(res: string, o: Obj, now: number): Quantities {
  const out: Quantities = new Map([[countName(res), quantity(1)]]);
  const legacy = LEGACY_COUNTS[res];
  const spec = isObj(o.spec) ? o.spec : {};
  if (res === '/pods') {
    if (!podCharged(o, now)) return out;
    out.set('pods', quantity(1));
    return addQuantities(out, computeUsage(podTotals(spec, 'requests'), podTotals(spec, 'limits')));
  }
  if (legacy) out.set(legacy, quantity(1));
  if (res === '/services') {
    const ports = list(spec.ports);
    const lb = spec.type === 'LoadBalancer';
    // A load balancer that allocates no node ports counts only the node ports it names.
    const nodePorts =
      lb && spec.allocateLoadBalancerNodePorts === false
        ? ports.filter((p) => typeof p.nodePort === 'number' && p.nodePort !== 0).length
        : ports.length;
    out.set('services.loadbalancers', quantity(lb ? 1 : 0));
    out.set('services.nodeports', quantity(lb || spec.type === 'NodePort' ? nodePorts : 0));
  } else if (res === '/persistentvolumeclaims') {
    // Counted in whole bytes, rounded up (kube's getStorageUsage).
    const requested = quantitiesOf((spec.resources as Obj | undefined)?.requests).get('storage');
    const storage = requested ? wholeUnits(requested) : ZERO;
    out.set('requests.storage', storage);
    if (typeof spec.storageClassName === 'string' && spec.storageClassName) {
      const sc = `${spec.storageClassName}.storageclass.storage.k8s.io`;
      out.set(`${sc}/requests.storage`, storage);
      out.set(`${sc}/persistentvolumeclaims`, quantity(1));
    }
  }
  return out;
}

/** The quota's hard limits by name. */
export const hardOf = (quota: Obj): Quantities => quantitiesOf((quota.spec as Obj | undefined)?.hard);

/** Storage keys of the objects that can charge any of these quota names. */
function chargedResources(names: string[]): string[] {
  const out = new Set<string>();
  for (const name of names) {
    for (const [res, legacy] of Object.entries(LEGACY_COUNTS)) if (legacy === name) out.add(res);
    const count = /^count\/([^.]+)(?:\.(.+))?$/.exec(name);
    if (count) out.add(`${count[2] ?? ''}/${count[1]}`);
  }
  for (const name of names) {
    if (charges('/pods', name)) out.add('/pods');
    if (charges('/services', name)) out.add('/services');
    if (charges('/persistentvolumeclaims', name)) out.add('/persistentvolumeclaims');
  }
  return [...out];
}

/** Stored objects' usage (stored objects are replaced, never changed, on write); deleted pods' depends on the time. */
const usageCache = new WeakMap<Obj, Quantities>();

function storedUsage(res: string, o: Obj, now: number): Quantities {
  if ((o.metadata as Obj | undefined)?.deletionTimestamp) return usageOf(res, o, now);
  let u = usageCache.get(o);
  if (!u) {
    u = usageOf(res, o, now);
    usageCache.set(o, u);
  }
  return u;
}

/** What the namespace's stored objects charge against `quota`, for `names` (default: each of its hard names). */
export function quotaUsed(
  store: Store,
  ns: string,
  quota: Obj,
  now: number,
  names: string[] = [...hardOf(quota).keys()],
): Quantities {
  const wanted = new Set(names);
  const used: Quantities = new Map();
  for (const name of names) used.set(name, ZERO);
  for (const res of chargedResources(names)) {
    for (const e of store.list(res, ns) as Entry[]) {
      if (!inScope(quota, res, e.obj)) continue;
      for (const [name, a] of storedUsage(res, e.obj, now))
        if (wanted.has(name)) used.set(name, addQuantity(used.get(name), a));
    }
  }
  return used;
}
