// resources.kubesphere.io/v1alpha2, served from the informer cache: components and the cluster's health, quotas,
// abnormal workloads, workload revisions and the legacy search. Every error is a Kubernetes Status. Not served, on
// purpose: git/verify and registry/* (they would send any Secret's credentials to any address, reference 10 item 4)
// and users/{user}/kubectl (there are no per-user kubectl pods): those paths answer 404.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { registerKapisRoute } from '../../route.ts';
import { errors, KubeObject, StringMap } from '../../schemas.ts';
import type { ResourceService } from '../service.ts';
import { abnormalWorkloads } from './abnormal.ts';
import { componentHealth, getComponent, listComponents } from './components.ts';
import { LEGACY_RESOURCES, legacySearch, parseLegacyQuery } from './legacy.ts';
import { clusterQuotas, namespaceQuotas } from './quotas.ts';
import { controllerRevision, deploymentRevision } from './revisions.ts';

const GROUP = 'resources.kubesphere.io';
const TAG = `${GROUP}/v1alpha2`;

export const Component = Type.Object(
  {
    name: Type.String(),
    namespace: Type.String(),
    selfLink: Type.String(),
    label: StringMap,
    startedAt: Type.String({ format: 'date-time', description: "The Service's creation time" }),
    totalBackends: Type.Integer({ description: 'Pods the Service selects' }),
    healthyBackends: Type.Integer({ description: 'Of those, Running with every container ready' }),
  },
  { title: 'Component' },
);

export const ComponentHealth = Type.Object({
  kubesphereStatus: Type.Array(Component),
  nodeStatus: Type.Object({ totalNodes: Type.Integer(), healthyNodes: Type.Integer() }),
});

const NamespaceParam = { namespace: Type.String({ description: 'Namespace' }) };

type Params = { namespace?: string; name?: string; revision?: string; resources?: string };
const params = (r: FastifyRequest) => r.params as Params;
const searchOf = (r: FastifyRequest) => {
  const q = r.url.indexOf('?');
  return q < 0 ? '' : r.url.slice(q + 1);
};

/** The component routes, which v1alpha3 serves too. */
export function registerComponentRoutes(app: FastifyInstance, svc: ResourceService, version: string): void {
  const base = `/${GROUP}/${version}`;
  const tags = [`${GROUP}/${version}`];
  registerKapisRoute(app, {
    method: 'GET',
    path: `${base}/components`,
    schema: {
      tags,
      summary: 'List the system components',
      description:
        'One per Service with a selector in the KubeSphere and Kubernetes system namespaces, with its healthy backends.',
      operationId: `ListComponents${version}`,
      response: { 200: Type.Array(Component), ...errors(503) },
    },
    handler: async () => listComponents(svc),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${base}/components/:name`,
    schema: {
      tags,
      summary: 'Get one system component',
      operationId: `GetComponent${version}`,
      params: Type.Object({ name: Type.String({ description: 'Service name' }) }),
      response: { 200: Component, ...errors(404, 503) },
    },
    handler: async (request) => getComponent(svc, params(request).name ?? ''),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${base}/componenthealth`,
    schema: {
      tags,
      summary: "The components' and nodes' health",
      operationId: `GetComponentHealth${version}`,
      response: { 200: ComponentHealth, ...errors(503) },
    },
    handler: async () => componentHealth(svc),
  });
}

const Quota = (withLimits: boolean) =>
  Type.Object({
    namespace: Type.String({
      description: withLimits ? 'Namespace' : 'Literally two quote characters, as KubeSphere',
    }),
    data: Type.Object({
      ...(withLimits ? { hard: StringMap, left: StringMap } : {}),
      used: StringMap,
    }),
  });

const AbnormalWorkloads = Type.Object({
  namespace: Type.String(),
  data: Type.Object({
    deployments: Type.Integer(),
    statefulsets: Type.Integer(),
    daemonsets: Type.Integer(),
    jobs: Type.Integer(),
    persistentvolumeclaims: Type.Integer(),
  }),
});

const LegacyQuery = Type.Object({
  conditions: Type.Optional(
    Type.String({
      description:
        'key=value (exact) or key~value (fuzzy), comma-separated; keys: name, keyword, label, annotation, status, owner, ownerKind, ownerName, app, or a label key',
    }),
  ),
  paging: Type.Optional(
    Type.String({ description: 'limit=L,page=P (default limit=10,page=1; limit=-1: all)' }),
  ),
  limit: Type.Optional(Type.Integer({ description: 'When paging is absent' })),
  page: Type.Optional(Type.Integer({ description: 'When paging is absent' })),
  start: Type.Optional(Type.Integer({ description: 'Offset, overriding the page' })),
  orderBy: Type.Optional(Type.String({ description: 'createTime (default, newest first) or name' })),
  reverse: Type.Optional(Type.Boolean()),
});

