// A recording hop between kapiserver and the dev cluster, used as kapiserver's orchestrator in the forwarding tests:
// an HTTPS server with its own CA (so TLS verification with the kubeconfig's CA is exercised) that records every
// request it receives (method, raw URL, headers, when it closed) and passes it on to the dev cluster, streaming.
// Upgrade requests are answered by the spy itself with 101 and an echo (the dev cluster has no exec backend), or by
// `onUpgrade` when given (e.g. a fake exec, test/helpers/fake-exec.ts).
// `stop()` / `start()` take the "orchestrator" down and bring it back on the same port.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { DevCluster } from '../../src/devcluster/index.ts';
import { ensureLocalPki } from '../../src/pki/index.ts';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Body bytes received so far. */
  received: number;
  closed: boolean;
  upgrade: boolean;
}

export interface Spy {
  url: string;
  caPem: string;
  kubeconfigPath: string;
  seen: Seen[];
  stop(): Promise<void>;
  start(): Promise<void>;
}

export type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export async function startSpy(dev: DevCluster, dir: string, onUpgrade?: UpgradeListener): Promise<Spy> {
  mkdirSync(dir, { recursive: true });
  const pki = await ensureLocalPki(dir);
  const devUrl = new URL(dev.url);
  const seen: Seen[] = [];
  const agent = new https.Agent({ ca: dev.caPem, keepAlive: true });
  const sockets = new Set<Duplex>();

  const server = https.createServer({ cert: pki.serving.certPem, key: pki.serving.keyPem }, (req, res) => {
    const rec: Seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      received: 0,
      closed: false,
      upgrade: false,
    };
    seen.push(rec);
    req.on('data', (d: Buffer) => {
      rec.received += d.length;
    });
    res.on('close', () => {
      rec.closed = true;
    });
    const headers = { ...req.headers, host: devUrl.host };
    const up = https.request(
      { host: devUrl.hostname, port: devUrl.port, method: req.method, path: req.url, headers, agent },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        res.flushHeaders();
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      received: 0,
      closed: false,
      upgrade: true,
    });
    socket.on('error', () => socket.destroy());
    if (req.headers.authorization !== `Bearer ${dev.token}`) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    if (onUpgrade) return onUpgrade(req, socket, head);
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${req.headers.upgrade}\r\n\r\n`,
    );
    socket.pipe(socket); // echo
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const url = `https://127.0.0.1:${port}`;
  const kubeconfigPath = join(dir, 'spy-kubeconfig');
  writeFileSync(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: spy, cluster: {server: "${url}", certificate-authority-data: ${Buffer.from(pki.caPem).toString('base64')}}}]`,
      `users: [{name: spy, user: {token: "${dev.token}"}}]`,
      'contexts: [{name: spy, context: {cluster: spy, user: spy}}]',
      'current-context: spy',
      '',
    ].join('\n'),
  );
  return {
    url,
    caPem: pki.caPem,
    kubeconfigPath,
    seen,
    async stop() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
    },
  };
}
