// What a forwarded write would change, asked of the orchestrator before the write is sent: the object stored now and
// the object the write would store (a dry run of the same request with the buffered body). The guards judge the two
// instead of decoding bodies themselves, so every encoding and patch type (JSON, YAML, protobuf, JSON patch, merge,
// strategic merge, server-side apply) is judged as the orchestrator itself reads it.
import type { FastifyRequest } from 'fastify';
import { request as undiciRequest } from 'undici';
import { StatusError, serviceUnavailable } from '../../k8s/status.ts';
import { isNotFound, KubeError, KubeRest } from '../cluster/index.ts';
import type { ServerContext } from '../context.ts';
import type { GuardedBody } from './body.ts';
import { forwardHeaders } from './headers.ts';

const DRY_RUN_TIMEOUT_MS = 30_000;

export const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

const unavailable = (ctx: ServerContext) => {
  void ctx.cluster.probe();
  return serviceUnavailable('the cluster API server is unavailable; retry shortly');
};

/** The stored object at `path` (undefined when there is none yet: an update or apply may create it). */
export async function storedObject(
  ctx: ServerContext,
  path: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    return rec(await new KubeRest(ctx.cluster).get(path));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    if (err instanceof KubeError && err.code < 500)
      throw new StatusError(err.code, err.reason ?? 'BadRequest', err.message);
    throw unavailable(ctx);
  }
}

/** The object the write would store, as the orchestrator answers a dry run of it (its own Status on failure). */
export async function dryRun(
  ctx: ServerContext,
  request: FastifyRequest,
  guarded: GuardedBody,
): Promise<unknown> {
  const info = request.requestInfo;
  const q = request.url.indexOf('?');
  const query = new URLSearchParams(q === -1 ? '' : request.url.slice(q + 1));
  query.set('dryRun', 'All');
  const headers = forwardHeaders(request.raw.headers, { authorization: ctx.cluster.authorization() });
  headers.accept = 'application/json';
  headers['content-type'] = guarded.contentType;
  delete headers['content-length'];
  let res: Awaited<ReturnType<typeof undiciRequest>>;
  try {
    res = await undiciRequest(`${ctx.cluster.server}${info.path}?${query}`, {
      method: request.method as 'POST',
      dispatcher: ctx.cluster.dispatcher,
      headers,
      body: guarded.body,
      headersTimeout: DRY_RUN_TIMEOUT_MS,
      bodyTimeout: DRY_RUN_TIMEOUT_MS,
    });
  } catch {
    throw unavailable(ctx);
  }
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.statusCode >= 300) {
    // The real request would fail the same way: answer with the orchestrator's own Status.
    const s = (parsed ?? {}) as { code?: number; reason?: string; message?: string };
    throw new StatusError(
      res.statusCode,
      s.reason ?? 'BadRequest',
      s.message ?? `dry run failed with ${res.statusCode}`,
    );
  }
  return parsed;
}
