// The dev cluster's controller framework, modelled on kube-controller-manager's informers and work queues.
//
// Interface (everything a controller file needs):
//   Controller      { name, watches: Watch[], reconcile(key, ctx) }: reconcile brings the object named by `key`
//                   (`ns/name`, or `name` for cluster-scoped) to its desired state. It is synchronous, acts through
//                   ctx.rest (the same strategies, validation, resourceVersions and watch events as HTTP clients get)
//                   and must be idempotent. It may return a number: reconcile the key again after that many ms.
//                   A thrown error is logged and the key retried with exponential backoff (5 ms doubling to 30 s);
//                   a 409 Conflict (a write guarded by a stale resourceVersion) is retried quietly.
//   Watch           { res, keys(ev) }: for each store event of resource `res` (storage key such as 'apps/deployments',
//                   or '*' for every resource), the keys of this controller to reconcile. At start every stored object
//                   is offered as an ADDED event (the informer's initial list).
//   ControllerContext: rest, store, registry, now() (the dev cluster's clock, ms), def(group, resource), logger,
//                   dependents(uid) (the stored objects whose ownerReferences name that uid, of every resource),
//                   byUid(uid) (the stored object with that uid), orphans(res, ns) (those no controller owns).
//   ControllerManager: add(), start(), stop(), resync() (re-offer every object, as an informer's resync does),
//                   idle() (resolves when the queue is empty and nothing is due: for tests and benchmarks).
//   Helpers: objectKey, splitKey, ownKey (the event's own key), controllerOf / controllerKey (the controlling owner),
//                   controlledBy (the objects an owner controls).
//
// One worker loop serves every controller: it runs reconciles for at most SLICE_MS, then yields to the event loop
// (setImmediate), so API requests interleave with controller work. A slice's writes share one store commit
// (Store.batch); the controllers observe each write at once, clients' watches after the commit.
import type { Logger } from 'pino';
import { StatusError } from '../../k8s/status.ts';
import { isObj, jsonEqual } from '../meta.ts';
import type { Registry } from '../registry.ts';
import { type ResourceDef, storageKey } from '../resources.ts';
import type { Rest } from '../rest.ts';
import type { Entry, Obj, Store, StoreEvent } from '../store.ts';

export interface ControllerContext {
  rest: Rest;
  store: Store;
  registry: Registry;
  /** The dev cluster's clock in ms (tests inject one to move CronJob schedules and deadlines). */
  now(): number;
  /** The served definition of a built-in or custom resource, by group and plural resource name. */
  def(group: string, resource: string): ResourceDef;
  logger?: Logger;
  /** Objects (any resource) whose ownerReferences name `uid`, from an index kept current by store events. */
  dependents(uid: string): ObjectRef[];
  /** The stored object (any resource) with this uid, if any. */
  byUid(uid: string): ObjectRef | undefined;
  /** The stored objects of resource `res` in namespace `ns` that no controller owns (candidates for adoption). */
  orphans(res: string, ns: string): ObjectRef[];
}

/** A stored object's address: storage key, namespace ('' when cluster-scoped) and name. */
export interface ObjectRef {
  res: string;
  ns: string;
  name: string;
}

/** What the manager's owner index answers (not given by the caller). */
export type IndexReads = 'dependents' | 'byUid' | 'orphans';

export interface Watch {
  /** Storage key of the watched resource (`group/resource`, '/pods' for core), or '*' for every resource. */
  res: string;
  /** The keys to reconcile for a store event (`ctx` for watches that look up other objects). */
  keys(ev: StoreEvent, ctx: ControllerContext): Iterable<string>;
}

export interface Controller {
  name: string;
  watches: Watch[];
  /** Returns ms after which the key is reconciled again, or nothing. */
  reconcile(key: string, ctx: ControllerContext): number | undefined;
}

/** The manager name controllers write with (managedFields), as kube-controller-manager's. */
export const FIELD_MANAGER = 'kube-controller-manager';

const SLICE_MS = 15;
const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 30_000;

export const objectKey = (ns: string, name: string): string => (ns ? `${ns}/${name}` : name);

export function splitKey(key: string): { ns: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { ns: '', name: key } : { ns: key.slice(0, i), name: key.slice(i + 1) };
}

/** The event's own object. */
export const ownKey = (ev: StoreEvent): string[] => [objectKey(ev.ns, ev.name)];

/** The controlling ownerReference (controller: true) of an object, if any. */
export function controllerOf(o: Obj | undefined): Obj | undefined {
  const refs = (o?.metadata as Obj | undefined)?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  return refs.find((r): r is Obj => isObj(r) && r.controller === true);
}

/** RFC 3339 with whole seconds (metav1.Time) of a time in ms. */
export const timestamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** The stored objects of resource `res` whose controller is `owner` (by uid), from the owner index. */
export function controlledBy(ctx: ControllerContext, owner: Obj, res: string): Entry[] {
  const uid = String((owner.metadata as Obj).uid);
  const out: Entry[] = [];
  for (const ref of ctx.dependents(uid)) {
    if (ref.res !== res) continue;
    const e = ctx.store.get(ref.res, ref.ns, ref.name);
    if (e && controllerOf(e.obj)?.uid === uid) out.push(e);
  }
  return out;
}