const LegacyResult = Type.Object({
  items: Type.Array(KubeObject),
  total_count: Type.Integer({ description: 'Number of all matches' }),
});

function revisionRoute(
  app: FastifyInstance,
  resource: 'deployments' | 'daemonsets' | 'statefulsets',
  handler: (p: Required<Pick<Params, 'namespace' | 'name' | 'revision'>>) => Promise<unknown>,
  what: string,
): void {
  registerKapisRoute(app, {
    method: 'GET',
    path: `/${GROUP}/v1alpha2/namespaces/:namespace/${resource}/:name/revisions/:revision`,
    schema: {
      tags: [TAG],
      summary: `Get a revision of a ${resource.slice(0, -1)}`,
      description: what,
      operationId: `Get${resource[0].toUpperCase()}${resource.slice(1, -1)}Revision`,
      params: Type.Object({
        ...NamespaceParam,
        name: Type.String(),
        revision: Type.String({ description: 'Revision number' }),
      }),
      response: { 200: KubeObject, ...errors(400, 404, 503) },
    },
    handler: async (request) => {
      const { namespace = '', name = '', revision = '' } = params(request);
      return handler({ namespace, name, revision });
    },
  });
}

export function registerV1alpha2Routes(app: FastifyInstance, svc: ResourceService): void {
  const base = `/${GROUP}/v1alpha2`;
  registerComponentRoutes(app, svc, 'v1alpha2');

  const route = (
    path: string,
    operationId: string,
    summary: string,
    response: TSchema,
    handler: (r: FastifyRequest) => Promise<unknown>,
    namespaced = false,
  ) =>
    registerKapisRoute(app, {
      method: 'GET',
      path: `${base}${path}`,
      schema: {
        tags: [TAG],
        summary,
        operationId,
        ...(namespaced ? { params: Type.Object(NamespaceParam) } : {}),
        response: { 200: response, ...errors(...(namespaced ? [404, 503] : [503])) },
      },
      handler,
    });

  route('/quotas', 'GetClusterQuotas', 'Object counts of the cluster', Quota(false), () =>
    clusterQuotas(svc),
  );
  route(
    '/namespaces/:namespace/quotas',
    'GetNamespaceQuotas',
    "A namespace's quota: the tightest ResourceQuota per key, live counts, and what is left",
    Quota(true),
    (r) => namespaceQuotas(svc, params(r).namespace ?? ''),
    true,
  );
  route(
    '/abnormalworkloads',
    'GetClusterAbnormalWorkloads',
    'Counts of abnormal workloads in the cluster',
    AbnormalWorkloads,
    () => abnormalWorkloads(svc),
  );
  route(
    '/namespaces/:namespace/abnormalworkloads',
    'GetNamespaceAbnormalWorkloads',
    'Counts of abnormal workloads in a namespace',
    AbnormalWorkloads,
    (r) => abnormalWorkloads(svc, params(r).namespace ?? ''),
    true,
  );

  revisionRoute(
    app,
    'deployments',
    (p) => deploymentRevision(svc, p.namespace, p.name, p.revision),
    'The ReplicaSet of the deployment with that revision.',
  );
  revisionRoute(
    app,
    'daemonsets',
    (p) => controllerRevision(svc, 'daemonsets', p.namespace, p.name, p.revision),
    'The daemonset as it was at that revision, rebuilt from its ControllerRevision.',
  );
  revisionRoute(
    app,
    'statefulsets',
    (p) => controllerRevision(svc, 'statefulsets', p.namespace, p.name, p.revision),
    'The statefulset as it was at that revision, rebuilt from its ControllerRevision.',
  );

  const searchSchema = (namespaced: boolean) => ({
    tags: [TAG],
    summary: namespaced
      ? 'Search resources of a type in a namespace (legacy)'
      : 'Search resources of a type (legacy)',
    description: `Resources: ${LEGACY_RESOURCES.join(', ')} (those whose API the cluster serves). Secrets never carry data.`,
    operationId: namespaced ? 'SearchNamespacedResources' : 'SearchResources',
    params: Type.Object({ ...(namespaced ? NamespaceParam : {}), resources: Type.String() }),
    querystring: LegacyQuery,
    response: { 200: LegacyResult, ...errors(400, 404, 503) },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${base}/:resources`,
    schema: searchSchema(false),
    handler: async (request, reply) => {
      const body = await legacySearch(
        svc,
        params(request).resources ?? '',
        undefined,
        parseLegacyQuery(searchOf(request)),
      );
      reply.type('application/json; charset=utf-8');
      return body;
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${base}/namespaces/:namespace/:resources`,
    schema: searchSchema(true),
    handler: async (request, reply) => {
      const { namespace = '', resources = '' } = params(request);
      const body = await legacySearch(svc, resources, namespace, parseLegacyQuery(searchOf(request)));
      reply.type('application/json; charset=utf-8');
      return body;
    },
  });
}
