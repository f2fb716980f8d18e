// Decoding of built-in objects as kube-apiserver's JSON decoder does it, driven by the published schemas: a value of
// the wrong JSON type for a field the schema knows (a boolean in a Secret's stringData, a string in spec.replicas,
// bad base64 in a Secret's data) is a 400 BadRequest naming the field, never a stored value. Quantities are read as
// Quantity.UnmarshalJSON reads them: the spaces around the text are trimmed first. Unknown fields follow
// `fieldValidation` (Strict: 400 naming them all; Warn, the default: dropped with a warning each; Ignore: dropped)
// at the levels whose schemas are complete here: the object's top level and its metadata. Deeper unknown fields are
// kept, since those schemas list the common fields of each type, not every one.
import { parseQuantity, quantityJsonText } from '../../k8s/quantity.ts';
import { badRequest } from '../../k8s/status.ts';
import type { ResourceDef } from '../resources.ts';
import type { WriteOptions } from '../rest.ts';
import type { Obj } from '../store.ts';
import { META, QUANTITY, REF_PREFIX, type Schema } from './builders.ts';
import { builtinSchemas, schemaPrefix } from './index.ts';

/** Schemas whose every field is listed, so a field they lack is unknown (besides each kind's top level). */
const CLOSED = new Set([META('ObjectMeta'), META('OwnerReference')]);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Named {
  name?: string;
  schema: Schema;
}

/** Follows `$ref` and a lone `allOf: [{$ref}]` to the named schema. */
function resolve(s: Schema, name?: string): Named {
  const ref = typeof s.$ref === 'string' ? s.$ref : undefined;
  const wrapped =
    Array.isArray(s.allOf) && s.allOf.length === 1 && isObj(s.allOf[0]) ? s.allOf[0] : undefined;
  const target = ref ?? (typeof wrapped?.$ref === 'string' ? wrapped.$ref : undefined);
  if (!target) return { name, schema: s };
  const n = target.slice(REF_PREFIX.length);
  const found = builtinSchemas[n];
  return found ? resolve(found, n) : { name, schema: {} };
}

/** Go's JSON name of a value's type, as in "cannot unmarshal bool into ...". */
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** The Go type a schema decodes into, for messages. */
function goType(n: Named): string {
  const s = n.schema;
  if (n.name && s.type === 'object' && !s.additionalProperties) return `v1.${n.name.split('.').pop()}`;
  switch (s.type) {
    case 'integer':
      return s.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return isObj(s.items) ? `[]${goType(resolve(s.items))}` : '[]interface {}';
    case 'object':
      return isObj(s.additionalProperties)
        ? `map[string]${goType(resolve(s.additionalProperties))}`
        : 'object';
    default:
      return s.format === 'byte' ? '[]uint8' : 'string';
  }
}

function fits(n: Named, v: unknown): boolean {
  const s = n.schema;
  if (n.name === QUANTITY || s.format === 'int-or-string')
    return typeof v === 'string' || Number.isInteger(v);
  switch (s.type) {
    case 'object':
      return isObj(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

class Decoder {
  readonly unknown: string[] = [];

  constructor(private readonly fail: (message: string) => never) {}

  /**
   * `struct` names the Go struct holding the field at `path`, as Go's messages do. Returns the decoded value: `v`,
   * or a quantity's text without its surrounding spaces (the caller stores it in `v`'s place).
   */
  walk(n: Named, v: unknown, path: string, struct: string, closed: boolean): unknown {
    if (v === null || v === undefined) return v; // JSON null decodes as the zero value
    const s = n.schema;
    if (!fits(n, v))
      this.fail(
        `json: cannot unmarshal ${jsonType(v)} into Go struct field ${struct}.${path} of type ${goType(n)}`,
      );
    if (n.name === QUANTITY && typeof v === 'string') {
      const text = quantityJsonText(v);
      if (!parseQuantity(text))
        this.fail(
          "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        );
      return text;
    }
    if (s.format === 'byte' && typeof v === 'string' && !BASE64.test(v))
      this.fail(`illegal base64 data at input byte ${firstBadByte(v)} in field ${path}`);
    if (Array.isArray(v) && isObj(s.items)) {
      const item = resolve(s.items);
      v.forEach((x, i) => {
        setDecoded(v, i, x, this.walk(item, x, `${path}[${i}]`, struct, false));
      });
      return v;
    }
    if (!isObj(v)) return v;
    const props = isObj(s.properties) ? s.properties : {};
    const addl = isObj(s.additionalProperties) ? resolve(s.additionalProperties) : undefined;
    const closedHere = closed || (n.name !== undefined && CLOSED.has(n.name));
    const here = n.name && s.type === 'object' ? (n.name.split('.').pop() ?? struct) : struct;
    for (const [k, x] of Object.entries(v)) {
      const child = join(path, k);
      const p = props[k];
      if (isObj(p)) setDecoded(v, k, x, this.walk(resolve(p), x, child, here, false));
      // Go names a map value by the map's field, without the key.
      else if (addl) setDecoded(v, k, x, this.walk(addl, x, path, here, false));
      else if (closedHere && Object.keys(props).length > 0) {
        this.unknown.push(child);
        delete v[k];
      }
    }
    return v;
  }
}

/** Stores a decoded value that differs from the one read, as an own property (even for a key like `__proto__`). */
function setDecoded(parent: object, key: string | number, read: unknown, decoded: unknown): void {
  if (decoded !== read)
    Object.defineProperty(parent, key, {
      value: decoded,
      writable: true,
      enumerable: true,
      configurable: true,
    });
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function firstBadByte(v: string): number {
  const i = [...v].findIndex((c) => !/[A-Za-z0-9+/=]/.test(c));
  return i < 0 ? v.length : i;
}

/**
 * Decodes `o` (mutated: unknown fields at the checked levels are removed) as resource `d`'s kind. Throws the 400 of
 * a type error or, with fieldValidation=Strict, of unknown fields; with Warn (the default) adds a warning for each
 * unknown field dropped to `opts.warnings`.
 */
export function decodeStrictly(d: ResourceDef, o: Obj, opts: WriteOptions): void {
  const dropped = decodeBuiltin(d, o, opts.fieldValidation);
  if (opts.fieldValidation !== 'Ignore') opts.warnings?.push(...dropped.map((f) => `unknown field "${f}"`));
}

function decodeBuiltin(d: ResourceDef, o: Obj, fieldValidation: string | undefined): string[] {
  if (d.crd || d.virtual) return [];
  const name = `${schemaPrefix(d.group, d.version)}.${d.kind}`;
  const schema = builtinSchemas[name];
  if (!schema) return [];
  const prefix = `${d.kind} in version "${d.version}" cannot be handled as a ${d.kind}: `;
  const decoder = new Decoder((message) => {
    throw badRequest(`${prefix}${message}`);
  });
  decoder.walk({ name, schema }, o, '', d.kind, true);
  if (fieldValidation === 'Strict' && decoder.unknown.length > 0)
    throw badRequest(
      `strict decoding error: ${decoder.unknown.map((f) => `unknown field "${f}"`).join(', ')}`,
    );
  return decoder.unknown;
}
