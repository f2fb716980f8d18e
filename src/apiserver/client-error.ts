// Answers requests Node's HTTP parser refused before any handler ran (headers over maxHeaderSize, malformed request
// lines, header timeouts) on both the plain and the TLS server. Node's and fastify's defaults destroy the socket right
// after writing: on TLS the answer is still unencrypted in a buffer, and on either, bytes the client is still sending
// make the kernel reset the connection, so the client sees a reset instead of the 431.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { StatusError } from '../k8s/status.ts';

/** How long a refused client may keep sending (its bytes are discarded) before the socket is destroyed. */
const DRAIN_MS = 2000;

const answered = new WeakSet<Duplex>();

function statusFor(code: string | undefined, maxHeaderSize: number): StatusError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new StatusError(
        431,
        'RequestHeaderFieldsTooLarge',
        `the request headers are larger than ${maxHeaderSize} bytes`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new StatusError(408, 'Timeout', 'the request was not received in time');
    default:
      return new StatusError(400, 'BadRequest', 'the request is not valid HTTP/1.1');
  }
}

/** A `clientError` listener: writes a Status answer with `Connection: close`, then closes gracefully. */
export function clientErrorHandler(maxHeaderSize: number) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    // The parser reports every later chunk of a refused request again: answer once.
    if (answered.has(socket)) return;
    answered.add(socket);
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const status = statusFor(err.code, maxHeaderSize);
      const body = JSON.stringify(status.toStatus());
      socket.end(
        `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code]}\r\nConnection: close\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    } else {
      socket.end();
    }
    // Read and drop what the client still sends so closing is an orderly FIN; a client that never stops is cut.
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), DRAIN_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
