// Moves every titled schema of a generated Swagger 2.0 document into `definitions` and refers to it by $ref.
// @fastify/swagger inlines each route's schemas, so the Status, ObjectMeta and role schemas would otherwise repeat in
// every operation (hundreds of copies); clients and Swagger UI also show named models this way.
type Json = unknown;
type Obj = Record<string, Json>;

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Swagger 2.0 has no null type: a nullable schema (`anyOf: [schema, {type: "null"}]`, what TypeBox writes for a field
 * a client may send as null) becomes that schema with `x-nullable`, as Kubernetes' own swagger marks such fields.
 */
function swagger2Nullable(node: Obj): Obj {
  const { anyOf, ...rest } = node;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return node;
  const other = anyOf.filter((s) => !(isObj(s) && s.type === 'null' && Object.keys(s).length === 1));
  if (other.length !== 1 || !isObj(other[0])) return node;
  return { ...other[0], ...rest, 'x-nullable': true };
}

/** Hoists titled schemas (inner ones first); a title used by two different shapes stays inline for the second. */
export function hoistDefinitions(doc: Obj): Obj {
  const definitions: Obj = {};
  const text = new Map<string, string>();
  /** The description every use of a title agrees on; null once two uses differ (then the model has none). */
  const described = new Map<string, string | undefined | null>();

  const walk = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObj(node)) return node;
    const out: Obj = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v);
    if ('anyOf' in out) return swagger2Nullable(out);
    const title = out.title;
    if (typeof title !== 'string' || !('type' in out)) return out;
    // A description may be per use (errors() labels each Status "Not found", "Conflict", ...).
    const { description, ...model } = out;
    const shape = JSON.stringify(model);
    const known = text.get(title);
    if (known === undefined) {
      text.set(title, shape);
      definitions[title] = model;
      described.set(title, description as string | undefined);
    } else if (known !== shape) {
      return out;
    } else if (described.get(title) !== description) {
      described.set(title, null);
    }
    return { $ref: `#/definitions/${title}` };
  };

  const { definitions: existing, ...rest } = doc;
  if (isObj(existing) && Object.keys(existing).length > 0)
    throw new Error('hoistDefinitions: document has definitions');
  const walked = walk(rest) as Obj;
  for (const [title, description] of described) {
    if (typeof description === 'string') definitions[title] = { ...(definitions[title] as Obj), description };
  }
  const sorted = Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b)));
  return { ...walked, definitions: sorted };
}
