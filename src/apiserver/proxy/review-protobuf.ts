// Decoding of the few protobuf request bodies kapiserver answers itself (kubectl 1.32+ sends its typed requests as
// `application/vnd.kubernetes.protobuf`): SelfSubjectAccessReview and SelfSubjectRulesReview. Envelope: the bytes
// `k8s\0`, then a runtime.Unknown {1 typeMeta, 2 raw, 3 contentEncoding, 4 contentType}; `raw` is the object message
// with the field numbers of k8s.io/api authorization/v1 generated.proto. Only the string fields a review reads are
// decoded; unknown fields are skipped.
import { badRequest } from '../../k8s/status.ts';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Fields = Map<number, Buffer[]>;

function varint(buf: Buffer, pos: number): [number, number] {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (pos >= buf.length || shift > 49) throw badRequest('malformed protobuf body');
    const b = buf[pos++];
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7;
  }
}

/** Length-delimited fields of one message, by field number (other wire types are skipped). */
function fields(buf: Buffer): Fields {
  const out: Fields = new Map();
  let pos = 0;
  while (pos < buf.length) {
    const [key, p1] = varint(buf, pos);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    pos = p1;
    if (wire === 0) [, pos] = varint(buf, pos);
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const [len, p2] = varint(buf, pos);
      if (p2 + len > buf.length) throw badRequest('malformed protobuf body');
      const list = out.get(field) ?? [];
      list.push(buf.subarray(p2, p2 + len));
      out.set(field, list);
      pos = p2 + len;
    } else throw badRequest('malformed protobuf body');
  }
  return out;
}

const first = (f: Fields, n: number) => f.get(n)?.[0];
const text = (f: Fields, n: number) => first(f, n)?.toString('utf8') ?? '';

/** The object message inside the `k8s\0` envelope. */
function unwrap(body: Buffer): Buffer {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC))
    throw badRequest('protobuf body without the k8s envelope');
  return first(fields(body.subarray(4)), 2) ?? Buffer.alloc(0);
}

/** A SelfSubjectAccessReview or SelfSubjectRulesReview as the JSON shape's `spec`. */
export function decodeReviewSpec(kind: string, body: Buffer): Record<string, unknown> {
  const obj = fields(unwrap(body));
  const spec = fields(first(obj, 2) ?? Buffer.alloc(0));
  if (kind === 'SelfSubjectRulesReview') return { namespace: text(spec, 1) };
  const out: Record<string, unknown> = {};
  const ra = first(spec, 1);
  if (ra) {
    const f = fields(ra);
    out.resourceAttributes = {
      namespace: text(f, 1),
      verb: text(f, 2),
      group: text(f, 3),
      version: text(f, 4),
      resource: text(f, 5),
      subresource: text(f, 6),
      name: text(f, 7),
    };
  }
  const nra = first(spec, 2);
  if (nra) {
    const f = fields(nra);
    out.nonResourceAttributes = { path: text(f, 1), verb: text(f, 2) };
  }
  return out;
}
