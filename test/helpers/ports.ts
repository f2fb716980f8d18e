// A loopback TCP port nothing listens on at the moment of the call (bound to port 0, then released), for a server a
// test starts next, or as an address where nothing answers.
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
