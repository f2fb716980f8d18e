// Reading a (small) request body that the proxy's catch-all parser left as a stream, with a size limit.
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { requestEntityTooLarge } from '../../k8s/status.ts';

/** Largest forwarded body a guard buffers to judge it. */
const BODY_LIMIT = 1024 * 1024;

/** The verbs that write an object's content (the ones the guards judge). */
export const WRITE_VERBS = new Set(['create', 'update', 'patch']);

/** A buffered request body, sent upstream as it was judged. */
export interface GuardedBody {
  body: Buffer;
  contentType: string;
}

/** The request's body, buffered up to BODY_LIMIT (413 past it), with the content type it came with. */
export async function bufferBody(request: FastifyRequest): Promise<GuardedBody> {
  const contentType = String(request.headers['content-type'] ?? 'application/json');
  return { body: await readBody(request.body, BODY_LIMIT), contentType };
}

/**
 * Buffers the body up to `limit` bytes. Past the limit it answers 413 at once but keeps discarding what the client
 * still sends: destroying the stream (what a broken-off for-await loop does) would reset the connection before the
 * client could read the 413.
 */
export function readBody(stream: unknown, limit: number): Promise<Buffer> {
  if (!stream || typeof (stream as Readable).on !== 'function') return Promise.resolve(Buffer.alloc(0));
  const body = stream as Readable;
  if (body.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const discard = () => {};
    const onData = (chunk: Buffer | string) => {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += b.length;
      if (size <= limit) {
        chunks.push(b);
        return;
      }
      body.off('data', onData);
      body.off('end', onEnd);
      body.on('data', discard);
      reject(requestEntityTooLarge(`the request body is larger than ${limit} bytes`));
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', reject);
  });
}

export function isJson(contentType: string | undefined): boolean {
  const t = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  return t === 'application/json' || t === '';
}
