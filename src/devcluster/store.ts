// Durable object store of the dev cluster: SQLite (WAL, synchronous=NORMAL: a committed write survives a crash of
// the process, kill -9 included; a power loss may lose the last commits) plus an in-memory copy of every object for
// fast reads. One global resourceVersion counter orders all writes; every write appends to an event log that backs
// watch and consistent paginated lists (each event keeps the object's previous state, so the state at any retained
// version can be rebuilt).
//
// Commits: a write on its own (every HTTP client's) is committed before put/remove return, so before it is answered.
// Writes inside batch() (the in-process controllers' work slice, the node heartbeat) share one commit at the end of
// the batch; in-process observers (subscribe with uncommitted: true) see each write at once, as the controllers'
// informers must, while client subscribers (watches) get the batch's events only after its commit. A batch never
// spans an await, so no HTTP request is served while one is open: a client never observes an uncommitted write.
import Database from 'better-sqlite3';
import { gone } from '../k8s/status.ts';

export type Obj = Record<string, unknown>;
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One stored object. `obj` must be treated as immutable: clone before changing. */
export interface Entry {
  ns: string;
  name: string;
  rv: number;
  obj: Obj;
  json: string;
}

export interface StoreEvent {
  type: EventType;
  /** `group/resource` storage key. */
  res: string;
  ns: string;
  name: string;
  rv: number;
  obj: Obj;
  json: string;
  /** The object before this change (MODIFIED and DELETED), to translate events for selector-filtered watches. */
  prev?: Obj;
}

export type Listener = (ev: StoreEvent) => void;

export interface StoreOptions {
  /** Events kept for watch resumption and continue tokens (older ones are compacted away). */
  historyLimit?: number;
}

const key = (ns: string, name: string) => `${ns}\u0000${name}`;

function withRv(obj: Obj, rv: number): Obj {
  const meta = { ...((obj.metadata as Obj | undefined) ?? {}), resourceVersion: String(rv) };
  return { ...obj, metadata: meta };
}

/**
 * A resource's objects in list order. Writes wait in `pending` (the last state per object) until the next list puts
 * them in place by binary search; beyond MAX_PENDING_REORDERS of them the order is dropped and sorted again when next
 * listed, so a resource nobody lists costs its writes nothing. An array a caller was given is never changed
 * afterwards (changes go to a copy), so a list stays as it was while its caller writes.
 */
interface SortedList {
  entries: Entry[];
  handedOut: boolean;
  pending: Map<string, { entry: Entry; removed: boolean }>;
}

const MAX_PENDING_REORDERS = 64;

export class Store {
  private readonly db: Database.Database;
  private readonly data = new Map<string, Map<string, Entry>>();
  private readonly lastWrite = new Map<string, number>();
  /** Each resource's objects in list order, once listed (see SortedList). */
  private readonly sorted = new Map<string, SortedList>();
  /** Client subscribers (watches): events of committed writes only. */
  private readonly listeners = new Set<Listener>();
  /** In-process observers (the controllers): every write as it is made, committed or not. */
  private readonly observers = new Set<Listener>();
  /** The open batch's events not yet delivered to client subscribers; undefined outside a batch. */
  private pending: StoreEvent[] | undefined;
  /** Whether the open batch has begun its SQLite transaction (at its first write: most batches write nothing). */
  private batchBegun = false;
  private rvCounter: number;
  private compactedRv: number;
  private readonly historyLimit: number;
  private writesSinceCompact = 0;
  private readonly stmts;
  private readonly writeTx;

