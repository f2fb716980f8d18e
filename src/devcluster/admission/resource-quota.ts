// The ResourceQuota admission plugin: a create that would take any quota of its namespace past `spec.hard` is
// refused (403), as are pods that leave cpu or memory unset while a quota tracks them. Usage is computed from the
// store at admission time: the dev cluster is one process and a create is checked and stored in one synchronous
// step, so two creates can never both take the last slot.
import { formatQuantity, type Quantities, quantitiesOf, ZERO } from '../../k8s/quantity.ts';
import { isObj } from '../meta.ts';
import type { Obj, Store } from '../store.ts';
import { charges, computeUsage, hardOf, inScope, MUST_SPECIFY, quotaUsed, usageOf } from './quota-usage.ts';

/** Why the create is refused (the text after `<resource> "<name>" is forbidden: `), or undefined. */
export function quotaRefusal(store: Store, res: string, ns: string, o: Obj, now: number): string | undefined {
  const quotas = store.list('/resourcequotas', ns);
  if (quotas.length === 0) return undefined;
  const delta = usageOf(res, o, now);
  for (const [name, a] of delta) if (a.nano === 0n) delta.delete(name);
  for (const q of quotas) {
    if (!inScope(q.obj, res, o)) continue;
    const hard = hardOf(q.obj);
    const tracked = [...hard.keys()].filter((name) => charges(res, name));
    if (tracked.length === 0) continue;
    if (res === '/pods') {
      const missing = unspecified(
        o,
        tracked.filter((n) => MUST_SPECIFY.has(n)),
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
