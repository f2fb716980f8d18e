// `/openapi/v2`: the Swagger 2.0 document older clients read, built from the same group-version documents as
// `/openapi/v3`: schemas become `definitions`, each operation's parameters, request body and responses take
// Swagger 2.0's shapes, and every `$ref` points into `#/definitions/`. Served as JSON only.

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

type Json = Record<string, unknown>;

const V3_REF = '#/components/schemas/';
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

/**
 * A copy of `v` with component references rewritten to definitions, and v3's `allOf: [{$ref}]` (how a reference
 * carries a description) back to Swagger 2.0's `$ref` beside the description, as kube's v2 document has it.
 */
function rewriteRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(rewriteRefs);
  if (!isObj(v)) return v;
  const { allOf, ...rest } = v;
  if (Array.isArray(allOf) && allOf.length === 1 && isObj(allOf[0]) && typeof allOf[0].$ref === 'string')
    return rewriteRefs({ ...rest, $ref: allOf[0].$ref });
  const out: Json = {};
  for (const [k, x] of Object.entries(v))
    out[k] = k === '$ref' && typeof x === 'string' ? x.replace(V3_REF, '#/definitions/') : rewriteRefs(x);
  return out;
}

/** A v3 parameter (`schema` inside) as a v2 one (the schema's type and format inline). */
function parameter(p: unknown): unknown {
  if (!isObj(p)) return p;
  const { schema, ...rest } = p;
  return { ...rest, ...(isObj(schema) ? schema : {}) };
}

/** The content types of a v3 `content` map, and the schema of the first. */
function fromContent(content: unknown): { types: string[]; schema?: unknown } {
  if (!isObj(content)) return { types: [] };
  const types = Object.keys(content);
  const first = types.length > 0 ? content[types[0]] : undefined;
  return { types, schema: isObj(first) ? first.schema : undefined };
}

function operation(op: Json): Json {
  const { requestBody, responses, parameters, ...rest } = op;
  const out: Json = { ...rest };
  const params = Array.isArray(parameters) ? parameters.map(parameter) : [];
  if (isObj(requestBody)) {
    const body = fromContent(requestBody.content);
    params.unshift({
      name: 'body',
      in: 'body',
      required: requestBody.required === true,
      schema: body.schema,
    });
    out.consumes = body.types;
  }
  if (params.length > 0) out.parameters = params;
  const produced = new Set<string>();
  const v2Responses: Json = {};
  for (const [code, r] of Object.entries(isObj(responses) ? responses : {})) {
    if (!isObj(r)) continue;
    const { types, schema } = fromContent(r.content);
    for (const t of types) produced.add(t);
    v2Responses[code] = { description: r.description, ...(schema ? { schema } : {}) };
  }
  out.responses = v2Responses;
  if (produced.size > 0) out.produces = [...produced];
  out.schemes = ['https'];
  return out;
}

/** The Swagger 2.0 document of the given OpenAPI v3 group-version documents. */
export function openApiV2Document(v3Documents: object[]): object {
  const paths: Json = {};
  const definitions: Json = {};
  for (const doc of v3Documents as Json[]) {
    const components = isObj(doc.components) ? doc.components : {};
    Object.assign(definitions, isObj(components.schemas) ? components.schemas : {});
    for (const [path, item] of Object.entries(isObj(doc.paths) ? doc.paths : {})) {
      if (!isObj(item)) continue;
      const v2: Json = {};
      for (const [k, x] of Object.entries(item)) {
        if (METHODS.includes(k) && isObj(x)) v2[k] = operation(x);
        else if (k === 'parameters' && Array.isArray(x)) v2.parameters = x.map(parameter);
        else v2[k] = x;
      }
      paths[path] = v2;
    }
  }
  const sorted = (o: Json) =>
    Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]]),
    );
  return rewriteRefs({
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.33.1' },
    paths: sorted(paths),
    definitions: sorted(definitions),
    securityDefinitions: {
      BearerToken: {
        description: 'Bearer Token authentication',
        type: 'apiKey',
        name: 'authorization',
        in: 'header',
      },
    },
    security: [{ BearerToken: [] }],
  }) as object;
}
