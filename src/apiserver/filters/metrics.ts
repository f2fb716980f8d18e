// Request metrics, once the response is sent: every request is counted, probes included.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ApiMetrics } from '../metrics/index.ts';

export function metricsHook(metrics: ApiMetrics) {
  // Callback style: nothing here waits, so no promise per request.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    metrics.observeRequest(request.requestInfo, reply.statusCode, reply.elapsedTime / 1000);
    done();
  };
}
