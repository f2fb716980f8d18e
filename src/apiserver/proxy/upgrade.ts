// Upgrade requests (pods/exec, pods/attach, pods/portforward, and watch over WebSocket) under /api, /apis: Node hands
// every request with `Connection: Upgrade` to the servers' `upgrade` event, never to fastify, so this handler runs
// the SAME filter chain as the fastify hooks (filters/chain.ts) and then asks the
// orchestrator for the upgrade with kapiserver's own credentials (the client's credentials, Impersonate-* and
// hop-by-hop headers stripped by headers.ts).
//
// The connection only becomes a tunnel when the orchestrator answers `101 Switching Protocols` (the class of
// CVE-2018-1002105): before that, nothing the client sends after its request head reaches the orchestrator, and any
// other answer is relayed as one ordinary response with `Connection: close`, after which both connections are
// closed. A tunnel opened on a 200 would let the client's next request reach the orchestrator on kapiserver's
// connection, with kapiserver's rights.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { badRequest, notFound, serviceUnavailable } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { asStatusError } from '../errors.ts';
import { auditRawRequest } from '../filters/audit.ts';
import { type ChainResult, runChain } from '../filters/chain.ts';
import { closeAfterResponse, endWithStatus, statusLine } from '../raw-response.ts';
import type { RequestInfo, UserInfo } from '../request.ts';
import { forwardHeaders, responseHeaders } from './headers.ts';
import { isUserRequest } from './user-filter.ts';
import { serveUserWatch } from './user-watch-websocket.ts';

/** From sending the request to the orchestrator's response head (connecting included). */
const RESPONSE_HEAD_TIMEOUT_MS = 60_000;
/** The streaming subresources of pods, which kubectl and client-go open with SPDY/3.1 or WebSocket. */
const POD_STREAMS = new Set(['exec', 'attach', 'portforward']);
function isForwardedPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === '/apis' || path.startsWith('/apis/');
}

/**
 * Why the request may not upgrade, or undefined when it may. Only the endpoints that really switch protocols may:
 * any other upgrade request would at best be answered as a plain request, so it is refused with 400 (the request is
 * wrong for the endpoint whoever sends it; 403 would wrongly suggest a missing permission) before the orchestrator
 * sees it. Upgrade requests carry no body: one would be read by the orchestrator as the start of a next request.
 */
function upgradeRefusal(req: IncomingMessage, info: RequestInfo): string | undefined {
  const protocol = String(req.headers.upgrade ?? '').toLowerCase();
  const method = req.method ?? '';
  const podStream =
    info.isResourceRequest &&
    info.apiGroup === '' &&
    info.resource === 'pods' &&
    info.namespace !== '' &&
    info.name !== '' &&
    POD_STREAMS.has(info.subresource) &&
    (method === 'GET' || method === 'POST') &&
    (protocol === 'websocket' || protocol === 'spdy/3.1');
  const websocketWatch =
    info.isResourceRequest && info.verb === 'watch' && method === 'GET' && protocol === 'websocket';
  if (!podStream && !websocketWatch) {
    return 'only pods/exec, pods/attach and pods/portforward (SPDY/3.1 or WebSocket) and watches (WebSocket) can be upgraded';
  }
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) {
    return 'an upgrade request must not have a body';
  }
  return undefined;
}

/** The request to the orchestrator, with kapiserver's credentials and TLS settings; not sent yet. */
function upstreamRequest(
  ctx: ServerContext,
  req: IncomingMessage,
  user: UserInfo | undefined,
  keepUpgrade: boolean,
) {
  const url = new URL(ctx.cluster.server);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const headers = forwardHeaders(
    req.headers,
    {
      authorization: ctx.cluster.authorization(),
      impersonate: ctx.config.current().authorization.impersonate ? user : undefined,
    },
    { keepUpgrade },
  );
  if (!keepUpgrade)
    for (const name of Object.keys(headers)) if (name.startsWith('sec-websocket-')) delete headers[name];
  headers.host = url.host;
  delete headers['content-length'];
  const options = {
    host,
    port: url.port || undefined,
    method: req.method,
    path: req.url,
    headers,
    agent: false,
  };
  if (url.protocol !== 'https:') return http.request(options);
  const t = ctx.cluster.tls;
  return https.request({
    ...options,
    servername: net.isIP(host) ? undefined : host,
    ca: t.ca,
    cert: t.cert,
    key: t.key,
    rejectUnauthorized: !t.insecureSkipVerify,
  });
}

