// `/openapi/v3`, `/openapi/v3/<api/v1 | apis/g/v>` and `/openapi/v2` (JSON or protobuf) documents for the currently
// served types.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { openApiV3GroupDocument, openApiV3Index, type ResourceInfo } from '../openapi/index.ts';
import { openApiV2Document } from '../openapi/v2.ts';
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF } from '../openapi/v2-protobuf.ts';
import type { Registry } from '../registry.ts';
import { apiVersionOf } from '../resources.ts';
import { acceptOf, checkAcceptable, notFound, sendJson } from './respond.ts';

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

const servedGroupVersions = (registry: Registry) =>
  registry.groups().flatMap((g) => g.versions.map((v) => apiVersionOf({ group: g.name, version: v })));

/** Whether the Accept header's first type the dev cluster can send for /openapi/v2 is the protobuf one. */
function wantsProtobuf(accept: string): boolean {
  for (const part of accept.split(',')) {
    const t = part.split(';')[0].trim();
    if (t === OPENAPI_V2_PROTOBUF) return true;
    if (t === '' || t === 'application/json' || t === 'application/*' || t === '*/*') return false;
  }
  return false;
}

/** Answers `/openapi/v2` (JSON, or protobuf when asked for) and the v3 documents (JSON); 404 for anything else. */
export function serveOpenApi(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  registry: Registry,
): void {
  const accept = acceptOf(req);
  if (path === '/openapi/v2' || path === '/openapi/v2/') {
    const docs = servedGroupVersions(registry)
      .map((gv) => documentFor(registry, gv))
      .filter((d): d is object => d !== undefined);
    const doc = openApiV2Document(docs) as Record<string, unknown>;
    if (!wantsProtobuf(accept)) {
      checkAcceptable(accept);
      sendJson(res, 200, doc);
      return;
    }
    const body = encodeOpenApiV2(doc);
    // As kube-openapi: the Accept type is not a valid media type for Go's parser, so the answer is octet-stream.
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
    res.end(body);
    return;
  }
  checkAcceptable(accept);
  const doc = openApiV3Document(path, registry);
  if (!doc) throw notFound();
  sendJson(res, 200, doc);
}

/** The JSON of the v3 document at `path`, or undefined when there is none. */
function openApiV3Document(path: string, registry: Registry): string | undefined {
  if (path === '/openapi/v3' || path === '/openapi/v3/')
    return JSON.stringify(
      openApiV3Index(servedGroupVersions(registry), (gv: string) => documentFor(registry, gv)),
    );
  const m = /^\/openapi\/v3\/(api\/v1|apis\/([^/]+)\/([^/]+))\/?$/.exec(path);
  if (!m) return undefined;
  const doc = documentFor(registry, m[2] ? `${m[2]}/${m[3]}` : 'v1');
  return doc ? JSON.stringify(doc) : undefined;
}
