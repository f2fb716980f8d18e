// Answers requests Node's HTTP parser refused before any handler ran (headers over maxHeaderSize, malformed request
// lines, header timeouts) on both the plain and the TLS server. Node's and fastify's defaults destroy the socket right
// after writing: on TLS the answer is still unencrypted in a buffer, and on either, bytes the client is still sending
// make the kernel reset the connection, so the client sees a reset instead of the 431.
import type { Duplex } from 'node:stream';
import { StatusError } from '../k8s/status.ts';
import { closeAfterResponse, endWithStatus } from './raw-response.ts';

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
    if (socket.writable && !inFlight?.headersSent) endWithStatus(socket, statusFor(err.code, maxHeaderSize));
    else {
      closeAfterResponse(socket);
      socket.end();
    }
  };
}
