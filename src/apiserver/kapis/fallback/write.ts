// Fallback writes, forwarded to the orchestrator with kapiserver's credentials and answered `null` as KubeSphere does.
// Unlike KubeSphere: the namespace is the path's (a body may not move the object elsewhere), PUT keeps the client's
// resourceVersion (no lost updates), PATCH sends the merge patch from what the caller can read to the full object it
// sent (with its resourceVersion as a precondition), and the write passes the same guards as a forwarded /apis write
// (escalation, user groups, built-in objects), judged on the /apis request it becomes.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { request as undiciRequest } from 'undici';
import { badRequest, methodNotAllowed, StatusError, serviceUnavailable } from '../../../k8s/status.ts';
import type { ServerContext } from '../../context.ts';
import { parseRequestInfo } from '../../filters/requestinfo.ts';
import { refuseBuiltinDeletion } from '../../proxy/builtin-guard.ts';
import { forwardHeaders } from '../../proxy/headers.ts';
import { guardRbacWrite, mayNeedRbacGuard } from '../../proxy/rbac-guard.ts';
import type { RequestInfo } from '../../request.ts';
import { definitionOf, syncedInformer } from './read.ts';
import { type Target, upstreamPath } from './target.ts';

const TIMEOUT_MS = 30_000;
const JSON_TYPE = 'application/json';
const MERGE_PATCH = 'application/merge-patch+json';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);

function bodyObject(body: unknown): Rec {
  if (!isRec(body)) throw badRequest('the request body must be a JSON object');
  return body;
}

function metadataOf(obj: Rec): Rec {
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (!isRec(obj.metadata)) throw badRequest('metadata must be an object');
  return obj.metadata;
}

/** apiVersion and kind must be the resolved type's (KubeSphere: "wrong resource GroupVersionKind"). */
function checkKind(t: Target, obj: Rec): void {
  const apiVersion = `${t.group}/${t.version}`;
  if (obj.apiVersion !== apiVersion || obj.kind !== t.api.kind) {
    throw badRequest(
      `wrong resource GroupVersionKind: expected apiVersion "${apiVersion}" and kind "${t.api.kind}"`,
    );
  }
}

/** The namespace the object is written in: the path's; a body naming another is refused. */
function namespaceOf(t: Target, meta: Rec): string | undefined {
  if (!t.api.namespaced) {
    delete meta.namespace;
    return undefined;
  }
  const fromBody = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
  if (t.namespace !== undefined) {
    if (fromBody !== undefined && fromBody !== t.namespace) {
      throw badRequest(
        `metadata.namespace "${fromBody}" does not match the namespace of the path "${t.namespace}"`,
      );
    }
    meta.namespace = t.namespace;
    return t.namespace;
  }
  // A cluster-wide path: the caller may write in any namespace, so the body names it (as KubeSphere).
  if (fromBody === undefined) throw badRequest('metadata.namespace is required for a namespaced resource');
  return fromBody;
}

function checkName(t: Target, meta: Rec): void {
  if (meta.name === undefined || meta.name === '') meta.name = t.name;
  if (meta.name !== t.name) {
    throw badRequest(`metadata.name "${String(meta.name)}" does not match the name of the path "${t.name}"`);
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The RFC 7386 merge patch that turns `from` into `to`. */
export function mergePatch(from: Rec, to: Rec): Rec {
  const patch: Rec = {};
  for (const k of Object.keys(from)) if (!Object.hasOwn(to, k)) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    const old = from[k];
    if (isRec(old) && isRec(v)) {
      const sub = mergePatch(old, v);
      if (Object.keys(sub).length > 0) patch[k] = sub;
    } else if (!deepEqual(old, v)) patch[k] = v;
  }
  return patch;
}

interface Upstream {
  method: string;
  path: string;
  body?: Buffer;
  contentType?: string;
}

async function plan(ctx: ServerContext, t: Target, method: string, raw: unknown): Promise<Upstream> {
  if (method === 'DELETE') {
    return { method, path: upstreamPath(t), ...(isRec(raw) ? jsonBody(raw, JSON_TYPE) : {}) };
  }
  const obj = bodyObject(raw);
  const meta = metadataOf(obj);
  if (method === 'POST') {
    if (t.name !== undefined)
      throw methodNotAllowed('POST creates in a collection: leave the name out of the path');
    checkKind(t, obj);
    const namespace = namespaceOf(t, meta);
    return { method, path: upstreamPath(t, namespace), ...jsonBody(obj, JSON_TYPE) };
  }
  checkKind(t, obj);
  checkName(t, meta);
  namespaceOf(t, meta);
  if (method === 'PUT') return { method, path: upstreamPath(t), ...jsonBody(obj, JSON_TYPE) };
  // PATCH: the body is the whole object; what changed from the readable object is sent, with the body's version.
  const def = definitionOf(t);
  const entry = (await syncedInformer(ctx.cache, def)).get(t.namespace ?? '', t.name ?? '');
  const current = entry ? (def.redact ? def.redact(entry.object()) : entry.object()) : {};
  const patch = mergePatch(current as Rec, obj);
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '') {
    patch.metadata = {
      ...(isRec(patch.metadata) ? patch.metadata : {}),
      resourceVersion: meta.resourceVersion,
    };
  }
  return { method, path: upstreamPath(t), ...jsonBody(patch, MERGE_PATCH) };
}

