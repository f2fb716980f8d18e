// A watch of iam.kubesphere.io users over WebSocket (KubeSphere's console keeps its Users page current with one).
// Other WebSocket watches tunnel to the orchestrator, but this one never may: its events must lose their credentials
// (user-filter.ts). So kapiserver answers the upgrade itself, watches the orchestrator over plain HTTP and sends each
// filtered event as one text message, as kube-apiserver frames WebSocket watches. The upgrade is accepted only once
// the orchestrator's watch has answered 200; any other answer reaches the client as an ordinary response.
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { CredentialFilter } from './user-filter.ts';

/** Clients send nothing on a watch; a large frame is not a watch client. */
const MAX_CLIENT_FRAME_BYTES = 4096;

const server = new WebSocketServer({
  noServer: true,
  perMessageDeflate: false,
  maxPayload: MAX_CLIENT_FRAME_BYTES,
});

export interface WatchAnswer {
  /** The orchestrator answered `code` (101 once the client's upgrade is accepted). */
  answered(code: number): void;
  /** Relays a non-200 answer as one ordinary response. */
  relay(res: IncomingMessage): void;
}

/**
 * Sends `upstream` (a plain GET watch of users, not yet ended, asking for JSON) and, on a 200, upgrades `socket` and
 * forwards each event without credentials, one per message, until either side ends.
 */
export function serveUserWatch(
  upstream: ClientRequest,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  answer: WatchAnswer,
): void {
  upstream.setHeader('accept', 'application/json');
  upstream.on('response', (res) => {
    if (res.statusCode !== 200) {
      answer.answered(res.statusCode ?? 502);
      res.on('end', () => upstream.destroy());
      answer.relay(res);
      return;
    }
    if (socket.destroyed) return void upstream.destroy();
    server.handleUpgrade(req, socket, head, (ws) => {
      answer.answered(101);
      const events = res.pipe(new CredentialFilter());
      let pending = '';
      events.on('data', (chunk: Buffer) => {
        const lines = (pending + chunk.toString('utf8')).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) if (line !== '') ws.send(line);
      });
      // A value the filter cannot read ends the watch rather than pass unfiltered bytes.
      events.on('error', () => ws.close(1011, 'the watch could not be filtered'));
      events.on('end', () => ws.close(1000));
      ws.on('close', () => upstream.destroy());
      ws.on('error', () => upstream.destroy());
    });
  });
  upstream.end();
}
