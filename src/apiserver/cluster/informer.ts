// A list+watch informer over the orchestrator's HTTP API (undici on ctx.cluster; no in-process shortcuts).
// Objects are kept compactly: managedFields dropped, the rest held as the object's UTF-8 JSON outside the V8 heap plus
// the few metadata fields every reader needs (key, namespace, name, uid, creation time, labels). Readers that need
// the full object parse it on demand (`Entry.object()`); hot paths use indexes, sorted views and event handlers.
// Why outside the heap: every young-generation collection costs more as the old generation grows, whatever it holds
// (measured: 130,000 cached 2 KB strings made each scavenge 12-16 times slower than with an empty heap, the same
// bytes in ArrayBuffers 2-3 times), so a large cache made every request pay more for its garbage.
// See cache.ts for the public API overview.
import type { Logger } from 'pino';
import { request } from 'undici';
import type { ClusterConnection } from './connection.ts';
import { SortedView, type SortOrder } from './sorted-view.ts';

export type { SortField, SortKeyFunc, SortOrder } from './sorted-view.ts';

export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
};

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  selfLink?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { uid?: string; kind?: string; name?: string }[];
  [k: string]: unknown;
}

/** group '' is the core group (/api/v1). */
export interface ResourceRef {
  group: string;
  version: string;
  /** Plural resource name, e.g. `nodes`. */
  resource: string;
}

export function refKey(ref: ResourceRef): string {
  return `${ref.group}/${ref.version}/${ref.resource}`;
}

/** The native API path of a resource collection: /api/v1/nodes, /apis/apps/v1/namespaces/x/deployments. */
export function collectionPath(ref: ResourceRef, namespace?: string): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  return namespace ? `${base}/namespaces/${namespace}/${ref.resource}` : `${base}/${ref.resource}`;
}

/** One cached object. Immutable: an update replaces the entry. */
export type Entry = CachedEntry;

export interface EventHandler {
  onAdd?(obj: KubeObject, entry: Entry): void;
  /** `old` is the entry the update replaced (`old.object()` parses it, for the few handlers that need it). */
  onUpdate?(obj: KubeObject, old: Entry, entry: Entry): void;
  onDelete?(obj: KubeObject, entry: Entry): void;
}

/** Computes index values of an object (client-go's IndexFunc). */
export type IndexFunc = (obj: KubeObject) => string[];

export interface InformerOptions {
  /** Page size of the initial (and re-)list. */
  pageSize?: number;
  /** Upper bound of the retry backoff after errors. */
  maxBackoffMs?: number;
  /** How long one watch request may stay open before it is renewed. */
  watchTimeoutSeconds?: number;
  /** How often to retry when the resource type is not served (e.g. a CRD not yet installed). */
  absentRetryMs?: number;
}

class StatusCodeError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class Informer {
  readonly ref: ResourceRef;
  private readonly cluster: ClusterConnection;
  private readonly logger?: Logger;
  private readonly opts: Required<InformerOptions>;
  private readonly items = new Map<string, Entry>();
  private readonly nsIndex = new Map<string, Keys>();
  private readonly labelIndex = new Map<string, Map<string, Keys>>();
  private readonly customIndexers = new Map<string, IndexFunc>();
  /** index name -> value -> keys */
  private readonly customIndex = new Map<string, Map<string, Keys>>();
  /** index name -> key -> values (to remove an old entry without re-parsing it) */
  private readonly customValues = new Map<string, Map<string, string[]>>();
  private readonly sortedViews = new Map<SortOrder, SortedView>();
  /** namespace -> the sorted views of its entries asked for (dropped when the namespace has no entry left). */
  private readonly namespaceViews = new Map<string, Map<SortOrder, SortedView>>();
  private readonly handlers = new Set<EventHandler>();
  private readonly syncWaiters = new Set<() => void>();
  private synced = false;
  private changes = 0;
  private membershipChanges = 0;
  private absent = false;
  private started = false;
  private lastResourceVersion = '';
  private kind = '';
  private apiVersion = '';
  private readonly abort = new AbortController();
  private loop?: Promise<void>;
  /** Counters for tests and metrics. */
  readonly stats = { lists: 0, watches: 0, events: 0, relistsAfterGone: 0, errors: 0 };