/**
 * Writes `status` through the status subresource, guarded by the resourceVersion it was computed from (a 409 when
 * the object changed meanwhile: the reconcile is retried). Nothing is written when the status is unchanged.
 */
export function writeStatus(ctx: ControllerContext, d: ResourceDef, e: Entry, status: Obj): Entry {
  if (jsonEqual(e.obj.status, status)) return e;
  const meta = { ...(e.obj.metadata as Obj), resourceVersion: String(e.rv) };
  return ctx.rest.update(
    d,
    e.ns,
    e.name,
    { ...e.obj, metadata: meta, status },
    { fieldManager: FIELD_MANAGER },
    'status',
  );
}

/** Replaces an object (spec or metadata changes), guarded by the resourceVersion `next` was derived from. */
export function writeObject(ctx: ControllerContext, d: ResourceDef, e: Entry, next: Obj): Entry {
  if (jsonEqual(e.obj, next)) return e;
  const meta = { ...(next.metadata as Obj), resourceVersion: String(e.rv) };
  return ctx.rest.update(d, e.ns, e.name, { ...next, metadata: meta }, { fieldManager: FIELD_MANAGER });
}

/**
 * Keys of the owner of kind `kind` controlling the event's object, before and after the change (so an object that
 * was released or adopted wakes both owners).
 */
export function controllerKey(kind: string): (ev: StoreEvent) => string[] {
  return (ev) => {
    const out = new Set<string>();
    for (const o of [ev.obj, ev.prev]) {
      const ref = controllerOf(o);
      if (ref && ref.kind === kind && typeof ref.name === 'string') out.add(objectKey(ev.ns, ref.name));
    }
    return [...out];
  };
}

const refId = (r: ObjectRef) => `${r.res}\u0000${r.ns}\u0000${r.name}`;

function ownerUids(o: Obj | undefined): string[] {
  const refs = (o?.metadata as Obj | undefined)?.ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.filter((r) => isObj(r) && typeof r.uid === 'string').map((r) => (r as Obj).uid as string);
}

/**
 * ownerReference uid -> dependents, and uid -> object, as the garbage collector's graph builder keeps them; and the
 * objects without a controller per resource and namespace, so adoption need not scan every object.
 */
export class OwnerIndex {
  private readonly byOwner = new Map<string, Map<string, ObjectRef>>();
  private readonly uids = new Map<string, ObjectRef>();
  private readonly orphaned = new Map<string, Map<string, ObjectRef>>();

  observe(ev: StoreEvent): void {
    const ref: ObjectRef = { res: ev.res, ns: ev.ns, name: ev.name };
    const id = refId(ref);
    this.observeOrphan(ev, ref);
    const uid = (ev.obj.metadata as Obj | undefined)?.uid;
    if (typeof uid === 'string') {
      if (ev.type === 'DELETED') this.uids.delete(uid);
      else this.uids.set(uid, ref);
    }
    for (const uid of ownerUids(ev.prev)) this.byOwner.get(uid)?.delete(id);
    if (ev.type === 'DELETED') for (const uid of ownerUids(ev.obj)) this.byOwner.get(uid)?.delete(id);
    else
      for (const uid of ownerUids(ev.obj)) {
        let m = this.byOwner.get(uid);
        if (!m) {
          m = new Map();
          this.byOwner.set(uid, m);
        }
        m.set(id, ref);
      }
    for (const uid of ownerUids(ev.prev)) if (this.byOwner.get(uid)?.size === 0) this.byOwner.delete(uid);
  }

  dependents(uid: string): ObjectRef[] {
    return [...(this.byOwner.get(uid)?.values() ?? [])];
  }

  orphans(res: string, ns: string): ObjectRef[] {
    return [...(this.orphaned.get(`${res}\u0000${ns}`)?.values() ?? [])];
  }

  private observeOrphan(ev: StoreEvent, ref: ObjectRef): void {
    const k = `${ev.res}\u0000${ev.ns}`;
    let m = this.orphaned.get(k);
    if (ev.type !== 'DELETED' && !controllerOf(ev.obj)) {
      if (!m) {
        m = new Map();
        this.orphaned.set(k, m);
      }
      m.set(ev.name, ref);
    } else if (m?.delete(ev.name) && m.size === 0) this.orphaned.delete(k);
  }

  byUid(uid: string): ObjectRef | undefined {
    return this.uids.get(uid);
  }
}

interface Item {
  c: Controller;
  key: string;
}

const itemId = (c: Controller, key: string) => `${c.name}\u0000${key}`;

