// A small JSON client for the orchestrator's REST API over the shared undici dispatcher: what the OAuth side needs
// (get/create/update/merge-patch/delete/list and a resilient list+watch loop), without client-node's overhead on
// the login path.
import type { Logger } from 'pino';
import { request } from 'undici';
import type { ClusterConnection } from '../cluster/index.ts';

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
};

/** A non-2xx answer from the orchestrator; `status` is its Status body when it sent one. */
export class KubeError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'KubeError';
  }
}

export const isNotFound = (err: unknown) => err instanceof KubeError && err.code === 404;
export const isConflict = (err: unknown) => err instanceof KubeError && err.code === 409;

const TIMEOUT_MS = 10_000;

export class KubeRest {
  constructor(readonly cluster: ClusterConnection) {}

  private headers(contentType?: string): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json' };
    const auth = this.cluster.authorization();
    if (auth) h.authorization = auth;
    if (contentType) h['content-type'] = contentType;
    return h;
  }

  async call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const res = await request(`${this.cluster.server}${path}`, {
      method: method as 'GET',
      dispatcher: this.cluster.dispatcher,
      headers: this.headers(body === undefined ? undefined : contentType),
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.statusCode >= 300) {
      const s = parsed as { message?: string; reason?: string } | undefined;
      throw new KubeError(
        res.statusCode,
        `${method} ${path}: ${res.statusCode} ${s?.message ?? text.slice(0, 200)}`,
        s?.reason,
      );
    }
    return parsed as T;
  }

  get<T = KubeObject>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }
  create<T = KubeObject>(path: string, obj: unknown): Promise<T> {
    return this.call<T>('POST', path, obj);
  }
  replace<T = KubeObject>(path: string, obj: unknown): Promise<T> {
    return this.call<T>('PUT', path, obj);
  }
  mergePatch<T = KubeObject>(path: string, patch: unknown): Promise<T> {
    return this.call<T>('PATCH', path, patch, 'application/merge-patch+json');
  }
  delete(path: string): Promise<unknown> {
    return this.call('DELETE', path);
  }
  list<T = KubeObject>(path: string): Promise<{ metadata: { resourceVersion?: string }; items: T[] }> {
    return this.call('GET', path);
  }
}

export interface WatchHandlers<T> {
  /** A full list (first sync, or a relist after the watch expired): replace what you hold. */
  onSync(items: T[]): void;
  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void;
}

export interface ListWatch {
  /** Resolves after the first successful list. */
  synced: Promise<void>;
  isSynced(): boolean;
  close(): void;
}

/**
 * Lists then watches `path` (a collection URL, may carry a query), resuming from the last resourceVersion after a
 * disconnect and relisting after 410 Gone; retries with backoff while the orchestrator is unreachable.
 */
export function listWatch<T extends KubeObject>(
  rest: KubeRest,
  path: string,
  handlers: WatchHandlers<T>,
  logger?: Logger,
): ListWatch {
  const abort = new AbortController();
  let synced = false;
  let resolveSynced: () => void = () => {};
  const syncedPromise = new Promise<void>((r) => {
    resolveSynced = r;
  });
  const sep = path.includes('?') ? '&' : '?';

  const run = async () => {
    let rv = '';
    let backoff = 200;
    while (!abort.signal.aborted) {
      try {
        if (!rv) {
          const list = await rest.list<T>(path);
          rv = list.metadata.resourceVersion ?? '';
          handlers.onSync(list.items ?? []);
          if (!synced) {
            synced = true;
            resolveSynced();
          }
        }
        const res = await request(
          `${rest.cluster.server}${path}${sep}watch=true&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=300`,
          {
            dispatcher: rest.cluster.dispatcher,
            headers: rest.cluster.authorization()
              ? { authorization: rest.cluster.authorization() as string, accept: 'application/json' }
              : { accept: 'application/json' },
            signal: abort.signal,
            bodyTimeout: 0,
            headersTimeout: TIMEOUT_MS,
          },
        );
        if (res.statusCode === 410) {
          await res.body.dump();
          rv = '';
          continue;
        }
        if (res.statusCode !== 200) {
          await res.body.dump();
          throw new Error(`watch ${path}: ${res.statusCode}`);
        }
        backoff = 200;
        let buf = '';
        for await (const chunk of res.body) {
          buf += (chunk as Buffer).toString('utf8');
          let nl = buf.indexOf('\n');
          while (nl !== -1) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            nl = buf.indexOf('\n');
            if (!line) continue;
            const ev = JSON.parse(line) as { type: string; object: T & { code?: number } };
            if (ev.type === 'ERROR') {
              // 410 Expired: our resourceVersion is too old; anything else: start over too.
              rv = '';
              break;
            }
            if (ev.object?.metadata?.resourceVersion) rv = ev.object.metadata.resourceVersion;
            if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED') {
              handlers.onEvent(ev.type, ev.object);
            }
          }
          if (!rv) break;
        }
        if (!rv) res.body.destroy();
      } catch (err) {
        if (abort.signal.aborted) return;
        logger?.debug({ err: (err as Error).message, path }, 'list/watch failed; retrying');
        await new Promise((r) => setTimeout(r, backoff).unref?.());
        backoff = Math.min(backoff * 2, 5000);
        // After a failure, relist: events may have been missed and the resourceVersion may be gone.
        rv = '';
      }
    }
  };
  void run();
  return {
    synced: syncedPromise,
    isSynced: () => synced,
    close: () => abort.abort(),
  };
}
