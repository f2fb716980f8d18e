// Step 4 of the filter chain, run once the response is sent: request metrics and one audit event per request.
// Kubelet probes (/healthz, /livez, /readyz) are counted in metrics but not audited: they would flood the audit log.
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { buildAuditEvent } from '../audit/index.ts';
import type { ServerContext } from '../context.ts';
import type { UserInfo } from '../request.ts';
import type { RequestInfo } from './requestinfo.ts';

const UNAUDITED_PATHS = new Set(['/healthz', '/livez', '/readyz']);

export function auditHook(ctx: ServerContext) {
  // Callback style: nothing here waits, so no promise per request.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    try {
      record(ctx, request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  };
}

function record(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): void {
  const latencyMs = reply.elapsedTime;
  ctx.metrics?.observeRequest(request.requestInfo, reply.statusCode, latencyMs / 1000);
  const auditor = ctx.audit;
  if (!auditor) return;
  const path = request.requestInfo?.path ?? request.url.split('?')[0];
  if (UNAUDITED_PATHS.has(path)) return;
  auditor.record(
    buildAuditEvent({
      info: request.requestInfo,
      method: request.method,
      url: request.url,
      user: request.user,
      impersonator: request.impersonator,
      remoteAddress: request.socket?.remoteAddress,
      headers: request.headers,
      code: reply.statusCode,
      latencyMs,
    }),
  );
}

/**
 * The same metrics and audit event for a request served outside fastify's hooks (the upgrade tunnel: exec, attach,
 * port-forward, watch over WebSocket), recorded when it is refused or when the orchestrator's answer arrives (101 for a
 * tunnel, else the code relayed).
 */
export function recordRawRequest(
  ctx: ServerContext,
  req: IncomingMessage,
  info: RequestInfo,
  identity: { user?: UserInfo; impersonator?: UserInfo },
  code: number,
  startedAt: number,
): void {
  const latencyMs = performance.now() - startedAt;
  ctx.metrics?.observeRequest(info, code, latencyMs / 1000);
  ctx.audit?.record(
    buildAuditEvent({
      info,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      user: identity.user,
      impersonator: identity.impersonator,
      remoteAddress: req.socket?.remoteAddress,
      headers: req.headers,
      code,
      latencyMs,
    }),
  );
}
