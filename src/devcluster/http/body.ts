// Stage 3: the request body, read within a size limit and decoded by its content type (JSON, YAML, protobuf) with
// the bounded decoders every body goes through.
import type { IncomingMessage } from 'node:http';
import { decodeJson, decodeYaml } from '../../k8s/bounded-decode.ts';
import { requestEntityTooLarge, unsupportedMediaType } from '../../k8s/status.ts';
import { decodeProtobufObject } from '../protobuf/index.ts';

const MAX_BODY = 3 * 1024 * 1024;
const EMPTY = Buffer.alloc(0);

/** Reads the request body; past the limit it keeps draining (bounded) so the client can read the 413. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  // A request that declares no body (most DELETEs) has none to wait for; node drains its stream after the answer.
  if (declared === 0 && req.headers['transfer-encoding'] === undefined) return Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > MAX_BODY;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) tooLarge = true;
      if (size > 4 * MAX_BODY) req.destroy();
      if (!tooLarge) chunks.push(c);
    });
    req.on('end', () => (tooLarge ? reject(requestEntityTooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/** Decodes by content type; YAML decoding is asynchronous (it yields between slices). */
function decodeBody(req: IncomingMessage, raw: Buffer): unknown {
  const ct = String(req.headers['content-type'] ?? 'application/json')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (raw.length === 0) return undefined;
  if (ct === 'application/vnd.kubernetes.protobuf') return decodeProtobufObject(new Uint8Array(raw));
  const text = raw.toString('utf8');
  const yamlish = ct === 'application/yaml' || ct === 'application/apply-patch+yaml' || ct === 'text/yaml';
  if (!yamlish && !ct.endsWith('json') && ct !== '' && ct !== '*/*') throw unsupportedMediaType(ct);
  return yamlish ? decodeYaml(text) : decodeJson(text);
}

/** The decoded body (undefined when empty). */
export async function readDecodedBody(req: IncomingMessage): Promise<unknown> {
  return decodeBody(req, await readBody(req));
}