export class ControllerManager {
  private readonly controllers: Controller[] = [];
  private readonly byRes = new Map<string, { c: Controller; w: Watch }[]>();
  private readonly ready = new Map<string, Item>();
  private readonly delayed = new Map<string, { due: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;
  private scheduled = false;
  private running = false;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  private readonly owners = new OwnerIndex();
  private readonly ctx: ControllerContext;

  /** The context reconciles get (with the owner index). */
  get context(): ControllerContext {
    return this.ctx;
  }

  constructor(ctx: Omit<ControllerContext, IndexReads>) {
    this.ctx = {
      ...ctx,
      dependents: (uid) => this.owners.dependents(uid),
      byUid: (uid) => this.owners.byUid(uid),
      orphans: (res, ns) => this.owners.orphans(res, ns),
    };
  }

  add(...cs: Controller[]): void {
    for (const c of cs) {
      this.controllers.push(c);
      for (const w of c.watches) {
        const list = this.byRes.get(w.res) ?? [];
        list.push({ c, w });
        this.byRes.set(w.res, list);
      }
    }
  }

  /** Subscribes to the store and offers every stored object (the informers' initial list). */
  start(): void {
    // Uncommitted writes too: a reconcile must see what the ones before it in the same slice wrote.
    this.unsubscribe = this.ctx.store.subscribe(
      (ev) => {
        this.owners.observe(ev);
        this.dispatch(ev);
      },
      { uncommitted: true },
    );
    this.forEachStored((ev) => this.owners.observe(ev));
    this.resync();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const d of this.delayed.values()) clearTimeout(d.timer);
    this.delayed.clear();
    this.ready.clear();
    this.wakeIdle();
  }

  /** Offers every stored object of every watched resource again. */
  resync(): void {
    this.forEachStored((ev) => this.dispatch(ev));
  }

  private forEachStored(fn: (ev: StoreEvent) => void): void {
    const seen = new Set<string>();
    for (const d of this.ctx.registry.all()) {
      const res = storageKey(d);
      if (d.virtual || seen.has(res)) continue;
      seen.add(res);
      for (const e of this.ctx.store.list(res))
        fn({ type: 'ADDED', res, ns: e.ns, name: e.name, rv: e.rv, obj: e.obj, json: e.json });
    }
  }

  /** Resolves once no reconcile is queued or running (delayed requeues further away than `horizonMs` excepted). */
  idle(horizonMs = 0): Promise<void> {
    if (this.isIdle(horizonMs)) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.isIdle(horizonMs) || this.stopped) resolve();
        else this.idleWaiters.push(check);
      };
      this.idleWaiters.push(check);
    });
  }

  enqueue(c: Controller, key: string): void {
    if (this.stopped) return;
    const id = itemId(c, key);
    const late = this.delayed.get(id);
    if (late) {
      clearTimeout(late.timer);
      this.delayed.delete(id);
    }
    if (!this.ready.has(id)) this.ready.set(id, { c, key });
    this.schedule();
  }

  private enqueueAfter(c: Controller, key: string, ms: number): void {
    if (this.stopped) return;
    const id = itemId(c, key);
    if (this.ready.has(id)) return;
    const due = Date.now() + ms;
    const late = this.delayed.get(id);
    if (late && late.due <= due) return;
    if (late) clearTimeout(late.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(id);
      this.enqueue(c, key);
    }, ms);
    timer.unref();
    this.delayed.set(id, { due, timer });
  }

  private dispatch(ev: StoreEvent): void {
    for (const list of [this.byRes.get(ev.res), this.byRes.get('*')]) {
      if (!list) continue;
      for (const { c, w } of list) {
        try {
          for (const key of w.keys(ev, this.ctx)) this.enqueue(c, key);
        } catch (err) {
          this.ctx.logger?.warn({ controller: c.name, err: String(err) }, 'controller event mapping failed');
        }
      }
    }
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => this.work());
  }

  private work(): void {
    this.scheduled = false;
    if (this.stopped) return; // stopped after this slice was scheduled: the store may be closed
    this.running = true;
    const start = performance.now();
    try {
      // One commit for the slice's writes; watchers get their events after it.
      this.ctx.store.batch(() => {
        while (!this.stopped && this.ready.size > 0 && performance.now() - start < SLICE_MS) {
          const [id, item] = this.ready.entries().next().value as [string, Item];
          this.ready.delete(id);
          this.run(id, item);
        }
      });
    } finally {
      this.running = false;
    }
    if (this.ready.size > 0) this.schedule();
    else this.wakeIdle();
  }

  private run(id: string, { c, key }: Item): void {
    try {
      const after = c.reconcile(key, this.ctx);
      this.failures.delete(id);
      if (after !== undefined) this.enqueueAfter(c, key, Math.max(0, after));
    } catch (err) {
      const n = (this.failures.get(id) ?? 0) + 1;
      this.failures.set(id, n);
      const conflict = err instanceof StatusError && err.code === 409;
      if (!conflict)
        this.ctx.logger?.warn(
          { controller: c.name, key, attempt: n, err: err instanceof Error ? err.message : String(err) },
          'reconcile failed; retrying with backoff',
        );
      this.enqueueAfter(c, key, Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (n - 1)));
    }
  }

  private isIdle(horizonMs: number): boolean {
    if (this.ready.size > 0 || this.running || this.scheduled) return false;
    const limit = Date.now() + horizonMs;
    for (const d of this.delayed.values()) if (d.due <= limit) return false;
    return true;
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
