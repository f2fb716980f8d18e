// Answers on a raw socket, for the two places that answer outside Node's HTTP response object: requests Node's parser
// refused (client-error.ts) and upgrade requests (proxy/upgrade.ts).
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { StatusError } from '../k8s/status.ts';

/** How long a connection may go on sending after its one response before it is cut. */
const LINGER_MS = 2_000;

/**
 * Closes a connection once its one response is written. What the client still sends is read and discarded (never
 * parsed) until it closes its side or LINGER_MS pass: unread bytes would keep the socket open for ever (and hold up
 * shutdown), while closing on them at once makes the kernel reset the connection and the client lose the response.
 */
export function closeAfterResponse(socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  socket.once('finish', () => {
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
    socket.resume();
  });
}

/** The status line of an HTTP/1.1 response, with Node's reason phrase unless one is given. */
export function statusLine(code: number, reason?: string): string {
  return `HTTP/1.1 ${code} ${reason || STATUS_CODES[code] || 'Error'}`;
}

/** Writes a Kubernetes Status answer (and `headers`) with `Connection: close`, then closes as above. */
export function endWithStatus(
  socket: Duplex,
  status: StatusError,
  headers: Record<string, string> = {},
): void {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify(status.toStatus());
  closeAfterResponse(socket);
  socket.end(
    [
      statusLine(status.code),
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      '',
      body,
    ].join('\r\n'),
  );
}