  constructor(cluster: ClusterConnection, ref: ResourceRef, logger?: Logger, opts: InformerOptions = {}) {
    this.cluster = cluster;
    this.ref = ref;
    this.logger = logger;
    this.opts = {
      pageSize: opts.pageSize ?? 500,
      maxBackoffMs: opts.maxBackoffMs ?? 10_000,
      watchTimeoutSeconds: opts.watchTimeoutSeconds ?? 300,
      absentRetryMs: opts.absentRetryMs ?? 2_000,
    };
    this.apiVersion = ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;
  }

  /** Starts list+watch in the background (idempotent). */
  start(): this {
    if (this.started) return this;
    this.started = true;
    this.loop = this.run().catch((err: unknown) => {
      this.logger?.error({ err: String(err), resource: refKey(this.ref) }, 'informer stopped unexpectedly');
    });
    return this;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    for (const w of this.syncWaiters) w();
    this.syncWaiters.clear();
  }

  /** True once the first full list has been loaded (also true when the type is not served: an empty, known set). */
  hasSynced(): boolean {
    return this.synced;
  }

  /** True when the orchestrator does not serve this resource type (yet); retried in the background. */
  isAbsent(): boolean {
    return this.absent;
  }

  /** Resolves true once synced, false after `timeoutMs` or on stop. */
  waitForSync(timeoutMs = 30_000): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.syncWaiters.delete(done);
        resolve(this.synced);
      };
      const timer = setTimeout(done, timeoutMs);
      this.syncWaiters.add(done);
    });
  }

  get size(): number {
    return this.items.size;
  }

  /** The last resourceVersion seen (list or watch). */
  get resourceVersion(): string {
    return this.lastResourceVersion;
  }

  get(namespace: string, name: string): Entry | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Every entry, in no particular order (no copy). */
  entries(): IterableIterator<Entry> {
    return this.items.values();
  }

  /** Keys of the entries in a namespace (a live set, unless it has one key: do not mutate). */
  keysInNamespace(namespace: string): ReadonlySet<string> {
    return asSet(this.nsIndex.get(namespace));
  }

  /**
   * Keys of entries carrying label `key` (any value when `value` is undefined). Live sets, unless of one key: do not
   * mutate.
   */
  keysWithLabel(key: string, value?: string): ReadonlySet<string> {
    const byValue = this.labelIndex.get(key);
    if (!byValue) return new Set();
    if (value !== undefined) return asSet(byValue.get(value));
    const all = new Set<string>();
    for (const keys of byValue.values()) for (const k of asSet(keys)) all.add(k);
    return all;
  }

  getByKey(key: string): Entry | undefined {
    return this.items.get(key);
  }

  /**
   * Adds a named index (client-go Indexer style); existing entries are indexed at once (one parse each).
   * Adding the same name twice keeps the first function.
   */
  addIndex(name: string, fn: IndexFunc): void {
    if (this.customIndexers.has(name)) return;
    this.customIndexers.set(name, fn);
    this.customIndex.set(name, new Map());
    this.customValues.set(name, new Map());
    for (const e of this.items.values()) this.indexCustom(name, fn, e.key, e.object());
  }

  /** Keys whose index `name` produced `value` (a live set, unless it has one key: do not mutate). */
  keysByIndex(name: string, value: string): ReadonlySet<string> {
    return asSet(this.customIndex.get(name)?.get(value));
  }

  /**
   * Entries in ascending order of `by`: creation time, name, or a key function's number (ties by name then
   * namespace); only those of `namespace` when given. Built on first use, then maintained incrementally: callers page
   * through it without sorting, and a namespace's page never walks past other namespaces' entries. Do not mutate.
   */
  sorted(by: SortOrder, namespace?: string): readonly Entry[] {
    return (namespace === undefined ? this.view(by) : this.namespaceView(by, namespace)).entries;
  }

  /** The order of `sorted(by)` as a comparison of any two of this informer's entries. */
  comparator(by: SortOrder): (a: Entry, b: Entry) => number {
    return this.view(by).compare;
  }

  /** Changes on every add, update or delete. */
  get generation(): number {
    return this.changes;
  }

  /**
   * Changes when an object is added, removed or replaced by a new one (a new uid), not when one is updated: keys,
   * names and creation times stay the same until it changes.
   */
  get membershipGeneration(): number {
    return this.membershipChanges;
  }

  private view(by: SortOrder): SortedView {
    let view = this.sortedViews.get(by);
    if (!view) {
      view = new SortedView(by, this.items.values());
      this.sortedViews.set(by, view);
    }
    return view;
  }

  private namespaceView(by: SortOrder, namespace: string): SortedView {
    let views = this.namespaceViews.get(namespace);
    let view = views?.get(by);
    if (view) return view;
    const entries: Entry[] = [];
    for (const key of this.keysInNamespace(namespace)) {
      const e = this.items.get(key);
      if (e) entries.push(e);
    }
    view = new SortedView(by, entries);
    // A namespace without entries keeps no views: it may never have any (any name can be asked for).
    if (entries.length === 0) return view;
    if (!views) {
      views = new Map();
      this.namespaceViews.set(namespace, views);
    }
    views.set(by, view);
    return view;
  }

  /**
   * Subscribes to changes. When the informer has already synced, `onAdd` is replayed for existing objects first.
   * Returns an unsubscribe function. Handlers run synchronously in event order; they must not throw or block.
   */
  addEventHandler(handler: EventHandler): () => void {
    this.handlers.add(handler);
    if (handler.onAdd) for (const e of this.items.values()) this.safe(() => handler.onAdd?.(e.object(), e));
    return () => this.handlers.delete(handler);
  }

  // ---- list + watch loop ----

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    let backoff = 250;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.list(signal);
          needList = false;
          backoff = 250;
          if (this.absent) {
            await sleep(this.opts.absentRetryMs, signal);
            needList = true;
            continue;
          }
        }
        await this.watch(signal);
        backoff = 250;
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof StatusCodeError && err.statusCode === 410) {
          // Our resourceVersion is older than the server's history: relist and diff.
          this.stats.relistsAfterGone++;
          needList = true;
          continue;
        }
        this.stats.errors++;
        // While the orchestrator is down its own probe says so once per interval; this would repeat it per informer.
        this.logger?.[this.cluster.isReachable ? 'warn' : 'debug'](
          { resource: refKey(this.ref), err: String(err) },
          'informer list/watch failed; retrying',
        );
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, this.opts.maxBackoffMs);
        // A failed list must be retried as a list; a broken watch resumes from the last resourceVersion and falls
        // back to a relist only if the server answers 410.
        if (!this.synced) needList = true;
      }
    }
  }

  private headers(): Record<string, string> {
    const auth = this.cluster.authorization();
    return auth ? { authorization: auth, accept: 'application/json' } : { accept: 'application/json' };
  }

  private async list(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    const collected: KubeObject[] = [];
    let cont = '';
    let rv = '';
    let kind = '';
    for (;;) {
      const qs = new URLSearchParams({ limit: String(this.opts.pageSize) });
      if (cont) qs.set('continue', cont);
      const res = await request(`${this.cluster.server}${collectionPath(this.ref)}?${qs}`, {
        dispatcher: this.cluster.dispatcher,
        headers: this.headers(),
        signal,
        headersTimeout: 30_000,
        bodyTimeout: 60_000,
      });
      const text = await res.body.text();
      if (res.statusCode === 404 && !cont) {
        this.absent = true;
        this.replaceAll([], '');
        return;
      }
      if (res.statusCode === 410) throw new StatusCodeError(410, 'list continue token expired');
      if (res.statusCode !== 200)
        throw new StatusCodeError(res.statusCode, `list answered ${res.statusCode}`);
      const body = JSON.parse(text) as {
        kind?: string;
        items?: KubeObject[];
        metadata?: { resourceVersion?: string; continue?: string };
      };
      if (!cont) rv = body.metadata?.resourceVersion ?? '';
      kind = body.kind ?? kind;
      for (const item of body.items ?? []) collected.push(item);
      cont = body.metadata?.continue ?? '';
      if (!cont) break;
    }
    if (kind.endsWith('List')) this.kind = kind.slice(0, -4);
    this.absent = false;
    this.replaceAll(collected, rv);
  }

  private async watch(signal: AbortSignal): Promise<void> {
    this.stats.watches++;
    // Spread renewals so many informers do not reconnect in lockstep.
    const timeout = Math.round(this.opts.watchTimeoutSeconds * (0.8 + Math.random() * 0.4));
    const qs = new URLSearchParams({
      watch: 'true',
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(timeout),
    });
    if (this.lastResourceVersion) qs.set('resourceVersion', this.lastResourceVersion);
    const res = await request(`${this.cluster.server}${collectionPath(this.ref)}?${qs}`, {
      dispatcher: this.cluster.dispatcher,
      headers: this.headers(),
      signal,
      headersTimeout: 30_000,
      bodyTimeout: (timeout + 60) * 1000,
    });
    if (res.statusCode !== 200) {
      await res.body.text().catch(() => '');
      throw new StatusCodeError(res.statusCode, `watch answered ${res.statusCode}`);
    }
    let buffered = '';
    res.body.setEncoding('utf8');
    for await (const chunk of res.body as AsyncIterable<string>) {
      buffered += chunk;
      let nl = buffered.indexOf('\n');
      while (nl >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) this.onWatchLine(line);
        nl = buffered.indexOf('\n');
      }
    }
    const rest = buffered.trim();
    if (rest) this.onWatchLine(rest);
  }

  private onWatchLine(line: string): void {
    const ev = JSON.parse(line) as { type?: string; object?: KubeObject & { code?: number } };
    const obj = ev.object;
    if (!obj) return;
    this.stats.events++;
    switch (ev.type) {
      case 'ADDED':
      case 'MODIFIED':
        this.upsert(obj);
        break;
      case 'DELETED':
        this.remove(obj);
        break;
      case 'BOOKMARK':
        if (obj.metadata?.resourceVersion) this.lastResourceVersion = obj.metadata.resourceVersion;
        break;
      case 'ERROR': {
        const code = typeof obj.code === 'number' ? obj.code : 500;
        throw new StatusCodeError(code, `watch error event ${code}`);
      }
    }
  }

  // ---- store ----

  private normalize(obj: KubeObject): KubeObject {
    if (!obj.metadata) obj.metadata = {};
    const meta = obj.metadata;
    delete meta.managedFields;
    if (!obj.apiVersion) obj.apiVersion = this.apiVersion;
    if (!obj.kind && this.kind) obj.kind = this.kind;
    if (!meta.selfLink && meta.name) {
      meta.selfLink = `${collectionPath(this.ref, meta.namespace)}/${meta.name}`;
    }
    return obj;
  }

  private makeEntry(obj: KubeObject): Entry {
    return new CachedEntry(obj);
  }

  private upsert(raw: KubeObject): void {
    const obj = this.normalize(raw);
    const entry = this.makeEntry(obj);
    if (entry.resourceVersion) this.lastResourceVersion = entry.resourceVersion;
    const old = this.items.get(entry.key);
    if (old) this.reindex(old, entry, obj);
    else this.index(entry, obj);
    // A new uid under the same name is a new object (deleted and created again between two lists).
    this.changed(!old || old.uid !== entry.uid);
    if (old) for (const h of this.handlers) this.safe(() => h.onUpdate?.(obj, old, entry));
    else for (const h of this.handlers) this.safe(() => h.onAdd?.(obj, entry));
  }

  private remove(raw: KubeObject): void {
    const obj = this.normalize(raw);
    const meta = obj.metadata ?? {};
    const key = meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name ?? '');
    if (meta.resourceVersion) this.lastResourceVersion = meta.resourceVersion;
    const old = this.items.get(key);
    if (!old) return;
    this.unindex(old);
    this.changed(true);
    for (const h of this.handlers) this.safe(() => h.onDelete?.(obj, old));
  }

  /** Replaces the store with a fresh list, firing add/update/delete for the differences (a relist after 410). */
  private replaceAll(objs: KubeObject[], rv: string): void {
    const seen = new Set<string>();
    const fresh = this.items.size === 0;
    if (fresh) {
      // Fast path for the first list: build views once instead of inserting one by one.
      const views = [...this.sortedViews.keys()];
      this.sortedViews.clear();
      this.namespaceViews.clear();
      for (const raw of objs) {
        const obj = this.normalize(raw);
        const entry = this.makeEntry(obj);
        this.index(entry, obj);
        for (const h of this.handlers) this.safe(() => h.onAdd?.(obj, entry));
      }
      for (const v of views) this.view(v);
      this.changed(true);
    } else {
      for (const raw of objs) {
        const meta = raw.metadata ?? {};
        const key = meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name ?? '');
        seen.add(key);
        const old = this.items.get(key);
        if (old && old.resourceVersion === meta.resourceVersion && old.uid === meta.uid) continue;
        this.upsert(raw);
      }
      for (const e of [...this.items.values()]) {
        if (!seen.has(e.key)) this.remove(e.object());
      }
    }
    this.lastResourceVersion = rv;
    if (!this.synced) {
      this.synced = true;
      for (const w of [...this.syncWaiters]) w();
    }
  }

  private index(entry: Entry, obj: KubeObject): void {
    this.items.set(entry.key, entry);
    if (entry.namespace) addTo(this.nsIndex, entry.namespace, entry.key);
    this.indexLabels(entry);
    for (const [name, fn] of this.customIndexers) this.indexCustom(name, fn, entry.key, obj);
    for (const view of this.sortedViews.values()) view.add(entry, obj);
    for (const view of this.namespaceViews.get(entry.namespace)?.values() ?? []) view.add(entry, obj);
  }

  /**
   * The new version of a cached object (same key): only what changed is re-indexed, and sorted views keep their
   * slots. An update is the common event (status heartbeats), so it should cost no more than it must.
   */
  private reindex(old: Entry, entry: Entry, obj: KubeObject): void {
    this.items.set(entry.key, entry);
    if (!sameLabels(old.labels, entry.labels)) {
      this.unindexLabels(old);
      this.indexLabels(entry);
    }
    for (const [name, fn] of this.customIndexers) {
      const before = this.customValues.get(name)?.get(entry.key) ?? [];
      const after = this.indexValues(name, fn, obj);
      if (sameValues(before, after)) continue;
      this.unindexCustom(name, entry.key);
      this.addCustom(name, entry.key, after);
    }
    for (const view of this.sortedViews.values()) view.replace(old, entry, obj);
    for (const view of this.namespaceViews.get(entry.namespace)?.values() ?? [])
      view.replace(old, entry, obj);
  }

  private indexLabels(entry: Entry): void {
    if (!entry.labels) return;
    for (const [k, v] of Object.entries(entry.labels)) {
      let byValue = this.labelIndex.get(k);
      if (!byValue) {
        byValue = new Map();
        this.labelIndex.set(k, byValue);
      }
      addTo(byValue, v, entry.key);
    }
  }

  private unindexLabels(entry: Entry): void {
    if (!entry.labels) return;
    for (const [k, v] of Object.entries(entry.labels)) {
      const byValue = this.labelIndex.get(k);
      if (!byValue) continue;
      removeFrom(byValue, v, entry.key);
      if (byValue.size === 0) this.labelIndex.delete(k);
    }
  }

  private indexCustom(name: string, fn: IndexFunc, key: string, obj: KubeObject): void {
    this.addCustom(name, key, this.indexValues(name, fn, obj));
  }

  private indexValues(name: string, fn: IndexFunc, obj: KubeObject): string[] {
    try {
      return fn(obj);
    } catch (err) {
      this.logger?.warn({ index: name, err: String(err) }, 'index function failed');
      return [];
    }
  }

  private addCustom(name: string, key: string, values: string[]): void {
    if (values.length === 0) return;
    const byValue = this.customIndex.get(name) as Map<string, Keys>;
    for (const v of values) addTo(byValue, v, key);
    this.customValues.get(name)?.set(key, values);
  }

  private unindexCustom(name: string, key: string): void {
    const values = this.customValues.get(name)?.get(key);
    if (!values) return;
    const byValue = this.customIndex.get(name) as Map<string, Keys>;
    for (const v of values) removeFrom(byValue, v, key);
    this.customValues.get(name)?.delete(key);
  }

  private unindex(entry: Entry): void {
    this.items.delete(entry.key);
    if (entry.namespace) removeFrom(this.nsIndex, entry.namespace, entry.key);
    this.unindexLabels(entry);
    for (const name of this.customIndexers.keys()) this.unindexCustom(name, entry.key);
    for (const view of this.sortedViews.values()) view.remove(entry);
    const views = this.namespaceViews.get(entry.namespace);
    if (views && !this.nsIndex.has(entry.namespace)) this.namespaceViews.delete(entry.namespace);
    else for (const view of views?.values() ?? []) view.remove(entry);
  }

  private changed(membership: boolean): void {
    this.changes++;
    if (membership) this.membershipChanges++;
  }

  private safe(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger?.warn({ resource: refKey(this.ref), err: String(err) }, 'informer event handler threw');
    }
  }
}

