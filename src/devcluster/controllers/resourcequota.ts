// ResourceQuota controller: keeps each quota's `status.hard` (its spec.hard) and `status.used` (what the
// namespace's objects charge, admission/quota-usage.ts). One key per namespace: a burst of pod or object events
// in a namespace is one recount, de-duplicated by the queue.
import { formatQuantity } from '../../k8s/quantity.ts';
import { charges, quotaUsed } from '../admission/quota-usage.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
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
