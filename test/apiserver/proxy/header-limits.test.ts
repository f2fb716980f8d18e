// Requests whose headers exceed the 64 KiB limit get a 431 Status with `Connection: close` on both ports, every time,
// and never a reset or a silent close (the TLS port used to close without answering, or reset while the client was
// still sending); headers just under the limit still reach authentication (401).
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

let stack: TestStack;

interface Outcome {
  /** What the client read before the connection ended. */
  response: string;
  /** A socket error the client saw (ECONNRESET = the answer was lost). */
  error?: string;
}

/** Sends one request with an Authorization header of `size` bytes, in one write or in 4 KiB pieces. */
function send(secure: boolean, size: number, pieces: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const url = new URL(secure ? stack.secureUrl : stack.url);
    const port = Number(url.port);
    const socket = secure
      ? tls.connect({
          port,
          host: '127.0.0.1',
          ca: stack.caPem,
          servername: 'localhost',
          rejectUnauthorized: false,
        })
      : net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    socket.on('data', (d: Buffer) => chunks.push(d));
    // EPIPE: our own writes after the server closed, once it has answered; only a reset loses the answer.
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') error = e.code;
    });
    socket.on('close', () => resolve({ response: Buffer.concat(chunks).toString('latin1'), error }));
    const request = Buffer.from(
      `GET /api/v1/namespaces HTTP/1.1\r\nHost: kapiserver\r\nAuthorization: Bearer ${'a'.repeat(size)}\r\n\r\n`,
    );
    if (!pieces) {
      socket.end(request);
      return;
    }
    void (async () => {
      for (let o = 0; o < request.length && socket.writable; o += 4096) {
        socket.write(request.subarray(o, o + 4096));
        await new Promise((r) => setImmediate(r));
      }
      if (socket.writable) socket.end();
    })();
  });
}

describe('request header size limit', { timeout: 180_000 }, () => {
  before(async () => {
    stack = await startTestStack();
  });
  after(async () => {
    await stack?.close();
  });

  for (const secure of [false, true]) {
    for (const size of [64 * 1024, 100 * 1024]) {
      it(`${secure ? 'TLS' : 'plain'} port: a ${size / 1024} KiB Authorization header gets 431 every time`, async () => {
        for (let i = 0; i < 50; i++) {
          const pieces = i % 2 === 1;
          const r = await send(secure, size, pieces);
          const how = `attempt ${i} (${pieces ? 'in pieces' : 'one write'})`;
          assert.equal(
            r.error,
            undefined,
            `${how}: ${r.error}, read ${JSON.stringify(r.response.slice(0, 80))}`,
          );
          assert.match(r.response, /^HTTP\/1\.1 431 /, how);
          assert.match(r.response, /\r\nConnection: close\r\n/i, how);
          const body = JSON.parse(r.response.slice(r.response.indexOf('\r\n\r\n') + 4)) as Record<
            string,
            unknown
          >;
          assert.equal(body.kind, 'Status');
          assert.equal(body.code, 431);
        }
      });
    }
    it(`${secure ? 'TLS' : 'plain'} port: headers just under the limit reach authentication (401)`, async () => {
      for (let i = 0; i < 5; i++) {
        const r = await send(secure, 60 * 1024, i % 2 === 1);
        assert.equal(r.error, undefined);
        assert.match(r.response, /^HTTP\/1\.1 401 /);
      }
    });
  }
});