/** The orchestrator's 101 head as it sent it, then both directions joined. */
function tunnel(
  res: IncomingMessage,
  upstream: Duplex,
  upstreamHead: Buffer,
  socket: Duplex,
  head: Buffer,
): void {
  const lines = [statusLine(101, res.statusMessage)];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
    lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (upstreamHead.length > 0) socket.write(upstreamHead);
  if (head.length > 0) upstream.write(head);
  upstream.on('error', () => socket.destroy());
  upstream.on('close', () => socket.destroy());
  socket.on('close', () => upstream.destroy());
  upstream.pipe(socket);
  socket.pipe(upstream);
}

/** Any answer but 101: one ordinary response, its body as framed by the orchestrator, then the connection closes. */
function relay(res: IncomingMessage, socket: Duplex): void {
  const code = res.statusCode ?? 502;
  const lines = [statusLine(code, res.statusMessage)];
  for (const [name, value] of Object.entries(responseHeaders(res.headers))) {
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  lines.push('Connection: close');
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  res.on('error', () => socket.destroy());
  // Without a Content-Length the body ends where the connection does.
  closeAfterResponse(socket);
  res.pipe(socket);
}

export function upgradeHandler(ctx: ServerContext) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    handleUpgrade(ctx, req, socket, head).catch((err: Error) => {
      ctx.logger.error({ err: err.message }, 'upgrade: request failed');
      socket.destroy();
    });
  };
}

/** The chain's checks of an upgrade: only forwarded paths, only an authenticated user, only upgrading endpoints. */
function upgradeChecks(req: IncomingMessage) {
  return {
    beforeAuthentication(info: RequestInfo) {
      if (!isForwardedPath(info.path)) throw notFound('', '', info.path);
    },
    beforeAuthorization({ info, user }: ChainResult) {
      if (!user) throw notFound('', '', info.path);
      const refusal = upgradeRefusal(req, info);
      if (refusal) throw badRequest(refusal);
    },
  };
}

async function handleUpgrade(
  ctx: ServerContext,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const startedAt = performance.now();
  const chain = await runChain(ctx, req, upgradeChecks(req));
  // What fastify's onResponse hooks do for other requests.
  const record = (code: number) => {
    const latencyMs = performance.now() - startedAt;
    ctx.metrics.observeRequest(chain.info, code, latencyMs / 1000);
    auditRawRequest(ctx.audit, req, chain, code, latencyMs);
  };
  if (chain.refusal) {
    const status =
      asStatusError(chain.refusal.error) ??
      serviceUnavailable('the request could not be checked; retry shortly');
    endWithStatus(socket, status, chain.refusal.headers);
    record(status.code);
    return;
  }
  if (socket.destroyed) return;

  // Watches of users never tunnel: their events must pass the credential filter (user-watch-websocket.ts).
  const userWatch = isUserRequest(chain.info);
  const upstream = upstreamRequest(ctx, req, chain.user, !userWatch);
  let answered = false;
  const answer = (code: number) => {
    answered = true;
    clearTimeout(timer);
    record(code);
  };
  const timer = setTimeout(
    () => upstream.destroy(new Error('no response head in time')),
    RESPONSE_HEAD_TIMEOUT_MS,
  );
  socket.on('close', () => upstream.destroy());
  upstream.on('error', (err) => {
    clearTimeout(timer);
    if (answered || socket.destroyed) return void socket.destroy();
    ctx.logger.warn({ err: err.message }, 'upgrade: orchestrator request failed');
    void ctx.cluster.probe();
    endWithStatus(socket, serviceUnavailable('the cluster API server is unavailable; retry shortly'));
    record(503);
  });
  if (userWatch) {
    serveUserWatch(upstream, req, socket, head, { answered: answer, relay: (res) => relay(res, socket) });
    return;
  }
  upstream.on('upgrade', (res, upSocket: Duplex, upHead: Buffer) => {
    answer(101);
    if (socket.destroyed) return void upSocket.destroy();
    tunnel(res, upSocket, upHead, socket, head);
  });
  upstream.on('response', (res) => {
    answer(res.statusCode ?? 502);
    res.on('end', () => upstream.destroy());
    relay(res, socket);
  });
  upstream.end();
}
