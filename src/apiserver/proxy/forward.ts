// Forwarding of /api, /apis (and the OpenAPI documents kubectl fetches) to the orchestrator with @fastify/reply-from
// over undici: the cluster connection's dispatcher (TLS with the kubeconfig's CA, connection reuse), request and
// response bodies streamed both ways (a catch-all content-type parser hands fastify's raw stream through unparsed),
// no body timeout (watches and `logs -f` stream as long as both ends want), no retries, and a client that goes
// away destroys the upstream response, which aborts the upstream request.

import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { StatusError, serviceUnavailable } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { forwardHeaders, responseHeaders } from './headers.ts';
import { registerKubeconfigRoute } from './kubeconfig.ts';
import { guardRbacWrite } from './rbac-guard.ts';
import { answerLocally } from './reviews.ts';

/** Paths served by forwarding. `/openapi/*`: kubectl apply/explain download the orchestrator's documents. */
export const FORWARDED_ROUTES = ['/api', '/api/*', '/apis', '/apis/*', '/openapi/*'];

/** Upstream response headers must arrive within this; bodies (watch streams) have no limit. */
const HEADERS_TIMEOUT_MS = 60_000;

/** The cluster's dispatcher with kapiserver's timeouts for forwarded requests. */
export function proxyDispatcher(base: Dispatcher): Dispatcher {
  return base.compose(
    (dispatch) => (opts, handler) =>
      dispatch({ ...opts, headersTimeout: HEADERS_TIMEOUT_MS, bodyTimeout: 0 }, handler),
  );
}

/** Watches and followed logs: responses that stay open and may be quiet for long. */
function isLongRunning(request: FastifyRequest): boolean {
  return request.requestInfo.verb === 'watch' || /[?&](watch|follow)=(true|1)(&|$)/.test(request.url);
}

function upstreamUnavailable(ctx: ServerContext, reply: FastifyReply, error: unknown): void {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  ctx.logger.warn(
    { code: cause?.code, err: cause?.message ?? (error as Error)?.message },
    'orchestrator request failed',
  );
  void ctx.cluster.probe(); // /readyz reflects the outage at once, and recovers with the next successful probe
  if (reply.sent || reply.raw.headersSent) {
    reply.raw.destroy();
    return;
  }
  const status = serviceUnavailable('the cluster API server is unavailable; retry shortly');
  reply.code(503).type('application/json').header('retry-after', '1').send(status.toStatus());
}

export function registerProxy(app: FastifyInstance, ctx: ServerContext): void {
  registerKubeconfigRoute(app, ctx);
  app.register(async (scope) => {
    // Bodies are streamed, never parsed or buffered (uploads of any size or type go through as they arrive).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    await scope.register(replyFrom, {
      base: ctx.cluster.server,
      undici: proxyDispatcher(ctx.cluster.dispatcher),
      retryMethods: [],
      disableRequestLogging: true,
    });

    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const local = await answerLocally(ctx, request, reply);
      if (local !== undefined) return local;
      const guarded = await guardRbacWrite(ctx, request);
      if (isLongRunning(request)) {
        // Node sends headers with the first body chunk; watch clients wait for the headers before the first event.
        reply.raw.once('pipe', () => reply.raw.flushHeaders());
      }
      const identity = {
        authorization: ctx.cluster.authorization(),
        impersonate: ctx.config.authorization.impersonate ? request.user : undefined,
      };
      return reply.from(undefined, {
        ...(guarded ? { body: guarded.body, contentType: guarded.contentType } : {}),
        rewriteRequestHeaders: (_req, headers) => {
          const out = forwardHeaders(request.raw.headers, identity);
          out.host = String(headers.host);
          if (guarded) {
            out['content-type'] = guarded.contentType;
            out['content-length'] = String(guarded.body.length);
          }
          return out as Record<string, string>;
        },
        rewriteHeaders: (headers) => responseHeaders(headers),
        onError: (r, { error }) => {
          if (error instanceof StatusError) {
            r.code(error.code).type('application/json').send(error.toStatus());
            return;
          }
          upstreamUnavailable(ctx, r as unknown as FastifyReply, error);
        },
      });
    };
    for (const url of FORWARDED_ROUTES) scope.all(url, handler);
  });
}
