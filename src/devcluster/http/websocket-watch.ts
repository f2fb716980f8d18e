// Watches over WebSocket, as kube-apiserver serves them: a GET of a watch (`?watch=1` on a collection, or a
// `/watch/` path) with `Upgrade: websocket` passes the same stages as the plain request (authentication,
// impersonation, authorization, selector and parameter checks) and only then switches protocols; each watch event is
// one text message (a JSON object and a newline), the watch's end is a normal close, and what the client sends is
// ignored. Refusals before the switch are ordinary HTTP answers carrying a Status, on a connection then closed.
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { badRequest, methodNotAllowed, toStatus } from '../../k8s/status.ts';
import type { WatchSink } from '../watch.ts';
import { parseRequestInfo, type RequestInfo, type Target } from './request-info.ts';
import type { ResourceDeps } from './resource-request.ts';
import { acceptOf, checkAcceptable, notFound } from './respond.ts';
import { isWatch, watch } from './verbs.ts';

/** kube-apiserver's WebSocket token protocol: never echoed back (it carries a credential). */
const BEARER_PROTOCOL = 'base64url.bearer.authorization.k8s.io.';

// A client may offer subprotocols; the first that carries no credential is echoed, as kube-apiserver does.
const wss = new WebSocketServer({
  noServer: true,
  perMessageDeflate: false,
  maxPayload: 64 * 1024,
  handleProtocols: (protocols) => [...protocols].find((p) => !p.startsWith(BEARER_PROTOCOL)) ?? false,
});

function refuse(socket: Duplex, err: unknown): void {
  const status = toStatus(err);
  const body = JSON.stringify(status);
  socket.end(
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** Switches to WebSocket when the watch starts (after every check); events are text messages. */
function websocketSink(req: IncomingMessage, socket: Duplex, head: Buffer): WatchSink {
  let ws: WebSocket | undefined;
  return {
    open() {
      // Synchronous without verifyClient: `ws` is set before the first event. A bad handshake is answered 400 by
      // the library and the socket closed, which ends the watch.
      wss.handleUpgrade(req, socket, head, (w) => {
        ws = w;
        w.on('error', () => w.terminate());
      });
    },
    send: (event) => ws?.send(event),
    buffered: () => ws?.bufferedAmount ?? 0,
    end(last) {
      if (!ws) {
        socket.destroy();
        return;
      }
      if (last) ws.send(last);
      ws.close(1000);
    },
    onClose: (cb) => socket.on('close', cb),
  };
}

/**
 * Serves an upgrade request: `authorize` runs the front's stages and answers the target, or throws the Status to
 * answer (before the kind of upgrade is looked at, so SPDY requests get it too). Only watches of served resources
 * upgrade.
 */
export function serveWatchUpgrade(
  deps: ResourceDeps,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  authorize: (info: RequestInfo) => Promise<Target>,
): void {
  socket.on('error', () => socket.destroy());
  void (async () => {
    const info = parseRequestInfo(req.url);
    const target = await authorize(info);
    if (String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket')
      throw badRequest('only WebSocket upgrades are served');
    const d = deps.rest.registry.find(target.group, target.version, target.resource);
    if (!d || (target.namespace !== undefined && !d.namespaced)) throw notFound();
    const method = req.method ?? 'GET';
    if (method !== 'GET') throw methodNotAllowed();
    const accept = acceptOf(req);
    checkAcceptable(accept);
    const r = { d, query: info.query, target, accept, ns: d.namespaced ? target.namespace : undefined };
    if (target.subresource || !isWatch({ ...r, method }))
      throw badRequest('only watches are served over WebSocket');
    watch(deps, r, websocketSink(req, socket, head));
  })().catch((err: unknown) => refuse(socket, err));
}
