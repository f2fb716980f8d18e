// One structured log line per request: method, path (never the query, which may carry secrets), status, latency.
// Headers and bodies are never logged.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

export function requestLogHook(logger: Logger) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    logger.info(
      {
        method: request.method,
        path: request.requestInfo?.path ?? request.url.split('?')[0],
        status: reply.statusCode,
        latencyMs: Math.round(reply.elapsedTime * 10) / 10,
        user: request.user?.name,
      },
      'request',
    );
  };
}
