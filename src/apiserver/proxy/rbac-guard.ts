// Escalation checks for role, binding and user writes forwarded to the orchestrator (rbac.authorization.k8s.io roles,
// clusterroles, rolebindings, clusterrolebindings; iam.kubesphere.io globalroles, workspaceroles and their bindings).
// The orchestrator cannot check them itself: it sees kapiserver's credentials, not the user's. Users holding
// `escalate`/`bind` on the resource pass untouched (and unbuffered). Otherwise the body (any encoding: JSON, YAML,
// protobuf, or a patch) is buffered, the orchestrator is asked for the resulting object with a dry run, and that
// object is checked against the rules the user holds; the real request is then sent with the buffered body. User
// writes are always dry-run the same way: the resulting spec.groups may name no `system:` group and may add a group
// only when the writer holds what that group's bindings grant (iam/user-groups.ts).
import type { FastifyRequest } from 'fastify';
import { request as undiciRequest } from 'undici';
import { StatusError, serviceUnavailable } from '../../k8s/status.ts';
import { isNotFound, KubeError, KubeRest } from '../cluster/index.ts';
import type { ServerContext } from '../context.ts';
import { escalationCheckerFor, isRbacWrite } from '../iam/rbac-escalation.ts';
import { checkUserGroupsWrite } from '../iam/user-groups.ts';
import type { RequestInfo } from '../request.ts';
import { readBody } from './body.ts';
import { forwardHeaders } from './headers.ts';
import { isUserRequest, withStoredPassword } from './user-filter.ts';

const BODY_LIMIT = 1024 * 1024;
const DRY_RUN_TIMEOUT_MS = 30_000;
const WRITE_VERBS = new Set(['create', 'update', 'patch']);

export interface GuardedBody {
  body: Buffer;
  contentType: string;
}

/** Writes of iam.kubesphere.io users (any subresource): their groups are a privilege (iam/user-groups.ts). */
function isUserWrite(info: RequestInfo): boolean {
  return isUserRequest(info) && WRITE_VERBS.has(info.verb);
}

/** Whether the request is a write that guardRbacWrite has to look at (cheap, synchronous). */
export function mayNeedRbacGuard(ctx: ServerContext, request: FastifyRequest): boolean {
  const info = request.requestInfo;
  return isUserWrite(info) || (escalationCheckerFor(ctx, request.user) !== undefined && isRbacWrite(info));
}

/**
 * Checks a forwarded role, binding or user write; returns the buffered body to send upstream, or undefined when the
 * request goes through untouched. Throws the StatusError to answer when the write is refused.
 */
export async function guardRbacWrite(
  ctx: ServerContext,
  request: FastifyRequest,
): Promise<GuardedBody | undefined> {
  const info = request.requestInfo;
  const user = request.user;
  const escalation = escalationCheckerFor(ctx, user);
  if (isUserWrite(info)) {
    // Every user write is looked at: system groups are refused to everyone, whatever they hold.
    const stored = info.verb === 'create' ? undefined : await storedSpec(ctx, info);
    // Readers never see the stored password (user-filter.ts): an update of what they read keeps it.
    const guarded =
      info.verb === 'update'
        ? withStoredPassword(await bufferBody(request), stored)
        : await bufferBody(request);
    const result = rec(await dryRun(ctx, request, guarded));
    await checkUserGroupsWrite(escalation, user ?? { name: '', groups: [] }, info, {
      name: info.name || String(rec(result.metadata).name ?? ''),
      groups: rec(result.spec).groups,
      previous: stored?.groups,
    });
    return guarded;
  }
  if (!user || !escalation || !isRbacWrite(info)) return undefined;
  // A writer holding escalate/bind is not checked: its body is neither buffered nor dry-run.
  let guarded: GuardedBody | undefined;
  await escalation.checkWriteOf(user, info, async () => {
    guarded = await bufferBody(request);
    return dryRun(ctx, request, guarded);
  });
  return guarded;
}

const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

async function bufferBody(request: FastifyRequest): Promise<GuardedBody> {
  const contentType = String(request.headers['content-type'] ?? 'application/json');
  return { body: await readBody(request.body, BODY_LIMIT), contentType };
}

/** spec of the stored user the request writes (undefined when there is none yet: an apply may create it). */
async function storedSpec(
  ctx: ServerContext,
  info: RequestInfo,
): Promise<Record<string, unknown> | undefined> {
  const path = `/apis/${info.apiGroup}/${info.apiVersion}/users/${encodeURIComponent(info.name)}`;
  try {
    return rec(rec(await new KubeRest(ctx.cluster).get(path)).spec);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    if (err instanceof KubeError && err.code < 500)
      throw new StatusError(err.code, err.reason ?? 'BadRequest', err.message);
    void ctx.cluster.probe();
    throw serviceUnavailable('the cluster API server is unavailable; retry shortly');
  }
}

/** The object the write would store, as the orchestrator answers a dry run of it (its own Status on failure). */
async function dryRun(ctx: ServerContext, request: FastifyRequest, guarded: GuardedBody): Promise<unknown> {
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
    void ctx.cluster.probe();
    throw serviceUnavailable('the cluster API server is unavailable; retry shortly');
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
