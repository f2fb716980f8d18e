// Escalation check for role and binding writes forwarded to the orchestrator (rbac.authorization.k8s.io roles,
// clusterroles, rolebindings, clusterrolebindings; iam.kubesphere.io globalroles, workspaceroles and their bindings).
// The orchestrator cannot check them itself: it sees kapiserver's credentials, not the user's. Users holding
// `escalate`/`bind` on the resource pass untouched (and unbuffered). Otherwise the body (any encoding: JSON, YAML,
// protobuf, or a patch) is buffered, the orchestrator is asked for the resulting object with a dry run, and that
// object is checked against the rules the user holds; the real request is then sent with the buffered body.
import type { FastifyRequest } from 'fastify';
import { request as undiciRequest } from 'undici';
import { StatusError, serviceUnavailable } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { checkRbacWrite, isRbacWrite } from '../iam/rbac-escalation.ts';
import { readBody } from './body.ts';
import { forwardHeaders } from './headers.ts';

const BODY_LIMIT = 1024 * 1024;
const DRY_RUN_TIMEOUT_MS = 30_000;

export interface GuardedBody {
  body: Buffer;
  contentType: string;
}

/** Whether the request is a role or binding write that guardRbacWrite has to look at (cheap, synchronous). */
export function mayNeedRbacGuard(ctx: ServerContext, request: FastifyRequest): boolean {
  return (
    request.user !== undefined &&
    ctx.authorizer !== undefined &&
    ctx.config.authorization.mode === 'RBAC' &&
    isRbacWrite(request.requestInfo)
  );
}

export async function guardRbacWrite(
  ctx: ServerContext,
  request: FastifyRequest,
): Promise<GuardedBody | undefined> {
  const info = request.requestInfo;
  const user = request.user;
  const authorizer = ctx.authorizer;
  if (!user || !authorizer || ctx.config.authorization.mode !== 'RBAC' || !isRbacWrite(info))
    return undefined;
  const special = /bindings$/.test(info.resource) ? 'bind' : 'escalate';
  const may = await authorizer.authorize(user, { ...info, verb: special });
  if (may.allowed) return undefined;

  const contentType = String(request.headers['content-type'] ?? 'application/json');
  const body = await readBody(request.body, BODY_LIMIT);
  const q = request.url.indexOf('?');
  const query = new URLSearchParams(q === -1 ? '' : request.url.slice(q + 1));
  query.set('dryRun', 'All');
  const headers = forwardHeaders(request.raw.headers, { authorization: ctx.cluster.authorization() });
  headers.accept = 'application/json';
  headers['content-type'] = contentType;
  delete headers['content-length'];
  let res: Awaited<ReturnType<typeof undiciRequest>>;
  try {
    res = await undiciRequest(`${ctx.cluster.server}${info.path}?${query}`, {
      method: request.method as 'POST',
      dispatcher: ctx.cluster.dispatcher,
      headers,
      body,
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
  await checkRbacWrite(authorizer, user, info, parsed);
  return { body, contentType };
}
