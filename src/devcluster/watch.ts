// Watch: a stream of `{"type","object"}` events, over a sink: chunked HTTP (one line per event) or WebSocket (one
// text message per event). The stream opens at once; history is replayed from the event log (410 Expired ERROR
// event when it is compacted away), then live events follow. Selector-filtered watches translate transitions (an
// object leaving the selection is DELETED, entering it is ADDED).
import type { ServerResponse } from 'node:http';
import { StatusError } from '../k8s/status.ts';
import { type ResourceDef, storageKey } from './resources.ts';
import type { Rest, Selectors } from './rest.ts';
import type { Entry, Obj, StoreEvent } from './store.ts';

export interface WatchQuery {
  /** Renders each event's object differently (e.g. as a one-row Table for `kubectl get -w`). */
  render?: (obj: Obj) => Obj;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
}

export interface WatchSettings {
  bookmarkIntervalMs: number;
  /** A watcher whose unsent output exceeds this is disconnected (it will re-watch). */
  maxBufferedBytes: number;
}

/** Where a watch's events go. */
export interface WatchSink {
  /** Called once, before the first event. */
  open(): void;
  /** One encoded event (a JSON object followed by a newline). */
  send(event: string): void;
  /** Bytes sent but not yet flushed to the client. */
  buffered(): number;
  /** Ends the stream, after `last` when given. */
  end(last?: string): void;
  /** `cb` runs when the client goes away. */
  onClose(cb: () => void): void;
}

/** A watch as a chunked HTTP response. */
export function httpWatchSink(res: ServerResponse): WatchSink {
  return {
    open() {
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Cache-Control': 'no-cache, private',
        'Transfer-Encoding': 'chunked',
      });
      res.flushHeaders();
    },
    send: (event) => res.write(event),
    buffered: () => res.writableLength,
    end(last) {
      if (!res.writableEnded) res.end(last);
    },
    onClose: (cb) => res.on('close', cb),
  };
}

export class Watches {
  private readonly active = new Set<() => void>();

  constructor(
    private readonly rest: Rest,
    private readonly settings: WatchSettings,
  ) {}

  get count(): number {
    return this.active.size;
  }

  /** Ends every open watch (clients re-watch from their last resourceVersion). */
  endAll(): void {
    for (const end of [...this.active]) end();
  }

  /** Starts a watch; selectors are parsed (and may throw a 400) before any byte is written. */
  serve(sink: WatchSink, d: ResourceDef, ns: string | undefined, sel: Selectors, q: WatchQuery): void {
    const { rest } = this;
    const store = rest.store;
    const key = storageKey(d);
    const scope = d.namespaced ? ns : undefined;
    const apiVersion = d.group ? `${d.group}/${d.version}` : d.version;
    const filtered = !sel.label.empty || sel.fields.length > 0;
    const inScope = (o: Obj | undefined) => {
      if (!o) return false;
      if (scope !== undefined && (o.metadata as Obj | undefined)?.namespace !== scope) return false;
      return !filtered || rest.matches(d, sel, o);
    };

    let ended = false;
    const write = (line: string) => {
      if (ended) return;
      sink.send(line);
      if (sink.buffered() > this.settings.maxBufferedBytes) end();
    };
    const objectJson = (e: { obj: Obj; json: string }) => {
      const same = e.obj.apiVersion === apiVersion && e.obj.kind === d.kind;
      if (q.render) return JSON.stringify(q.render(same ? e.obj : { ...e.obj, apiVersion, kind: d.kind }));
      return same ? e.json : JSON.stringify({ ...e.obj, apiVersion, kind: d.kind });
    };
    const send = (type: string, e: { obj: Obj; json: string }) =>
      write(`{"type":"${type}","object":${objectJson(e)}}\n`);
    const bookmark = (annotations?: Record<string, string>) =>
      write(
        `${JSON.stringify({
          type: 'BOOKMARK',
          object: {
            kind: d.kind,
            apiVersion,
            metadata: { resourceVersion: String(store.currentRv), ...(annotations ? { annotations } : {}) },
          },
        })}\n`,
      );
    const deliver = (ev: StoreEvent) => {
      if (ev.res !== key) return;
      const now = ev.type !== 'DELETED' && inScope(ev.obj);
      if (ev.type === 'ADDED') {
        if (now) send('ADDED', ev);
        return;
      }
      if (ev.type === 'DELETED') {
        if (inScope(ev.prev ?? ev.obj)) send('DELETED', ev);
        return;
      }
      const before = filtered || scope !== undefined ? inScope(ev.prev) : true;
      if (now && before) send('MODIFIED', ev);
      else if (now) send('ADDED', ev);
      else if (before) send('DELETED', ev);
    };

    // Collect the start state synchronously, then subscribe in the same tick: no write can slip in between.
    let initial: Entry[] = [];
    let backlog: StoreEvent[] = [];
    let expired: StatusError | undefined;
    const rv = q.resourceVersion ?? '';
    if (q.sendInitialEvents || rv === '' || rv === '0') {
      initial = store.list(key, scope).filter((e) => !filtered || rest.matches(d, sel, e.obj));
    } else {
      try {
        backlog = store.eventsSince(key, Number(rv));
      } catch (err) {
        if (err instanceof StatusError) expired = err;
        else throw err;
      }
    }
    sink.open();
    if (expired) {
      sink.end(
        `${JSON.stringify({ type: 'ERROR', object: { ...expired.toStatus(), reason: 'Expired' } })}\n`,
      );
      return;
    }
    const unsubscribe = store.subscribe(deliver);
    for (const e of initial) send('ADDED', e);
    if (q.sendInitialEvents && q.allowWatchBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
    for (const ev of backlog) deliver(ev);

    const timers: NodeJS.Timeout[] = [];
    if (q.allowWatchBookmarks) timers.push(setInterval(() => bookmark(), this.settings.bookmarkIntervalMs));
    if (q.timeoutSeconds && q.timeoutSeconds > 0)
      timers.push(setTimeout(() => end(), q.timeoutSeconds * 1000));
    const end = () => {
      if (ended) return;
      ended = true;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      this.active.delete(end);
      sink.end();
    };
    this.active.add(end);
    sink.onClose(end);
  }
}