/** A class (not a closure per object) so 20,000 entries share one `object` method. */
class CachedEntry {
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  /** metadata.creationTimestamp in epoch milliseconds (0 when absent). */
  readonly created: number;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /**
   * The object as UTF-8 JSON (managedFields removed, kind/apiVersion/selfLink filled in), in memory of its own
   * outside the V8 heap (not a slice of a shared pool, which one live entry would keep whole). Only the ArrayBuffer
   * is kept: a Buffer over it would add about 100 bytes of heap per entry.
   */
  private readonly data: ArrayBuffer;

  constructor(obj: KubeObject) {
    const meta = obj.metadata ?? {};
    const json = JSON.stringify(obj);
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
    bytes.write(json);
    this.data = bytes.buffer as ArrayBuffer;
    this.namespace = meta.namespace ?? '';
    this.name = meta.name ?? '';
    this.key = this.namespace ? `${this.namespace}/${this.name}` : this.name;
    this.uid = meta.uid ?? '';
    this.resourceVersion = meta.resourceVersion ?? '';
    const created = meta.creationTimestamp ? Date.parse(meta.creationTimestamp) : 0;
    this.created = Number.isNaN(created) ? 0 : created;
    // A private copy: handlers receive `obj` and may keep or change it. Not `{ ...labels }`: freezing a spread copy
    // gave each entry a hidden class of its own (about 140 bytes); label keys are qualified names, never __proto__.
    this.labels =
      meta.labels && Object.keys(meta.labels).length > 0
        ? Object.freeze(Object.assign({}, meta.labels))
        : undefined;
  }

