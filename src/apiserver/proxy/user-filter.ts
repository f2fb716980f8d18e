// Forwarded responses about iam.kubesphere.io users carry no credentials (iam/user-credentials.ts).
//
// Why filter here rather than keep hashes out of User objects: the User's spec.password is KubeSphere's storage of
// the password (kubectl apply of a plaintext password, the hashing controller and the authenticator all use it), and
// moving it elsewhere would break that contract for every tool. What must not happen is that a reader of users gets
// it: every response for that one resource (get, list, watch, Table with includeObject, and the object that create,
// update, patch and delete answer with) goes through this filter. Everything else stays on the streaming fast path.
//
// The filter asks the orchestrator for JSON only, uncompressed (406 when the client accepts nothing JSON, 502 when the
// orchestrator answers anything else), splits the body into its top-level JSON values (one for a plain response, one
// per event for a watch) as they arrive, and sends each without credentials: watches keep streaming, and at most one
// value (MAX_VALUE_BYTES) is held at a time. A value that is too large or not JSON ends the response rather than pass
// unfiltered bytes.
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import type { FastifyReplyFromHooks } from '@fastify/reply-from';
import { StatusError } from '../../k8s/status.ts';
import { IAM_GROUP } from '../iam/rbac.ts';
import { withoutCredentials } from '../iam/user-credentials.ts';
import type { RequestInfo } from '../request.ts';
import { isJson } from './body.ts';

const MAX_VALUE_BYTES = 32 * 1024 * 1024;
const JSON_TYPE = 'application/json';

/** Whether the forwarded request reads or writes iam.kubesphere.io users (any verb, version or subresource). */
export function isUserRequest(info: RequestInfo): boolean {
  return (
    info.isKubernetesRequest &&
    info.isResourceRequest &&
    info.apiGroup === IAM_GROUP &&
    info.resource === 'users'
  );
}

/**
 * The Accept header to send upstream: the client's JSON choices (Table and watch variants included), a wildcard read
 * as plain JSON. Throws 406 when the client accepts no JSON at all (protobuf, YAML: the filter could not read them).
 */
export function userAccept(accept: string | string[] | undefined): string {
  const given = (Array.isArray(accept) ? accept.join(',') : (accept ?? '')).trim();
  if (given === '') return JSON_TYPE;
  const kept: string[] = [];
  for (const part of given.split(',')) {
    const entry = part.trim();
    const type = entry.split(';')[0].trim().toLowerCase();
    if (type === JSON_TYPE) kept.push(entry);
    else if (type === '*/*' || type === 'application/*') kept.push(JSON_TYPE);
  }
  if (kept.length === 0) {
    throw new StatusError(406, 'NotAcceptable', `users are only served as ${JSON_TYPE}`);
  }
  return [...new Set(kept)].join(', ');
}

/** Splits a byte stream into its top-level JSON values and passes each on without credentials, newline-ended. */
export class CredentialFilter extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      let start = 0;
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i];
        if (this.depth === 0) {
          if (c === 0x7b || c === 0x5b) {
            // { or [: a value starts
            this.depth = 1;
            start = i;
          } else if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
            throw new Error('the response is not a sequence of JSON objects');
          }
          continue;
        }
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === 0x5c) this.escaped = true;
          else if (c === 0x22) this.inString = false;
        } else if (c === 0x22) this.inString = true;
        else if (c === 0x7b || c === 0x5b) this.depth++;
        else if (c === 0x7d || c === 0x5d) {
          this.depth--;
          if (this.depth === 0) {
            this.keep(chunk.subarray(start, i + 1));
            this.emitValue();
          }
        }
      }
      if (this.depth > 0) this.keep(chunk.subarray(start));
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    done(this.depth === 0 ? null : new Error('the response ended inside a JSON value'));
  }

  private keep(part: Buffer): void {
    this.size += part.length;
    if (this.size > MAX_VALUE_BYTES)
      throw new Error(`a JSON value of the response exceeds ${MAX_VALUE_BYTES} bytes`);
    this.parts.push(Buffer.from(part)); // a copy: the chunk's memory may be reused
  }

  private emitValue(): void {
    const text = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    this.size = 0;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Not the parser's message: it quotes the text, which may hold a hash.
      throw new Error('the response holds a value that is not JSON');
    }
    this.push(`${JSON.stringify(withoutCredentials(value))}\n`);
  }
}

/**
 * A JSON update of a user without spec.password, with the stored password put back: clients only ever read users
 * without it, so a read-modify-write (kubectl replace, client-go Update) would otherwise clear it. Other bodies
 * (YAML, protobuf, unparsable JSON) go as they are.
 */
export function withStoredPassword(
  guarded: { body: Buffer; contentType: string },
  storedSpec: Record<string, unknown> | undefined,
): { body: Buffer; contentType: string } {
  const password = storedSpec?.password;
  if (typeof password !== 'string' || !isJson(guarded.contentType)) return guarded;
  let obj: unknown;
  try {
    obj = JSON.parse(guarded.body.toString('utf8'));
  } catch {
    return guarded;
  }
  const spec = (obj as { spec?: unknown } | null)?.spec;
  if (!spec || typeof spec !== 'object' || Array.isArray(spec) || 'password' in spec) return guarded;
  (spec as Record<string, unknown>).password = password;
  return { body: Buffer.from(JSON.stringify(obj)), contentType: guarded.contentType };
}

/** What reply-from hands onResponse: undici's response (its typings say a server response). */
interface UpstreamResponse {
  headers: Record<string, unknown>;
  stream: NodeJS.ReadableStream & { destroy(): void };
}

/** reply-from's onResponse for user requests: the upstream body goes out through CredentialFilter, or not at all. */
export const sendWithoutCredentials: NonNullable<FastifyReplyFromHooks['onResponse']> = (
  request,
  reply,
  upstream,
) => {
  const res = upstream as unknown as UpstreamResponse;
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  const encoding = String(res.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (type !== JSON_TYPE || encoding !== 'identity') {
    res.stream.destroy();
    request.log.warn(
      { contentType: type, encoding },
      'orchestrator answered a users request in a form kapiserver cannot filter',
    );
    const status = new StatusError(
      502,
      'BadGateway',
      'the orchestrator answered users in a form kapiserver cannot filter',
    );
    reply
      .code(502)
      .removeHeader('content-length')
      .removeHeader('content-encoding')
      .type(JSON_TYPE)
      .send(status.toStatus());
    return;
  }
  reply.removeHeader('content-length');
  const filtered = new CredentialFilter();
  pipeline(res.stream, filtered, (err) => {
    if (err) request.log.warn({ err: err.message }, 'users response ended early');
  });
  reply.send(filtered);
};
