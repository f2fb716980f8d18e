// ClusterCache: shared informers over the orchestrator, one per resource type, started on demand.
//
// Public API (on ServerContext as `ctx.cache`):
//   const inf = ctx.cache.informer({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' });
//     -> Informer, list+watch started at once (idempotent: the same instance for the same group/version/resource).
//   ctx.cache.informer(ref, { onDemand: true }) -> the same, started by a request that waits for its sync itself: it
//        does not hold /readyz back (a type with many objects, e.g. events, takes seconds to list), unless some
//        caller also asks for it without the option.
//        group '' = core (/api/v1). A type the orchestrator does not serve (CRD not installed yet) counts as synced
//        and empty, and is re-listed every ~2 s until it appears.
//   await inf.waitForSync(ms)      -> true once the first list is in (false on timeout).
//   inf.hasSynced()                 -> boolean.
//   inf.get(namespace, name)        -> Entry | undefined ('' namespace for cluster-scoped objects).
//   inf.entries()                   -> iterator over every Entry (no copy, no order).
//   inf.keysInNamespace(ns)         -> Set of keys ('ns/name'); inf.getByKey(key) -> Entry. These key sets are live,
//        but one of a single key is a new Set each time.
//   inf.keysWithLabel(k, v?)        -> Set of keys carrying label k (= v when given).
//   inf.addIndex(name, obj => string[]); inf.keysByIndex(name, value) -> Set of keys  (client-go style indexers).
//   inf.sorted('creationTimestamp' | 'name' | keyFn, namespace?) -> Entry[] (of one namespace when given) kept sorted
//        ascending incrementally (do not mutate);
//        keyFn(obj) -> number is computed once per entry (the view's identity is the function); ties by name, namespace.
//   inf.comparator(order)           -> that order as a comparison of any two entries (to sort a few candidates).
//   inf.generation / inf.membershipGeneration -> change on every event / only when an object is added or removed
//        (for answers remembered until the data they depend on changes).
//   inf.addEventHandler({ onAdd(obj, entry), onUpdate(obj, oldEntry, entry), onDelete(obj, entry) }) -> unsubscribe fn.
//        Existing objects are replayed to onAdd when already synced; a relist after a watch break or 410 fires the
//        differences only. Handlers run synchronously and must not throw or block.
//   Entry: { key, namespace, name, uid, resourceVersion, created (ms), labels, bytes, json, object() }. Objects are
//        stored as UTF-8 JSON outside the V8 heap (managedFields dropped; kind, apiVersion and selfLink filled in):
//        `bytes` is a view of it to copy into an answer, `json` decodes it, `object()` parses a fresh copy.
//        For per-request hot paths (e.g. RBAC), keep your own derived structure fed by an event handler.
//   ctx.cache.synced()              -> every started informer but on-demand ones has synced (/readyz "informer-cache").
//   ctx.cache.stats()               -> [{ resource, synced, objects }] (feeds /metrics).
import type { Logger } from 'pino';
import type { ClusterConnection } from './connection.ts';
import { Informer, type InformerOptions, type ResourceRef, refKey } from './informer.ts';

export class ClusterCache {
  private readonly informers = new Map<string, Informer>();
  /** Keys of informers only ever asked for on demand: readiness does not wait for them. */
  private readonly onDemand = new Set<string>();
  private closed = false;

  constructor(
    private readonly cluster: ClusterConnection,
    private readonly logger?: Logger,
    private readonly options: InformerOptions = {},
  ) {}

  /** The shared informer of a resource type, started on first request. */
  informer(ref: ResourceRef, opts: { onDemand?: boolean } = {}): Informer {
    const key = refKey(ref);
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new Informer(this.cluster, { ...ref }, this.logger, this.options);
      this.informers.set(key, inf);
      if (opts.onDemand) this.onDemand.add(key);
      if (!this.closed) inf.start();
    } else if (!opts.onDemand) this.onDemand.delete(key);
    return inf;
  }

  /** True when every started informer (but those only asked for on demand) has completed its first list. */
  synced(): boolean {
    for (const [key, inf] of this.informers) if (!inf.hasSynced() && !this.onDemand.has(key)) return false;
    return true;
  }

  async waitForSync(timeoutMs = 30_000): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((i) => i.waitForSync(timeoutMs)));
    return results.every(Boolean);
  }

  stats(): { resource: string; synced: boolean; objects: number }[] {
    return [...this.informers.values()].map((i) => ({
      resource: refKey(i.ref),
      synced: i.hasSynced(),
      objects: i.size,
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
