// Builds the API server: one fastify app, its filter chain in one visible place, served on plain HTTP (9090, for
// KubeSphere clients and curl) and HTTPS (9443, for kubectl, which never sends a bearer token over plain HTTP).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { badRequest } from '../k8s/status.ts';
import { clientErrorHandler } from './client-error.ts';
import type { ServerContext } from './context.ts';
import { asStatusError, installErrorHandlers } from './errors.ts';
import { auditHook } from './filters/audit.ts';
import { escalationFilter } from './filters/authorization.ts';
import { bodyDepthFilter } from './filters/body-depth.ts';
import { runChain } from './filters/chain.ts';
import { metricsHook } from './filters/metrics.ts';
import { requestLogHook } from './filters/requestlog.ts';
import { registerHealthRoutes } from './health.ts';
import { registerKapis } from './kapis/index.ts';
import { isTerminalPath } from './kapis/terminal/target.ts';
import { terminalUpgradeHandler } from './kapis/terminal/upgrade.ts';
import { registerVersionRoutes } from './kapis/version.ts';
import { registerMetricsRoutes } from './metrics/routes.ts';
import { registerOAuthRoutes } from './oauth/index.ts';
import { registerOpenApiRoutes } from './openapi/routes.ts';
import { registerProxy, upgradeHandler } from './proxy/index.ts';
import './request.ts';

/** Largest request head (request line and headers) either port accepts; larger ones get 431. */
const MAX_HEADER_SIZE = 64 * 1024;
const answerClientError = clientErrorHandler(MAX_HEADER_SIZE);

export interface ListenOptions {
  host: string;
  port: number;
  /** HTTPS port; undefined = no secure port. */
  securePort?: number;
  tls?: { cert: string; key: string };
}

export interface ApiServer {
  app: FastifyInstance;
  /** Starts both listeners; resolves with the bound ports. */
  listen(opts: ListenOptions): Promise<{ port: number; securePort?: number }>;
  /** Stops accepting, lets in-flight requests finish (long-running ones are cut after `graceMs`), closes everything. */
  close(graceMs?: number): Promise<void>;
}

export async function buildApiServer(ctx: ServerContext): Promise<ApiServer> {
  let handler: http.RequestListener | undefined;
  let secureServer: https.Server | undefined;
  const app = Fastify({
    logger: false, // one line per request comes from requestLogHook with our own redaction rules
    bodyLimit: 4 * 1024 * 1024,
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
    // Errors fastify raises before any hook runs (undecodable URL, bad content type) get a Status body too.
    frameworkErrors: (err, _request, reply) => {
      const status = asStatusError(err) ?? badRequest(err.message);
      (reply as FastifyReply).code(status.code).type('application/json').send(status.toStatus());
    },
    // Requests Node's parser refuses (too large headers, malformed) get a Status and an orderly close, not a reset.
    clientErrorHandler: answerClientError,
    serverFactory: (h) => {
      handler = h;
      return http.createServer({ maxHeaderSize: MAX_HEADER_SIZE }, h);
    },
  });
  installErrorHandlers(app, ctx.logger);

  // ---- The filter chain (docs/architecture.md, "The request chain"), in order. ----
  // 1-3. Request info (parsed once; everything after reads request.requestInfo), canonical path (400), authentication
  // (request.user or 401), impersonation (kubectl --as: request.user becomes the impersonated user once the caller may
  // impersonate), authorization (403 unless the user may do requestInfo's verb on its resource or path).
  app.addHook('onRequest', async (request, reply) => {
    const { info, user, impersonator, refusal } = await runChain(ctx, request.raw);
    request.requestInfo = info;
    request.user = user;
    request.impersonator = impersonator;
    if (refusal) {
      reply.headers(refusal.headers);
      throw refusal.error;
    }
  });
  // 3a. Parsed bodies nest no deeper than handlers can walk.
  app.addHook('preValidation', bodyDepthFilter);
  // 3b. Role and binding writes through /kapis: nothing beyond what the writer holds (needs the parsed body).
  app.addHook('preHandler', escalationFilter(ctx));
  // 4. The request log, metrics and audit, once the response is sent.
  app.addHook('onResponse', requestLogHook(ctx.logger));
  app.addHook('onResponse', metricsHook(ctx.metrics));
  app.addHook('onResponse', auditHook(ctx.audit));

  // ---- 5. Dispatch by prefix. ----
  registerHealthRoutes(app, ctx.readiness);
  registerVersionRoutes(app, ctx.cluster);
  registerKapis(app, ctx);
  registerOpenApiRoutes(app);
  registerMetricsRoutes(app, ctx.metrics);
  registerOAuthRoutes(app, ctx, ctx.oauth);
  registerProxy(app, ctx);
  // Upgrades (exec, attach, port-forward, the web terminal) bypass fastify: each handler runs the same chain itself.
  // listen() copies this listener to the HTTPS server too.
  const forwardedUpgrade = upgradeHandler(ctx);
  const terminalUpgrade = terminalUpgradeHandler(ctx);
  app.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
    (isTerminalPath(req.url ?? '') ? terminalUpgrade : forwardedUpgrade)(req, socket, head),
  );

  await app.ready();

  return {
    app,
    async listen(opts) {
      await app.listen({ host: opts.host, port: opts.port });
      const port = (app.server.address() as AddressInfo).port;
      if (opts.securePort === undefined || !opts.tls) return { port };
      const server = https.createServer(
        { cert: opts.tls.cert, key: opts.tls.key, maxHeaderSize: MAX_HEADER_SIZE },
        (req, res) => handler!(req, res),
      );
      server.on('clientError', answerClientError);
      // Upgrade handlers registered on the plain server (exec, attach, port-forward) serve the secure port too.
      for (const l of app.server.listeners('upgrade')) server.on('upgrade', l as (...a: unknown[]) => void);
      secureServer = server;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(opts.securePort, opts.host, () => resolve());
      });
      return { port, securePort: (server.address() as AddressInfo).port };
    },
    async close(graceMs = 3000) {
      const servers: (http.Server | https.Server)[] = [app.server, ...(secureServer ? [secureServer] : [])];
      // Idle keep-alive connections would hold close() open; watches are cut after the grace period.
      for (const s of servers) s.closeIdleConnections();
      const timer = setTimeout(() => {
        for (const s of servers) s.closeAllConnections();
      }, graceMs);
      timer.unref();
      const closeSecure = secureServer
        ? new Promise<void>((resolve) => secureServer!.close(() => resolve()))
        : Promise.resolve();
      await Promise.all([app.close(), closeSecure]);
      clearTimeout(timer);
    },
  };
}
