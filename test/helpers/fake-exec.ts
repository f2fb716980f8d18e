// A fake kubelet side of `pods/{pod}/exec` for terminal tests: answers WebSocket exec upgrades in Kubernetes' channel
// protocol (v5.channel.k8s.io / v4.channel.k8s.io), as kube-apiserver relays them from a kubelet. Plug it into the
// recording hop (startSpy(dev, dir, fakeExec.onUpgrade)) so everything else still reaches the dev cluster.
//
// Pods are declared with the shells they have. A shell prints `$ `, echoes what it is sent, answers the line `whoami`
// with `root`, the line `err` on stderr, and `exit` with a Success Status on the error channel. A command the pod
// lacks ends with a Failure Status ("executable file not found"), as a kubelet reports it. Unknown pods get a 404.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';

const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

export interface ExecSession {
  namespace: string;
  pod: string;
  query: URLSearchParams;
  protocol: string;
  headers: IncomingHttpHeaders;
  /** stdin bytes received, as text. */
  stdin: string;
  /** Sizes received on the resize channel. */
  sizes: { Width: number; Height: number }[];
  closed: boolean;
}

export interface FakeExec {
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  sessions: ExecSession[];
}

const status = (ok: boolean, message = '') =>
  JSON.stringify(
    ok
      ? { metadata: {}, status: 'Success' }
      : { metadata: {}, status: 'Failure', message, reason: 'InternalError', code: 500 },
  );

/** `pods`: `namespace/pod` -> the shells (commands) it has. */
export function fakeExec(pods: Record<string, string[]>): FakeExec {
  const sessions: ExecSession[] = [];
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => PROTOCOLS.find((p) => offered.has(p)) ?? false,
  });
  return {
    sessions,
    onUpgrade(req, socket, head) {
      const url = new URL(req.url ?? '/', 'https://kubelet');
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(url.pathname);
      const shells = m ? pods[`${decodeURIComponent(m[1])}/${decodeURIComponent(m[2])}`] : undefined;
      if (!m || !shells) {
        const body = JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: `pods "${m ? decodeURIComponent(m[2]) : ''}" not found`,
          reason: 'NotFound',
          code: 404,
        });
        socket.end(
          `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const session: ExecSession = {
          namespace: decodeURIComponent(m[1]),
          pod: decodeURIComponent(m[2]),
          query: url.searchParams,
          protocol: ws.protocol,
          headers: req.headers,
          stdin: '',
          sizes: [],
          closed: false,
        };
        sessions.push(session);
        ws.on('close', () => {
          session.closed = true;
        });
        const send = (channel: number, text: string) =>
          ws.send(Buffer.concat([Buffer.of(channel), Buffer.from(text)]));
        const command = url.searchParams.get('command') ?? '';
        if (!shells.includes(command)) {
          send(3, status(false, `exec: "${command}": executable file not found in $PATH`));
          ws.close(1000);
          return;
        }
        send(1, '$ ');
        let line = '';
        ws.on('message', (data: Buffer) => {
          const channel = data[0];
          const text = data.subarray(1).toString('utf8');
          if (channel === 4) session.sizes.push(JSON.parse(text));
          if (channel !== 0) return;
          session.stdin += text;
          send(1, text);
          for (const ch of text) {
            if (ch !== '\r' && ch !== '\n') {
              line += ch;
              continue;
            }
            if (line === 'whoami') send(1, '\r\nroot\r\n$ ');
            else if (line === 'err') send(2, '\r\nsomething on stderr\r\n$ ');
            else if (line === 'exit') {
              send(3, status(true));
              ws.close(1000);
            }
            line = '';
          }
        });
      });
    },
  };
}
