// Wires the sibling engines (protobuf request bodies, Table output, OpenAPI v3 documents) into the HTTP layer.
// They are loaded by path so the server keeps working (415 / plain lists / 404) where one is absent.
import type { Logger } from 'pino';
import type { Registry } from './registry.ts';
import type { Plugins } from './server.ts';
import type { Obj } from './store.ts';

type Fn = (...args: unknown[]) => unknown;

async function tryImport(
  rel: string,
  logger: Logger | undefined,
): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(new URL(rel, import.meta.url).href)) as Record<string, unknown>;
  } catch (err) {
    logger?.debug({ module: rel, err: (err as Error).message }, 'dev cluster engine not available');
    return undefined;
  }
}

const fn = (m: Record<string, unknown> | undefined, name: string): Fn | undefined =>
  typeof m?.[name] === 'function' ? (m[name] as Fn) : undefined;

/** `/openapi/v3` and `/openapi/v3/<api/v1 | apis/g/v>` documents for the currently served types. */
function openApiHandler(index: Fn, groupDoc: Fn): NonNullable<Plugins['openapi']> {
  const documentFor = (registry: Registry, gv: string): object | undefined => {
    const slash = gv.indexOf('/');
    const group = slash >= 0 ? gv.slice(0, slash) : '';
    const version = slash >= 0 ? gv.slice(slash + 1) : gv;
    if (!registry.hasGroupVersion(group, version)) return undefined;
    const defs = registry.all().filter((d) => d.group === group && d.version === version);
    const resources = defs.map((d) => ({
      group: d.group,
      version: d.version,
      kind: d.kind,
      plural: d.resource,
      namespaced: d.namespaced,
      verbs: d.verbs,
      subresources: d.subresources,
    }));
    const crdSchemas: Record<string, unknown> = {};
    for (const d of defs) if (d.crd?.schema) crdSchemas[d.kind] = d.crd.schema;
    return groupDoc(gv, resources, crdSchemas) as object;
  };
  return (path: string, registry: Registry) => {
    if (path === '/openapi/v3' || path === '/openapi/v3/') {
      const gvs = registry.groups().flatMap((g) => g.versions.map((v) => (g.name ? `${g.name}/${v}` : v)));
      return {
        body: JSON.stringify(index(gvs, (gv: string) => documentFor(registry, gv))),
        contentType: 'application/json',
      };
    }
    const m = /^\/openapi\/v3\/(api\/v1|apis\/([^/]+)\/([^/]+))\/?$/.exec(path);
    if (!m) return undefined;
    const doc = documentFor(registry, m[2] ? `${m[2]}/${m[3]}` : 'v1');
    return doc ? { body: JSON.stringify(doc), contentType: 'application/json' } : undefined;
  };
}

export async function loadPlugins(logger?: Logger): Promise<Plugins> {
  const plugins: Plugins = {};
  const [proto, table, openapi] = await Promise.all([
    tryImport('./protobuf/index.ts', logger),
    tryImport('./table/index.ts', logger),
    tryImport('./openapi/index.ts', logger),
  ]);
  const decode = fn(proto, 'decodeProtobufObject');
  if (decode) plugins.decodeProtobuf = (body) => decode(body) as Obj;
  const toTable = fn(table, 'toTable');
  if (toTable) plugins.toTable = (d, objects, opts) => toTable(d, objects, opts) as Obj;
  const index = fn(openapi, 'openApiV3Index');
  const groupDoc = fn(openapi, 'openApiV3GroupDocument');
  if (index && groupDoc) plugins.openapi = openApiHandler(index, groupDoc);
  return plugins;
}
