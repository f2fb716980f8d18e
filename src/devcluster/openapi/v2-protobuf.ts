// `/openapi/v2` in the protobuf encoding clients ask for (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`,
// gnostic's openapi.v2.Document): what kubectl reads for client-side validation of a `kind: List` and for
// `kubectl explain --output=plaintext-openapiv2`. Those clients read the definitions only, so the encoded document
// carries `swagger`, `info` and `definitions`; paths stay in the JSON form. Values that gnostic keeps as `Any`
// (vendor extensions, defaults, enums) are written as YAML text; JSON is YAML.
import protobuf from 'protobufjs';

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

type Writer = protobuf.Writer;
type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// Wire types.
const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;

const tag = (w: Writer, field: number, wire: number) => w.uint32((field << 3) | wire);

function string(w: Writer, field: number, v: unknown): void {
  if (typeof v === 'string' && v !== '') tag(w, field, BYTES).string(v);
}

function message(w: Writer, field: number, write: (w: Writer) => void): void {
  tag(w, field, BYTES).fork();
  write(w);
  w.ldelim();
}

/** gnostic's Any: the value as YAML text (field 2). */
const any = (w: Writer, field: number, v: unknown) =>
  message(w, field, (m) => string(m, 2, JSON.stringify(v)));

function int64(w: Writer, field: number, v: unknown): void {
  if (typeof v === 'number' && Number.isInteger(v)) tag(w, field, VARINT).int64(v);
}

function double(w: Writer, field: number, v: unknown): void {
  if (typeof v === 'number') tag(w, field, FIXED64).double(v);
}

/** A map of name to schema: NamedSchema entries (name 1, value 2) under `field`. */
function namedSchemas(w: Writer, field: number, schemas: Json): void {
  for (const [name, s] of Object.entries(schemas))
    message(w, field, (m) => {
      string(m, 1, name);
      if (isObj(s)) message(m, 2, (x) => schema(x, s));
    });
}

/** openapi.v2.Schema, field by field. */
function schema(w: Writer, s: Json): void {
  string(w, 1, s.$ref);
  string(w, 2, s.format);
  string(w, 3, s.title);
  string(w, 4, s.description);
  if (s.default !== undefined) any(w, 5, s.default);
  double(w, 7, s.maximum);
  double(w, 9, s.minimum);
  int64(w, 11, s.maxLength);
  int64(w, 12, s.minLength);
  string(w, 13, s.pattern);
  int64(w, 14, s.maxItems);
  int64(w, 15, s.minItems);
  if (Array.isArray(s.required)) for (const r of s.required) string(w, 19, r);
  if (Array.isArray(s.enum)) for (const e of s.enum) any(w, 20, e);
  const addl = s.additionalProperties;
  if (isObj(addl)) message(w, 21, (m) => message(m, 1, (x) => schema(x, addl)));
  else if (typeof addl === 'boolean') message(w, 21, (m) => tag(m, 2, VARINT).bool(addl));
  if (typeof s.type === 'string') message(w, 22, (m) => string(m, 1, s.type));
  const items = s.items;
  if (isObj(items)) message(w, 23, (m) => message(m, 1, (x) => schema(x, items)));
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isObj(a)) message(w, 24, (x) => schema(x, a));
  const props = s.properties;
  if (isObj(props)) message(w, 25, (m) => namedSchemas(m, 1, props));
  for (const [k, v] of Object.entries(s))
    if (k.startsWith('x-'))
      message(w, 31, (m) => {
        string(m, 1, k);
        any(m, 2, v);
      });
}

/** The protobuf encoding of a Swagger 2.0 document's swagger, info and definitions. */
export function encodeOpenApiV2(doc: Json): Uint8Array {
  const w = protobuf.Writer.create();
  string(w, 1, doc.swagger);
  const info = doc.info;
  if (isObj(info))
    message(w, 2, (m) => {
      string(m, 1, info.title);
      string(m, 2, info.version);
    });
  const definitions = doc.definitions;
  if (isObj(definitions)) message(w, 9, (m) => namedSchemas(m, 1, definitions));
  return w.finish();
}