  /** The object as UTF-8 JSON: a new view on each call, over bytes that must not be changed. */
  get bytes(): Uint8Array {
    return new Uint8Array(this.data);
  }

  /** The object as JSON, decoded on each call. */
  get json(): string {
    return Buffer.from(this.data).toString();
  }

  /** A fresh parse of the JSON: callers may mutate it. */
  object(): KubeObject {
    return JSON.parse(this.json) as KubeObject;
  }
}

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: typeof a): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!Object.hasOwn(b, k) || a[k] !== b[k]) return false;
  return true;
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * The keys under one index value. A lone key is kept as itself, not as a Set of one (about 100 bytes): many values
 * name one object, such as each node's `kubernetes.io/hostname` label or a ReplicaSet's uid.
 */
type Keys = string | Set<string>;

function asSet(keys: Keys | undefined): ReadonlySet<string> {
  if (keys === undefined) return new Set();
  return typeof keys === 'string' ? new Set([keys]) : keys;
}

function addTo(map: Map<string, Keys>, value: string, key: string): void {
  const keys = map.get(value);
  if (keys === undefined) map.set(value, key);
  else if (typeof keys !== 'string') keys.add(key);
  else if (keys !== key) map.set(value, new Set([keys, key]));
}

function removeFrom(map: Map<string, Keys>, value: string, key: string): void {
  const keys = map.get(value);
  if (keys === undefined) return;
  if (typeof keys === 'string') {
    if (keys === key) map.delete(value);
    return;
  }
  keys.delete(key);
  if (keys.size === 0) map.delete(value);
}
