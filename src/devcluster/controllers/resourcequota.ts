// ResourceQuota controller: keeps each quota's `status.hard` (its spec.hard) and `status.used` (what the
// namespace's objects charge, admission/quota-usage.ts). One key per namespace: a burst of pod or object events
// in a namespace is one recount, de-duplicated by the queue.
import { formatQuantity, quantitiesOf } from '../../k8s/quantity.ts';
import { charges, quotaUsed } from '../admission/quota-usage.ts';
import { isObj, jsonEqual } from '../meta.ts';
import type { Obj, StoreEvent } from '../store.ts';
import { type Controller, type ControllerContext, writeStatus } from './framework.ts';

const QUOTAS = '/resourcequotas';

const hardNames = (q: Obj): string[] => {
  const hard = (q.spec as Obj | undefined)?.hard;
  return isObj(hard) ? Object.keys(hard) : [];
};

export function resourceQuotaController(ctx: ControllerContext): Controller {
  return {
    name: 'resourcequota',
    watches: [
      { res: QUOTAS, keys: (ev) => [ev.ns] },
      {
        // Any object a quota of its namespace charges (one short list when the namespace has quotas, else none).
        res: '*',
        keys: (ev) =>
          ev.ns &&
          ev.res !== QUOTAS &&
          ctx.store.list(QUOTAS, ev.ns).some((q) => hardNames(q.obj).some((n) => charges(ev.res, n)))
            ? [ev.ns]
            : [],
      },
    ],
    reconcile(ns) {
      const d = ctx.def('', 'resourcequotas');
      const now = ctx.now();
      for (const q of ctx.store.list(QUOTAS, ns)) {
        const hard = (q.obj.spec as Obj | undefined)?.hard;
        const used = quotaUsed(ctx.store, ns, q.obj, now);
        writeStatus(ctx, d, q, {
          hard: isObj(hard) ? { ...hard } : {},
          used: Object.fromEntries([...used].map(([name, a]) => [name, formatQuantity(a)])),
        });
      }
      return undefined;
    },
  };
}

/**
 * Whether a quota change can let a refused create through: the quota deleted, a hard limit raised or dropped, or its
 * scopes changed. (Controllers held by a quota retry on back-off, up to 30 s; these changes wake them at once.)
 */
export function quotaLoosened(ev: StoreEvent): boolean {
  if (ev.res !== QUOTAS) return false;
  if (ev.type === 'DELETED') return true;
  if (ev.type !== 'MODIFIED' || !ev.prev) return false;
  const before = isObj(ev.prev.spec) ? ev.prev.spec : {};
  const after = isObj(ev.obj.spec) ? ev.obj.spec : {};
  const hard = quantitiesOf(after.hard);
  for (const [name, q] of quantitiesOf(before.hard)) {
    const now = hard.get(name);
    if (!now || now.nano > q.nano) return true;
  }
  return !jsonEqual(before.scopes, after.scopes) || !jsonEqual(before.scopeSelector, after.scopeSelector);
}
