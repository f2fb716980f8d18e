// Namespaces: created Active with the `kubernetes` finalizer and a default service account; a delete marks them
// Terminating and the namespace controller empties them before they go. Spec and status change only through the
// finalize and status subresources.
import { metaOf, nowSeconds } from '../meta.ts';
import type { Entry, Obj } from '../store.ts';
import { metadataFinalizers, objAt, type StrategyContext, strategy } from './strategy.ts';

/** What the service-account controller does for every new namespace. */
function createDefaultServiceAccount(ns: string, ctx: StrategyContext): void {
  const sa = ctx.registry.find('', 'v1', 'serviceaccounts');
  if (!sa || ctx.store.get('/serviceaccounts', ns, 'default')) return;
  ctx.create(sa, ns, { metadata: { name: 'default' } }, { fieldManager: 'kube-controller-manager' });
}

function terminate(e: Entry, ctx: StrategyContext): Entry {
  if ((e.obj.metadata as Obj).deletionTimestamp) return e;
  const o = structuredClone(e.obj);
  metaOf(o).deletionTimestamp = nowSeconds();
  metaOf(o).deletionGracePeriodSeconds = 0;
  o.status = { ...(o.status as Obj), phase: 'Terminating' };
  const entry = ctx.store.put('/namespaces', '', e.name, o);
  ctx.finalizeNamespaceSoon(e.name);
  return entry;
}

export const namespaceStrategy = strategy({
  prepareForCreate(o) {
    const meta = metaOf(o);
    objAt(meta, 'labels')['kubernetes.io/metadata.name'] = String(meta.name);
    o.spec = { finalizers: ['kubernetes'] };
    o.status = { phase: 'Active' };
  },
  prepareForUpdate(o, old, sub) {
    o.status = structuredClone(old.status);
    if (sub !== 'finalize') o.spec = structuredClone(old.spec);
  },
  hasFinalizers(o) {
    const specFinalizers = (o.spec as Obj | undefined)?.finalizers;
    return metadataFinalizers(o) || (Array.isArray(specFinalizers) && specFinalizers.length > 0);
  },
  afterCreate: (entry, ctx) => createDefaultServiceAccount(entry.name, ctx),
  delete: terminate,
});