  constructor(path: string, opts: StoreOptions = {}) {
    this.historyLimit = opts.historyLimit ?? 20_000;
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS objects (res TEXT NOT NULL, ns TEXT NOT NULL, name TEXT NOT NULL,
        rv INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (res, ns, name));
      CREATE TABLE IF NOT EXISTS events (rv INTEGER PRIMARY KEY, res TEXT NOT NULL, ns TEXT NOT NULL,
        name TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, prev TEXT);
      CREATE INDEX IF NOT EXISTS events_res ON events (res, rv);
      CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
      INSERT OR IGNORE INTO meta (k, v) VALUES ('rv', 0), ('compacted', 0);
    `);
    this.stmts = {
      upsert: this.db.prepare(
        'INSERT OR REPLACE INTO objects (res, ns, name, rv, data) VALUES (?, ?, ?, ?, ?)',
      ),
      del: this.db.prepare('DELETE FROM objects WHERE res = ? AND ns = ? AND name = ?'),
      event: this.db.prepare(
        'INSERT INTO events (rv, res, ns, name, type, data, prev) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      setMeta: this.db.prepare('UPDATE meta SET v = ? WHERE k = ?'),
      eventsSince: this.db.prepare(
        'SELECT rv, res, ns, name, type, data, prev FROM events WHERE res = ? AND rv > ? ORDER BY rv',
      ),
      firstChangesAfter: this.db.prepare(
        'SELECT ns, name, type, data, prev, MIN(rv) AS rv FROM events WHERE res = ? AND rv > ? GROUP BY ns, name',
      ),
      compact: this.db.prepare('DELETE FROM events WHERE rv <= ?'),
      begin: this.db.prepare('BEGIN'),
      commit: this.db.prepare('COMMIT'),
    };
    const { upsert, del, event } = this.stmts;
    // Built once: building a transaction function for every write was ~8 us of a ~45 us write. A write's event row
    // carries its resourceVersion, so the counter is not written with each write (one page less per commit): it is
    // the newest event's, or meta's `rv` where compaction took every event (see compact).
    this.writeTx = {
      put: this.db.transaction(
        (
          res: string,
          ns: string,
          name: string,
          rv: number,
          json: string,
          type: EventType,
          prev: string | null,
        ) => {
          upsert.run(res, ns, name, rv, json);
          event.run(rv, res, ns, name, type, json, prev);
        },
      ),
      remove: this.db.transaction(
        (res: string, ns: string, name: string, rv: number, json: string, prev: string) => {
          del.run(res, ns, name);
          event.run(rv, res, ns, name, 'DELETED', json, prev);
        },
      ),
    };
    const meta = this.db.prepare('SELECT k, v FROM meta').all() as { k: string; v: number }[];
    const newestEvent = this.db.prepare('SELECT MAX(rv) AS rv FROM events').get() as { rv: number | null };
    this.rvCounter = Math.max(meta.find((m) => m.k === 'rv')?.v ?? 0, newestEvent.rv ?? 0);
    this.compactedRv = meta.find((m) => m.k === 'compacted')?.v ?? 0;
    const rows = this.db.prepare('SELECT res, ns, name, rv, data FROM objects').iterate() as Iterable<{
      res: string;
      ns: string;
      name: string;
      rv: number;
      data: string;
    }>;
    for (const r of rows) {
      this.bucket(r.res).set(key(r.ns, r.name), {
        ns: r.ns,
        name: r.name,
        rv: r.rv,
        obj: JSON.parse(r.data),
        json: r.data,
      });
      this.lastWrite.set(r.res, Math.max(this.lastWrite.get(r.res) ?? 0, r.rv));
    }
  }

  /** The latest resourceVersion handed out. */
  get currentRv(): number {
    return this.rvCounter;
  }

  /** Versions at or below this are no longer in the event log. */
  get oldestRetainedRv(): number {
    return this.compactedRv;
  }

  private bucket(res: string): Map<string, Entry> {
    let b = this.data.get(res);
    if (!b) {
      b = new Map();
      this.data.set(res, b);
    }
    return b;
  }

  get(res: string, ns: string, name: string): Entry | undefined {
    return this.data.get(res)?.get(key(ns, name));
  }

  /** Current objects of a resource, sorted by namespace then name (the order Kubernetes lists in). */
  list(res: string, ns?: string): Entry[] {
    const s = this.sortedList(res);
    if (ns !== undefined) return s.entries.slice(position(s.entries, ns, ''), position(s.entries, ns));
    s.handedOut = true;
    return s.entries;
  }

  /** The resource's list order, with the writes since the last list put in place. */
  private sortedList(res: string): SortedList {
    let s = this.sorted.get(res);
    if (!s) {
      const entries = [...(this.data.get(res)?.values() ?? [])].sort(compareEntries);
      s = { entries, handedOut: false, pending: new Map() };
      this.sorted.set(res, s);
    }
    if (s.pending.size > 0) {
      if (s.handedOut) {
        s.entries = s.entries.slice();
        s.handedOut = false;
      }
      for (const { entry, removed } of s.pending.values()) place(s.entries, entry, removed);
      s.pending.clear();
    }
    return s;
  }

  /** Notes a write for the resource's list order; after too many, the order is dropped and sorted again. */
  private reorder(res: string, entry: Entry, removed: boolean): void {
    const s = this.sorted.get(res);
    if (!s) return;
    s.pending.set(key(entry.ns, entry.name), { entry, removed });
    if (s.pending.size > MAX_PENDING_REORDERS) this.sorted.delete(res);
  }

  /** Names of resources that currently hold objects in a namespace (for namespace deletion). */
  resourcesWithObjectsIn(ns: string): string[] {
    const out: string[] = [];
    for (const [res, b] of this.data) {
      for (const e of b.values()) {
        if (e.ns === ns) {
          out.push(res);
          break;
        }
      }
    }
    return out;
  }

  /**
   * The objects of a resource as they were at version `rv` (for continue tokens and resourceVersionMatch=Exact).
   * Throws 410 Expired when that version is older than the retained history.
   */
  snapshot(res: string, rv: number, ns?: string): Entry[] {
    if (rv >= (this.lastWrite.get(res) ?? 0)) return this.list(res, ns);
    if (rv < this.compactedRv) throw gone(`The resourceVersion for the provided list is too old.`);
    const changed = this.stmts.firstChangesAfter.all(res, rv) as {
      ns: string;
      name: string;
      type: EventType;
      data: string;
      prev: string | null;
      rv: number;
    }[];
    const byKey = new Map<string, Entry>();
    for (const e of this.list(res)) if (e.rv <= rv) byKey.set(key(e.ns, e.name), e);
    for (const c of changed) {
      const k = key(c.ns, c.name);
      byKey.delete(k);
      const before = c.type === 'ADDED' ? null : c.prev;
      if (before) {
        const obj = JSON.parse(before) as Obj;
        const meta = obj.metadata as Obj;
        byKey.set(k, { ns: c.ns, name: c.name, rv: Number(meta.resourceVersion), obj, json: before });
      }
    }
    const out = [...byKey.values()].sort(compareEntries);
    return ns === undefined ? out : out.filter((e) => e.ns === ns);
  }

  /** Events of a resource after `rv`, oldest first; 410 Expired when `rv` is older than the retained history. */
  eventsSince(res: string, rv: number): StoreEvent[] {
    if (rv < this.compactedRv) throw gone(`too old resource version: ${rv} (${this.compactedRv + 1})`);
    const rows = this.stmts.eventsSince.all(res, rv) as {
      rv: number;
      res: string;
      ns: string;
      name: string;
      type: EventType;
      data: string;
      prev: string | null;
    }[];
    return rows.map((r) => ({
      type: r.type,
      res: r.res,
      ns: r.ns,
      name: r.name,
      rv: r.rv,
      obj: JSON.parse(r.data) as Obj,
      json: r.data,
      prev: r.prev ? (JSON.parse(r.prev) as Obj) : undefined,
    }));
  }

  /**
   * Calls `fn` for each write: once it is committed (clients: watches, log follows), or with `uncommitted` as soon
   * as it is made, inside an open batch too (in-process controllers, which must read their own writes).
   */
  subscribe(fn: Listener, opts: { uncommitted?: boolean } = {}): () => void {
    const set = opts.uncommitted ? this.observers : this.listeners;
    set.add(fn);
    return () => set.delete(fn);
  }

  /**
   * Runs `fn` with its writes grouped into one SQLite commit, made when `fn` returns (or throws: its writes are
   * already in memory, so they are committed, never rolled back); only then do client subscribers get their events.
   * A batch that writes nothing (most controller slices) opens no transaction.
   * `fn` must be synchronous. Inside an open batch, `fn` simply joins it. Each write's statements stay atomic within
   * the batch (better-sqlite3 nests a transaction as a savepoint).
   */
  batch(fn: () => void): void {
    if (this.pending) {
      fn();
      return;
    }
    this.pending = [];
    try {
      fn();
    } finally {
      const events = this.pending;
      this.pending = undefined;
      if (this.batchBegun) {
        this.batchBegun = false;
        // A failed commit leaves memory ahead of the disk: it propagates (the process must restart from disk).
        this.stmts.commit.run();
      }
      for (const ev of events) this.notify(this.listeners, ev);
    }
  }

  /** Opens the batch's SQLite transaction before its first write (a write outside a batch has its own). */
  private beginWrite(): void {
    if (!this.pending || this.batchBegun) return;
    this.stmts.begin.run();
    this.batchBegun = true;
  }

  /** Writes a new or changed object; returns the stored entry with its new resourceVersion. */
  put(res: string, ns: string, name: string, obj: Obj): Entry {
    const prev = this.get(res, ns, name);
    const rv = this.rvCounter + 1;
    const stored = withRv(obj, rv);
    const json = JSON.stringify(stored);
    const type: EventType = prev ? 'MODIFIED' : 'ADDED';
    this.beginWrite();
    this.writeTx.put(res, ns, name, rv, json, type, prev?.json ?? null);
    const entry: Entry = { ns, name, rv, obj: stored, json };
    this.commit(res, entry, type, false, prev?.obj);
    return entry;
  }

  /** Removes an object; returns its final state (carrying the deletion's resourceVersion, as watch reports it). */
  remove(res: string, ns: string, name: string): Entry | undefined {
    const prev = this.get(res, ns, name);
    if (!prev) return undefined;
    const rv = this.rvCounter + 1;
    const final = withRv(prev.obj, rv);
    const json = JSON.stringify(final);
    this.beginWrite();
    this.writeTx.remove(res, ns, name, rv, json, prev.json);
    const entry: Entry = { ns, name, rv, obj: final, json };
    this.commit(res, entry, 'DELETED', true, prev.obj);
    return entry;
  }

  private commit(res: string, entry: Entry, type: EventType, removed: boolean, prev: Obj | undefined): void {
    this.rvCounter = entry.rv;
    const b = this.bucket(res);
    if (removed) b.delete(key(entry.ns, entry.name));
    else b.set(key(entry.ns, entry.name), entry);
    this.lastWrite.set(res, entry.rv);
    this.reorder(res, entry, removed);
    if (++this.writesSinceCompact >= 1000) this.compact();
    const ev: StoreEvent = {
      type,
      res,
      ns: entry.ns,
      name: entry.name,
      rv: entry.rv,
      obj: entry.obj,
      json: entry.json,
      prev,
    };
    this.notify(this.observers, ev);
    if (this.pending) this.pending.push(ev);
    else this.notify(this.listeners, ev);
  }

  private notify(set: Set<Listener>, ev: StoreEvent): void {
    for (const fn of set) {
      try {
        fn(ev);
      } catch {
        // a broken listener must not break writes
      }
    }
  }

  /** Drops events beyond the history limit (or all events up to `upTo`, used by tests to force 410s). */
  compact(upTo?: number): void {
    this.writesSinceCompact = 0;
    const horizon = upTo ?? this.rvCounter - this.historyLimit;
    if (horizon <= this.compactedRv) return;
    this.db.transaction(() => {
      this.stmts.compact.run(horizon);
      this.stmts.setMeta.run(horizon, 'compacted');
      this.stmts.setMeta.run(this.rvCounter, 'rv');
    })();
    this.compactedRv = horizon;
  }

  close(): void {
    this.listeners.clear();
    this.observers.clear();
    if (this.db.open) this.db.close();
  }
}

/** Puts a written entry in its place in list order, or takes a removed one out. */
function place(entries: Entry[], entry: Entry, removed: boolean): void {
  const i = position(entries, entry.ns, entry.name);
  const here = i < entries.length && entries[i].ns === entry.ns && entries[i].name === entry.name;
  if (removed) {
    if (here) entries.splice(i, 1);
  } else if (here) entries[i] = entry;
  else entries.splice(i, 0, entry);
}

/** The index of the first entry not before `ns`/`name` in list order; without `name`, the first after all of `ns`. */
function position(entries: Entry[], ns: string, name?: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = entries[mid];
    if (e.ns < ns || (e.ns === ns && (name === undefined || e.name < name))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function compareEntries(a: Entry, b: Entry): number {
  if (a.ns !== b.ns) return a.ns < b.ns ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
