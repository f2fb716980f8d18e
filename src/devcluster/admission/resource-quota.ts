// The ResourceQuota admission plugin: a create, or an update that charges more (a Service turned NodePort or
// LoadBalancer, a claim or a pod resized), that would take any quota of its namespace past `spec.hard` is refused
// (403), as are pods that leave cpu or memory unset while a quota tracks them. Usage is computed from the store at
// admission time: the dev cluster is one process and a write is checked and stored in one synchronous step, so two
// writes can never both take the last slot.
import { formatQuantity, type Quantities, quantitiesOf, subtractQuantity, ZERO } from '../../k8s/quantity.ts';
import { isObj } from '../meta.ts';
import type { Obj, Store } from '../store.ts';
import { inScope } from './quota-scopes.ts';
import { charges, computeUsage, hardOf, POD_COMPUTE_NAMES, quotaUsed, usageOf } from './quota-usage.ts';

/**
 * Why the write is refused (the text after `<resource> "<name>" is forbidden: `), or undefined. An update gives the
 * stored object it replaces (`old`) and the subresource it writes: it is charged the growth of its usage.
 */
export function quotaRefusal(
  store: Store,
  res: string,
  ns: string,
  o: Obj,
  now: number,
  update?: { old: Obj; sub?: string },
): string | undefined {
  const quotas = store.list('/resourcequotas', ns);
  if (quotas.length === 0 || (update && !checkedOnUpdate(res, update.sub))) return undefined;
  const old = update?.old;
  const delta = usageOf(res, o, now);
  if (old) subtractUsage(delta, usageOf(res, old, now));
  for (const [name, a] of delta) if (a.nano === 0n) delta.delete(name);
  for (const q of quotas) {
    if (!inScope(q.obj, res, o)) continue;
    const hard = hardOf(q.obj);
    const tracked = [...hard.keys()].filter((name) => charges(res, name));
    if (tracked.length === 0) continue;
    if (res === '/pods') {
      const missing = unspecified(
        o,
        tracked.filter((n) => POD_COMPUTE_NAMES.has(n)),
      );
      if (missing) return `failed quota: ${q.name}: must specify ${missing}`;
    }
    const requested = tracked.filter((name) => delta.has(name));
    if (requested.length === 0) continue;
    const used = quotaUsed(store, ns, q.obj, now, requested);
    const exceeded = requested.filter((name) => {
      const limit = hard.get(name);
      return limit !== undefined && (used.get(name)?.nano ?? 0n) + (delta.get(name)?.nano ?? 0n) > limit.nano;
    });
    if (exceeded.length > 0)
      return `exceeded quota: ${q.name}, requested: ${printQuantities(delta, exceeded)}, used: ${printQuantities(used, exceeded)}, limited: ${printQuantities(hard, exceeded)}`;
  }
  return undefined;
}

/**
 * Which updates kube's quota evaluators check: every update of a Service or a claim (its type, ports or size can
 * change), and a pod's resize (pods/resize): a plain pod update cannot change its resources. Object counts never
 * change on update.
 */
const checkedOnUpdate = (res: string, sub: string | undefined): boolean =>
  sub === 'resize' ? res === '/pods' : res === '/services' || res === '/persistentvolumeclaims';

/** new - old per name, floored at 0, as kube bills an update. */
function subtractUsage(usage: Quantities, prev: Quantities): void {
  for (const [name, a] of usage) {
    const diff = subtractQuantity(a, prev.get(name) ?? ZERO);
    usage.set(name, diff.nano > 0n ? diff : ZERO);
  }
}

/** `limits.cpu for: a,b; requests.memory for: a` for the containers that leave a required name unset. */
function unspecified(pod: Obj, required: string[]): string | undefined {
  if (required.length === 0) return undefined;
  const spec = isObj(pod.spec) ? pod.spec : {};
  const containers = [spec.containers, spec.initContainers].flatMap((l) =>
    Array.isArray(l) ? l.filter(isObj) : [],
  );
  const missing = new Map<string, Set<string>>();
  for (const c of containers) {
    const r = isObj(c.resources) ? c.resources : {};
    const has = computeUsage(quantitiesOf(r.requests), quantitiesOf(r.limits));
    for (const name of required)
      if (!has.has(name)) {
        const names = missing.get(name) ?? new Set<string>();
        names.add(String(c.name));
        missing.set(name, names);
      }
  }
  if (missing.size === 0) return undefined;
  return [...missing.keys()]
    .sort()
    .map((name) => `${name} for: ${[...(missing.get(name) ?? [])].sort().join(',')}`)
    .join('; ');
}

/** `a=1,b=2` sorted by name, as the quota admission plugin prints resource lists. */
function printQuantities(list: Quantities, keys: Iterable<string>): string {
  return [...keys]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k) ?? ZERO)}`)
    .join(',');
}