function jsonBody(obj: unknown, contentType: string) {
  return { body: Buffer.from(JSON.stringify(obj)), contentType };
}

/**
 * The request as the forwarding guards see a /apis write: its /apis request info and the body that goes upstream.
 * The guards read only these (and the caller, method, URL and headers the request already has).
 */
function asForwarded(request: FastifyRequest, info: RequestInfo, up: Upstream): FastifyRequest {
  return Object.create(request, {
    requestInfo: { value: info },
    body: { value: Readable.from(up.body ? [up.body] : []) },
    headers: { value: { ...request.headers, 'content-type': up.contentType ?? JSON_TYPE } },
  }) as FastifyRequest;
}

async function guard(ctx: ServerContext, request: FastifyRequest, up: Upstream): Promise<Upstream> {
  const q = request.url.indexOf('?');
  const info = parseRequestInfo(up.method, `${up.path}${q < 0 ? '' : request.url.slice(q)}`);
  refuseBuiltinDeletion(info);
  const view = asForwarded(request, info, up);
  if (!mayNeedRbacGuard(ctx, view)) return up;
  const guarded = await guardRbacWrite(ctx, view);
  return guarded ? { ...up, body: guarded.body, contentType: guarded.contentType } : up;
}

async function send(ctx: ServerContext, request: FastifyRequest, up: Upstream): Promise<void> {
  const headers = forwardHeaders(
    {},
    {
      authorization: ctx.cluster.authorization(),
      impersonate: ctx.config.current().authorization.impersonate ? request.user : undefined,
    },
  );
  headers.accept = JSON_TYPE;
  if (up.contentType) headers['content-type'] = up.contentType;
  const q = request.url.indexOf('?');
  let res: Awaited<ReturnType<typeof undiciRequest>>;
  try {
    res = await undiciRequest(`${ctx.cluster.server}${up.path}${q < 0 ? '' : request.url.slice(q)}`, {
      method: up.method as 'POST',
      dispatcher: ctx.cluster.dispatcher,
      headers,
      body: up.body,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  } catch {
    void ctx.cluster.probe();
    throw serviceUnavailable('the cluster API server is unavailable; retry shortly');
  }
  const text = await res.body.text();
  if (res.statusCode < 300) return;
  let s: { reason?: string; message?: string; details?: Record<string, unknown> } = {};
  try {
    s = JSON.parse(text);
  } catch {
    // not a Status: answered with the code alone
  }
  throw new StatusError(
    res.statusCode,
    s.reason ?? 'BadRequest',
    s.message ?? `the cluster answered ${res.statusCode}`,
    s.details,
  );
}

/** Performs a fallback write; resolves once the orchestrator has accepted it. */
export async function writeTarget(ctx: ServerContext, request: FastifyRequest, t: Target): Promise<void> {
  const method = request.method.toUpperCase();
  if (method !== 'POST' && t.name === undefined)
    throw methodNotAllowed(`${method} needs an object name in the path`);
  const up = await guard(ctx, request, await plan(ctx, t, method, request.body));
  await send(ctx, request, up);
}
