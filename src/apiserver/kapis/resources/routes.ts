// resources.kubesphere.io/v1alpha3: lists and single objects served from the informer cache.
//   GET /kapis/resources.kubesphere.io/v1alpha3/{resources}[/{name}]
//   GET /kapis/resources.kubesphere.io/v1alpha3/namespaces/{namespace}/{resources}[/{name}]
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { notFound, StatusError } from '../../../k8s/status.ts';
import type { ServerContext } from '../../context.ts';
import { parseListQuery } from '../query.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, ListQueryString, listResult } from '../schemas.ts';
import { RESOURCE_BY_NAME, RESOURCES, type ResourceDef } from './defs.ts';
import { listBody, listPage } from './list.ts';
import { ResourceService } from './service.ts';
import {
  legacyDefinition,
  legacyGet,
  legacySearch,
  notSupported,
  parseLegacyQuery,
} from './v1alpha2/legacy.ts';
import { registerComponentRoutes, registerV1alpha2Routes } from './v1alpha2/routes.ts';

export const GROUP = 'resources.kubesphere.io';
export const VERSION = 'v1alpha3';
const BASE = `/${GROUP}/${VERSION}`;
const TAG = 'resources.kubesphere.io/v1alpha3';
const supported = RESOURCES.map((r) => r.name).join(', ');

const listSchema = (namespaced: boolean) => ({
  tags: [TAG],
  summary: namespaced ? 'List resources of a type in a namespace' : 'List resources of a type',
  description: `Served from the informer cache. Supported resources: ${supported} (the optional ones when the cluster serves their API), else those of the v1alpha2 search, answered in its shape. Nodes carry computed annotations node.kubesphere.io/{cpu,memory}-{requests,limits}[-fraction]; Secrets never carry data; users no credentials. sortBy: creationTimestamp (createTime) or name; pods also startTime; deployments, statefulsets and daemonsets also updateTime (lastUpdateTimestamp); jobs also updateTime.`,
  operationId: namespaced ? 'ListNamespacedResources' : 'ListResources',
  params: Type.Object({
    ...(namespaced ? { namespace: Type.String({ description: 'Namespace' }) } : {}),
    resources: Type.String({ description: `Resource type (plural), e.g. nodes. One of: ${supported}` }),
  }),
  querystring: ListQueryString,
  response: {
    200: listResult(KubeObjectSchema, 'A page of objects and the number of all matches'),
    ...errors(400, 404, 503),
  },
});

const getSchema = (namespaced: boolean) => ({
  tags: [TAG],
  summary: namespaced ? 'Get one namespaced object' : 'Get one object',
  operationId: namespaced ? 'GetNamespacedResource' : 'GetResource',
  params: Type.Object({
    ...(namespaced ? { namespace: Type.String({ description: 'Namespace' }) } : {}),
    resources: Type.String({ description: 'Resource type (plural)' }),
    name: Type.String({ description: 'Object name' }),
  }),
  response: { 200: KubeObjectSchema, ...errors(404, 503) },
});

const nodeListSchema = {
  tags: [TAG],
  summary: 'List nodes',
  description:
    'The node list, as KubeSphere answers it: items with metadata (name, selfLink, uid, resourceVersion, creationTimestamp, labels, annotations) and totalItems. `status` filters running|warning|unschedulable.',
  operationId: 'ListNodes',
  querystring: ListQueryString,
  response: { 200: listResult(KubeObjectSchema, 'Nodes'), ...errors(400, 503) },
};

type Params = { resources?: string; name?: string; namespace?: string };

function searchOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q < 0 ? '' : request.url.slice(q + 1);
}

/** The v1alpha3 definition of a type the cluster serves; undefined when v1alpha2's search is to answer instead. */
async function v1alpha3Definition(svc: ResourceService, resource: string): Promise<ResourceDef | undefined> {
  const def = RESOURCE_BY_NAME.get(resource);
  if (def && (!def.optional || (await svc.served(def)))) return def;
  if (legacyDefinition(resource)) return undefined;
  throw notSupported(resource);
}

export function registerResourceRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const svc = new ResourceService(ctx.cache, ctx.cluster);
  svc.start();
  registerV1alpha2Routes(app, svc);
  registerComponentRoutes(app, svc, VERSION);

  const list = async (request: FastifyRequest, reply: FastifyReply, resource: string) => {
    const { namespace } = request.params as Params;
    const def = await v1alpha3Definition(svc, resource);
    reply.type('application/json; charset=utf-8');
    if (!def) return legacySearch(svc, resource, namespace, parseLegacyQuery(searchOf(request)));
    if (namespace !== undefined && !def.namespaced) {
      throw new StatusError(404, 'NotFound', `resource "${resource}" is not namespaced`);
    }
    const q = parseListQuery(searchOf(request), def.sortFields);
    if (namespace !== undefined) await svc.checkNamespace(namespace);
    const inf = await svc.synced(def);
    const page = listPage(inf, def, q, namespace);
    return listBody(page, svc.presenter(def));
  };

  const get = async (request: FastifyRequest, reply: FastifyReply) => {
    const { namespace, resources = '', name = '' } = request.params as Params;
    const def = await v1alpha3Definition(svc, resources);
    reply.type('application/json; charset=utf-8');
    if (!def) return legacyGet(svc, resources, namespace, name);
    if (namespace !== undefined && !def.namespaced) {
      throw new StatusError(404, 'NotFound', `resource "${resources}" is not namespaced`);
    }
    if (namespace !== undefined) await svc.checkNamespace(namespace);
    const inf = await svc.synced(def);
    // A namespaced type asked for without a namespace finds nothing (as KubeSphere's listers).
    const entry = def.namespaced && namespace === undefined ? undefined : inf.get(namespace ?? '', name);
    if (!entry) throw notFound(def.ref.group, def.name, name);
    return svc.present(def, entry);
  };

  // The node list first, as its own documented operation (same handler as the generic list).
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/nodes`,
    schema: nodeListSchema,
    handler: (request, reply) => list(request, reply, 'nodes'),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/:resources`,
    schema: listSchema(false),
    handler: (request, reply) => list(request, reply, (request.params as Params).resources ?? ''),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/:resources/:name`,
    schema: getSchema(false),
    handler: get,
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/namespaces/:namespace/:resources`,
    schema: listSchema(true),
    handler: (request, reply) => list(request, reply, (request.params as Params).resources ?? ''),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/namespaces/:namespace/:resources/:name`,
    schema: getSchema(true),
    handler: get,
  });
}
