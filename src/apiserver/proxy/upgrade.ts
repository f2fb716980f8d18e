// Upgrade requests (`pods/exec`, `pods/attach`, `pods/portforward`, and any other upgrade under /api, /apis): Node
// hands them to the servers' `upgrade` event, never to fastify, so this handler runs the SAME authentication and
// authorization functions as the fastify hooks (filters/authentication.ts, filters/authorization.ts) and then
// tunnels the connection to the orchestrator: TLS with the cluster's CA (and client certificate), kapiserver's own
// credentials, the client's credentials / Impersonate-* / hop-by-hop headers stripped. Bytes then flow both ways
// untouched (SPDY or WebSocket, whichever the client negotiates with the orchestrator).
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { notFound, type StatusError, serviceUnavailable } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { asStatusError } from '../errors.ts';
import { recordRawRequest } from '../filters/audit.ts';
import { authenticateHeaders } from '../filters/authentication.ts';
import { authorizeRequest } from '../filters/authorization.ts';
import { parseRequestInfo } from '../filters/requestinfo.ts';
import { forwardHeaders } from './headers.ts';

const CONNECT_TIMEOUT_MS = 10_000;
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Writes a Status response on a raw socket and closes it. */
function refuse(socket: Duplex, status: StatusError, extra: string[] = []): void {
  const body = JSON.stringify(status.toStatus());
  const code = status.code;
  if (!socket.writable) return void socket.destroy();
  socket.end(
    [
      `HTTP/1.1 ${code} ${STATUS_TEXT[code] ?? 'Error'}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      ...extra,
      '',
      body,
    ].join('\r\n'),
  );
}

function isForwardedPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === '/apis' || path.startsWith('/apis/');
}

/** Opens a connection to the orchestrator with the cluster's TLS settings. */
function connectUpstream(ctx: ServerContext): Duplex {
  const url = new URL(ctx.cluster.server);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'https:') return net.connect({ host, port });
  const t = ctx.cluster.tls;
  return tls.connect({
    host,
    port,
    servername: net.isIP(host) ? undefined : host,
    ca: t.ca,
    cert: t.cert,
    key: t.key,
    rejectUnauthorized: !t.insecureSkipVerify,
    ALPNProtocols: ['http/1.1'],
  });
}

function requestHead(
  req: IncomingMessage,
  ctx: ServerContext,
  user: Parameters<typeof forwardHeaders>[1]['impersonate'],
): string {
  const headers = forwardHeaders(
    req.headers,
    {
      authorization: ctx.cluster.authorization(),
      impersonate: ctx.config.authorization.impersonate ? user : undefined,
    },
    { keepUpgrade: true },
  );
  headers.host = new URL(ctx.cluster.server).host;
  const lines = [`${req.method} ${req.url} HTTP/1.1`];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      // Header values arrived through Node's parser (no CR/LF); re-check anyway before writing them raw.
      if (/[\r\n]/.test(v) || /[\r\n:]/.test(name)) continue;
      lines.push(`${name}: ${v}`);
    }
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export function upgradeHandler(ctx: ServerContext) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    void handleUpgrade(ctx, req, socket, head);
  };
}

async function handleUpgrade(
  ctx: ServerContext,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const startedAt = performance.now();
  const info = parseRequestInfo(req.method ?? 'GET', req.url ?? '/');
  let user: Awaited<ReturnType<typeof authenticateHeaders>>;
  try {
    if (!isForwardedPath(info.path)) throw notFound('', '', info.path);
    user = await authenticateHeaders(ctx, info.path, req.headers);
    if (!user) throw notFound('', '', info.path);
    await authorizeRequest(ctx, user, info);
  } catch (err) {
    const status =
      asStatusError(err) ?? serviceUnavailable('the request could not be checked; retry shortly');
    const extra = status.code === 401 ? ['WWW-Authenticate: Bearer realm="kapiserver"'] : [];
    refuse(socket, status, extra);
    recordRawRequest(ctx, req, info, user, status.code, startedAt);
    return;
  }
  if (socket.destroyed) return;

  const upstream = connectUpstream(ctx);
  let connected = false;
  const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
  const onConnected = () => {
    connected = true;
    clearTimeout(timer);
    recordRawRequest(ctx, req, info, user, 101, startedAt);
    upstream.write(requestHead(req, ctx, user));
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  };
  if (upstream instanceof tls.TLSSocket) upstream.once('secureConnect', onConnected);
  else upstream.once('connect', onConnected);
  upstream.on('error', (err) => {
    clearTimeout(timer);
    ctx.logger.warn({ err: err.message }, 'upgrade: orchestrator connection failed');
    if (!connected) {
      void ctx.cluster.probe();
      refuse(socket, serviceUnavailable('the cluster API server is unavailable; retry shortly'));
      recordRawRequest(ctx, req, info, user, 503, startedAt);
    } else socket.destroy();
  });
  upstream.on('close', () => socket.destroy());
  socket.on('close', () => upstream.destroy());
}
