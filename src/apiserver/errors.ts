// Error and not-found handlers: every failure on the API server answers with a Kubernetes Status body.
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { StatusError, toStatus } from '../k8s/status.ts';

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};

/** Converts fastify's own client errors (bad JSON, body too large, ...) into StatusErrors; others stay unknown. */
export function asStatusError(err: unknown): StatusError | undefined {
  if (err instanceof StatusError) return err;
  const e = err as FastifyError;
  const code = typeof e?.statusCode === 'number' ? e.statusCode : 0;
  if (code >= 400 && code < 500) {
    // Fastify's messages name the problem (e.g. "Body cannot be empty when content-type is set to 'application/json'")
    // and never echo the body, so they are safe to return.
    return new StatusError(code, REASONS[code] ?? 'BadRequest', e.message);
  }
  return undefined;
}

export function installErrorHandlers(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((err, request, reply) => {
    const status = asStatusError(err);
    if (!status) {
      logger.error(
        {
          err: { message: (err as Error).message, stack: (err as Error).stack },
          path: request.requestInfo?.path,
        },
        'unhandled error',
      );
    }
    const body = status ? status.toStatus() : toStatus(err);
    reply.code(body.code).type('application/json').send(body);
  });
  app.setNotFoundHandler((_request, reply) => {
    const body = new StatusError(
      404,
      'NotFound',
      'the server could not find the requested resource',
    ).toStatus();
    reply.code(404).type('application/json').send(body);
  });
}
