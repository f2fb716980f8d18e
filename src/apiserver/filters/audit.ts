// Step 4 of the filter chain, run once the response is sent: one audit event per request. Kubelet probes are not
// audited (../path-policy.ts): they would flood the audit log. Metrics have their own hook (./metrics.ts).
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Auditor } from '../audit/index.ts';
import { buildAuditEvent } from '../audit/index.ts';
import { isAudited } from '../path-policy.ts';
import type { RequestInfo, UserInfo } from '../request.ts';

export function auditHook(auditor: Auditor) {
  // Callback style: nothing here waits, so no promise per request.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    // Without sinks (auditing off) nothing is computed, not even the path.
    if (auditor.sinks.length > 0 && isAudited(request.requestInfo?.path ?? request.url.split('?')[0])) {
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
          latencyMs: reply.elapsedTime,
        }),
      );
    }
    done();
  };
}

/**
 * The same audit event for a request served outside fastify's hooks (the upgrade tunnel: exec, attach,
 * port-forward, watch over WebSocket), recorded when it is refused or when the orchestrator's answer arrives (101 for a
 * tunnel, else the code relayed).
 */
export function auditRawRequest(
  auditor: Auditor,
  req: IncomingMessage,
  request: { info: RequestInfo; user?: UserInfo; impersonator?: UserInfo },
  code: number,
  latencyMs: number,
): void {
  if (auditor.sinks.length === 0) return;
  auditor.record(
    buildAuditEvent({
      info: request.info,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      user: request.user,
      impersonator: request.impersonator,
      remoteAddress: req.socket?.remoteAddress,
      headers: req.headers,
      code,
      latencyMs,
    }),
  );
}
