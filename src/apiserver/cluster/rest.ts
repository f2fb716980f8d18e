// A small JSON client for the orchestrator's REST API over the shared undici dispatcher: one-off reads and writes
// (get/create/replace/merge-patch/delete/list). Reading collections continuously is the informers' job (cache.ts).
import { request } from 'undici';
import type { ClusterConnection } from './connection.ts';
import type { KubeObject } from './informer.ts';

/** A non-2xx answer from the orchestrator; `reason` is its Status reason when it sent one. */
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

  /** `unread`: the caller does not read a 2xx answer, which is then drained without being parsed. */
  async call<T>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
    unread = false,
  ): Promise<T> {
    const res = await request(`${this.cluster.server}${path}`, {
      method: method as 'GET',
      dispatcher: this.cluster.dispatcher,
      headers: this.headers(body === undefined ? undefined : contentType),
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    if (unread && res.statusCode < 300) {
      // Read to the end whatever its size (dump's default stops at 128 KiB by closing the connection).
      await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      return undefined as T;
    }
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
  /** A create whose caller needs no answer (a login record per login: its parse was the login's cost, issue 17). */
  createUnread(path: string, obj: unknown): Promise<void> {
    return this.call('POST', path, obj, 'application/json', true);
  }
  replace<T = KubeObject>(path: string, obj: unknown): Promise<T> {
    return this.call<T>('PUT', path, obj);
  }
  mergePatch<T = KubeObject>(path: string, patch: unknown): Promise<T> {
    return this.call<T>('PATCH', path, patch, 'application/merge-patch+json');
  }
  /** No caller reads what a delete answers (the object or a Status): it is not parsed. */
  delete(path: string): Promise<void> {
    return this.call('DELETE', path, undefined, 'application/json', true);
  }
  list<T = KubeObject>(path: string): Promise<{ metadata: { resourceVersion?: string }; items: T[] }> {
    return this.call('GET', path);
  }
}
