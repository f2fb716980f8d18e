// Reading a (small) request body that the proxy's catch-all parser left as a stream, with a size limit.
import type { Readable } from 'node:stream';
import { requestEntityTooLarge } from '../../k8s/status.ts';

export async function readBody(stream: unknown, limit: number): Promise<Buffer> {
  if (!stream || typeof (stream as Readable)[Symbol.asyncIterator] !== 'function') return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as Readable) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += b.length;
    if (size > limit) {
      (stream as Readable).destroy();
      throw requestEntityTooLarge(`the request body is larger than ${limit} bytes`);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

export function isJson(contentType: string | undefined): boolean {
  const t = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  return t === 'application/json' || t === '';
}
