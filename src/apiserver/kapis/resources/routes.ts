// resources.kubesphere.io/v1alpha3: lists and single objects served from the informer cache.
//   GET /kapis/resources.kubesphere.io/v1alpha3/{resources}[/{name}]
//   GET /kapis/resources.kubesphere.io/v1alpha3/namespaces/{namespace}/{resources}[/{name}]
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { notFound, StatusError, serviceUnavailable } from '../../../k8s/status.ts';
import type { ClusterCache, Entry, Informer, KubeObject } from '../../cluster/index.ts';
import type { ServerContext } from '../../context.ts';
import { parseListQuery } from '../query.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, ListQueryString, listResult } from '../schemas.ts';
import { RESOURCE_BY_NAME, RESOURCES, type ResourceDef } from './defs.ts';
import { listBody, listPage } from './list.ts';
import { annotateNode, NodeUsage } from './nodeusage.ts';

export const GROUP = 'resources.kubesphere.io';
export const VERSION = 'v1alpha3';
const BASE = `/${GROUP}/${VERSION}`;
const SYNC_WAIT_MS = 15_000;

const TAG = 'resources.kubesphere.io/v1alpha3';
const supported = RESOURCES.map((r) => r.name).join(', ');

function unsupported(resource: string): StatusError {
  return new StatusError(404, 'NotFound', `resource "${resource}" is not supported by ${GROUP}/${VERSION}`, {
    group: GROUP,
    kind: resource,
  });
}

class ResourceService {
  private usage?: NodeUsage;

  constructor(private readonly cache: ClusterCache) {}

  /** Starts the informers of every served type (boot), and the node usage tracker on the pod informer. */
  start(): void {
    for (const def of RESOURCES) this.cache.informer(def.ref);
    this.usage = new NodeUsage(this.cache.informer({ group: '', version: 'v1', resource: 'pods' }));
  }

  async synced(def: ResourceDef): Promise<Informer> {
    const inf = this.cache.informer(def.ref);
    if (!(await inf.waitForSync(SYNC_WAIT_MS))) {
      throw serviceUnavailable(`the cache of ${def.name} has not synced yet; retry shortly`);
    }
    return inf;
  }

  definition(resource: string): ResourceDef {
    const def = RESOURCE_BY_NAME.get(resource);
    if (!def) throw unsupported(resource);
    return def;
  }

  async checkNamespace(namespace: string): Promise<void> {
    const ns = await this.synced(this.definition('namespaces'));
    if (!ns.get('', namespace)) throw notFound('', 'namespaces', namespace);
  }

  presenter(def: ResourceDef): ((obj: KubeObject) => KubeObject) | undefined {
    if (def.name === 'nodes') {
      const usage = this.usage;
      return usage ? (obj) => annotateNode(obj, usage) : undefined;
    }
    return def.redact;
  }

  present(def: ResourceDef, e: Entry): string {
    const p = this.presenter(def);
    return p ? JSON.stringify(p(e.object())) : e.json;
  }
}

const listSchema = (namespaced: boolean) => ({
  tags: [TAG],
  summary: namespaced ? 'List resources of a type in a namespace' : 'List resources of a type',
  description: `Served from the informer cache. Supported resources: ${supported}. Nodes carry computed annotations node.kubesphere.io/{cpu,memory}-{requests,limits}[-fraction]; Secrets never carry data.`,
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

export function registerResourceRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const svc = new ResourceService(ctx.cache);
  svc.start();

  const list = async (request: FastifyRequest, reply: FastifyReply, resource: string) => {
    const { namespace } = request.params as Params;
    const def = svc.definition(resource);
    if (namespace !== undefined && !def.namespaced) {
      throw new StatusError(404, 'NotFound', `resource "${resource}" is not namespaced`);
    }
    const q = parseListQuery(searchOf(request), def.sortFields);
    if (namespace !== undefined) await svc.checkNamespace(namespace);
    const inf = await svc.synced(def);
    const page = listPage(inf, def, q, namespace);
    reply.type('application/json; charset=utf-8');
    return listBody(page, svc.presenter(def));
  };

  const get = async (request: FastifyRequest, reply: FastifyReply) => {
    const { namespace, resources = '', name = '' } = request.params as Params;
    const def = svc.definition(resources);
    if (namespace !== undefined && !def.namespaced) {
      throw new StatusError(404, 'NotFound', `resource "${resources}" is not namespaced`);
    }
    if (namespace !== undefined) await svc.checkNamespace(namespace);
    const inf = await svc.synced(def);
    // A namespaced type asked for without a namespace finds nothing (as KubeSphere's listers).
    const entry = def.namespaced && namespace === undefined ? undefined : inf.get(namespace ?? '', name);
    if (!entry) throw notFound(def.ref.group, def.name, name);
    reply.type('application/json; charset=utf-8');
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
