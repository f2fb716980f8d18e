// `/openapi/v3`, `/openapi/v3/<api/v1 | apis/g/v>` and `/openapi/v2` documents for the currently served types.
import { openApiV3GroupDocument, openApiV3Index, type ResourceInfo } from '../openapi/index.ts';
import { openApiV2Document } from '../openapi/v2.ts';
import type { Registry } from '../registry.ts';
import { apiVersionOf } from '../resources.ts';

function documentFor(registry: Registry, gv: string): object | undefined {
  const slash = gv.indexOf('/');
  const group = slash >= 0 ? gv.slice(0, slash) : '';
  const version = slash >= 0 ? gv.slice(slash + 1) : gv;
  if (!registry.hasGroupVersion(group, version)) return undefined;
  const defs = registry.all().filter((d) => d.group === group && d.version === version);
  const resources: ResourceInfo[] = defs.map((d) => ({
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
  return openApiV3GroupDocument(gv, resources, crdSchemas);
}

/** The JSON of the document at `path`, or undefined when there is none. */
export function openApiDocument(path: string, registry: Registry): string | undefined {
  const gvs = () =>
    registry.groups().flatMap((g) => g.versions.map((v) => apiVersionOf({ group: g.name, version: v })));
  if (path === '/openapi/v3' || path === '/openapi/v3/')
    return JSON.stringify(openApiV3Index(gvs(), (gv: string) => documentFor(registry, gv)));
  if (path === '/openapi/v2' || path === '/openapi/v2/') {
    const docs = gvs()
      .map((gv) => documentFor(registry, gv))
      .filter((d): d is object => d !== undefined);
    return JSON.stringify(openApiV2Document(docs));
  }
  const m = /^\/openapi\/v3\/(api\/v1|apis\/([^/]+)\/([^/]+))\/?$/.exec(path);
  if (!m) return undefined;
  const doc = documentFor(registry, m[2] ? `${m[2]}/${m[3]}` : 'v1');
  return doc ? JSON.stringify(doc) : undefined;
}
