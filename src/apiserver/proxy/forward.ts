// Forwarding of /api, /apis (and the OpenAPI documents kubectl fetches) to the orchestrator over undici. Requests
// that need nothing but forwarding go straight through (pass-through.ts); guarded writes and users requests go
// through @fastify/reply-from, which sends a checked, buffered body and hands the answer to the credential filter.
// One connection pool of its own with the cluster's TLS settings (kubeconfig CA, keep-alive), request and
// response bodies streamed both ways (a catch-all content-type parser hands fastify's raw stream through unparsed),
// no body timeout (watches and `logs -f` stream as long as both ends want), no retries, and a client that goes
// away aborts the upstream request. Role, binding, user and namespace writes pass their guards first
// (rbac-guard.ts, creator-guard.ts); responses about users go through the credential filter (user-filter.ts).

import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import replyFrom, { type FastifyReplyFromHooks } from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Agent } from 'undici';
import { StatusError, serviceUnavailable } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { refuseBuiltinDeletion } from './builtin-guard.ts';
import { guardNamespaceCreator, isNamespaceWrite } from './creator-guard.ts';
import { type ForwardIdentity, responseHeaders, rewriteForUpstream } from './headers.ts';
import { registerKubeconfigRoute } from './kubeconfig.ts';
import { type PassThroughTarget, passThrough } from './pass-through.ts';
import { guardRbacWrite, mayNeedRbacGuard } from './rbac-guard.ts';
import { answerLocally, isAnsweredLocally } from './reviews.ts';
import { isUserRequest, sendWithoutCredentials, userAccept } from './user-filter.ts';

/** Paths served by forwarding. `/openapi/*`: kubectl apply/explain download the orchestrator's documents. */
export const FORWARDED_ROUTES = ['/api', '/api/*', '/apis', '/apis/*', '/openapi/*'];

/** Upstream response headers must arrive within this; bodies (watch streams) have no limit. */
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * Forwarded requests get their own connection pool to the orchestrator (the cluster's TLS settings, kapiserver's
 * timeouts as pool defaults), so no per-request wrapping is needed and watches of the informers never compete with
 * it. reply-from closes it with the server.
 */
function forwardingAgent(ctx: ServerContext): Agent {
  const t = ctx.cluster.tls;
  return new Agent({
    connect: { ca: t.ca, cert: t.cert, key: t.key, rejectUnauthorized: !t.insecureSkipVerify },
    headersTimeout: HEADERS_TIMEOUT_MS,
    bodyTimeout: 0,
    keepAliveTimeout: 30_000,
    connections: 128,
  });
}

/** Watches and followed logs: responses that stay open and may be quiet for long. */
function isLongRunning(request: FastifyRequest): boolean {
  return request.requestInfo.verb === 'watch' || /[?&](watch|follow)=(true|1)(&|$)/.test(request.url);
}

/** A 503 Status to the client, or the connection cut when the answer has begun. */
function upstreamUnavailable(ctx: ServerContext, res: ServerResponse, error: unknown): void {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause ?? error;
  ctx.logger.warn(
    { code: (cause as { code?: string })?.code, err: (cause as Error)?.message },
    'orchestrator request failed',
  );
  void ctx.cluster.probe(); // /readyz reflects the outage at once, and recovers with the next successful probe
  if (res.headersSent || res.writableEnded) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(
    serviceUnavailable('the cluster API server is unavailable; retry shortly').toStatus(),
  );
  res.writeHead(503, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'retry-after': '1',
  });
  res.end(body);
}

export function registerProxy(app: FastifyInstance, ctx: ServerContext): void {
  registerKubeconfigRoute(app, ctx);
  app.register(async (scope) => {
    // Bodies are streamed, never parsed or buffered (uploads of any size or type go through as they arrive).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    const agent = forwardingAgent(ctx);
    await scope.register(replyFrom, {
      base: ctx.cluster.server,
      undici: agent,
      retryMethods: [],
      disableRequestLogging: true,
    });

    // Made once, not per request: they read what they need from the request. `headers` is reply-from's own copy of
    // the client's (its host already the orchestrator's), rewritten in place.
    const identityOf = (request: { user?: FastifyRequest['user'] }): ForwardIdentity => ({
      authorization: ctx.cluster.authorization(),
      impersonate: ctx.config.current().authorization.impersonate ? request.user : undefined,
    });
    const upstreamHeaders: NonNullable<FastifyReplyFromHooks['rewriteRequestHeaders']> = (request, headers) =>
      rewriteForUpstream(headers, request.raw.headers, identityOf(request));
    const server = new URL(ctx.cluster.server);
    const passThroughTarget: PassThroughTarget = {
      dispatcher: agent,
      origin: server.origin,
      host: server.host,
      onError: (res, error) => upstreamUnavailable(ctx, res, error),
    };
    const options: FastifyReplyFromHooks = {
      rewriteRequestHeaders: upstreamHeaders,
      rewriteHeaders: (headers) => responseHeaders(headers),
      onError: (reply, { error }) => {
        if (error instanceof StatusError) {
          reply.code(error.code).type('application/json').send(error.toStatus());
          return;
        }
        upstreamUnavailable(ctx, (reply as unknown as FastifyReply).raw, error);
      },
    };

    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      // Cheap synchronous checks first: the common forwarded GET awaits nothing before reply.from.
      if (isAnsweredLocally(request)) {
        const local = await answerLocally(ctx, request, reply);
        if (local !== undefined) return local;
      }
      refuseBuiltinDeletion(request.requestInfo);
      const guarded = mayNeedRbacGuard(ctx, request)
        ? await guardRbacWrite(ctx, request)
        : isNamespaceWrite(request.requestInfo)
          ? await guardNamespaceCreator(ctx, request)
          : undefined;
      const users = isUserRequest(request.requestInfo);
      if (!guarded && !users) {
        reply.hijack(); // answered on the raw response; the response hooks (log, metrics, audit) still run
        const body = request.body as Readable | undefined;
        passThrough(
          passThroughTarget,
          request.raw,
          reply.raw,
          body,
          identityOf(request),
          isLongRunning(request),
        );
        return reply;
      }
      if (isLongRunning(request)) {
        // Node sends headers with the first body chunk; watch clients wait for the headers before the first event.
        reply.raw.once('pipe', () => reply.raw.flushHeaders());
      }
      // A checked write goes upstream with the buffered body it was checked against; a users request asks for
      // uncompressed JSON and answers through the credential filter.
      const accept = users ? userAccept(request.headers.accept) : undefined;
      return reply.from(undefined, {
        ...options,
        ...(guarded ? { body: guarded.body, contentType: guarded.contentType } : {}),
        ...(users ? { onResponse: sendWithoutCredentials } : {}),
        rewriteRequestHeaders: (req, headers) => {
          const out = upstreamHeaders(req, headers);
          if (guarded) {
            out['content-type'] = guarded.contentType;
            out['content-length'] = String(guarded.body.length);
          }
          if (accept) {
            out.accept = accept;
            out['accept-encoding'] = 'identity';
          }
          return out;
        },
      });
    };
    for (const url of FORWARDED_ROUTES) scope.all(url, handler);
  });
}
