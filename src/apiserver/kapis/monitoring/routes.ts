// monitoring.kubesphere.io/v1alpha3: the metric routes KubeSphere's console calls (pkg/kapis/monitoring/v1alpha3),
// answered from the Prometheus of `monitoring.endpoint` with KubeSphere's PromQL (./catalog.ts), and the platform and
// workspace counts from the informer cache (./stats.ts). Who may ask is decided by the chain like any resource
// request (a namespace member may read only their namespace's metrics). Without an endpoint, or with Prometheus
// down, every requested metric answers its `error`, as ks-apiserver does, so the console's pages still render.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { badRequest, notFound, notFoundMessage, serviceUnavailable } from '../../../k8s/status.ts';
import type { ServerContext } from '../../context.ts';
import { NAMESPACES } from '../../controllers/resources.ts';
import { registerKapisRoute } from '../route.ts';
import { errors } from '../schemas.ts';
import { COMPONENTS, metricsOf } from './catalog.ts';
import { type MetricsQuery, parseMetricsQuery, type TimeWindow } from './params.ts';
import { DEFAULT_PROMETHEUS_OPTIONS, PrometheusClient, type PrometheusOptions } from './prometheus.ts';
import { expressionOf, type Scope, type WorkloadKind } from './promql.ts';
import { failedMetric, type Metric, type Metrics, metricOf, noHit, sortAndPage } from './results.ts';
import { MetricsAnswer, PATH_PARAMETERS, QUERY } from './schemas.ts';
import { platformStats, workspaceStats } from './stats.ts';

const BASE = '/monitoring.kubesphere.io/v1alpha3';
const TAG = 'monitoring.kubesphere.io/v1alpha3';
export const NOT_CONFIGURED = 'monitoring is not configured: monitoring.endpoint names no Prometheus';

type Params = Record<string, string>;

interface MetricRoute {
  path: string;
  summary: string;
  operationId: string;
  query: TSchema;
  /** The label that names a resource, for ranking (sort_metric); none for cluster and component metrics. */
  identifier?: string;
  scope: (p: Params, q: MetricsQuery) => Scope;
}

const WORKLOAD_KINDS: Record<string, WorkloadKind> = {
  deployment: 'Deployment',
  deployments: 'Deployment',
  statefulset: 'StatefulSet',
  statefulsets: 'StatefulSet',
  daemonset: 'DaemonSet',
  daemonsets: 'DaemonSet',
};

function workloadKind(raw: string): WorkloadKind {
  const kind = WORKLOAD_KINDS[raw];
  if (!kind) {
    throw badRequest(
      `invalid path parameter kind: "${raw.slice(0, 64)}" is not deployment, statefulset or daemonset`,
      [
        {
          reason: 'FieldValueNotSupported',
          field: 'kind',
          message: 'one of deployment, statefulset, daemonset',
        },
      ],
    );
  }
  return kind;
}

function component(raw: string): (typeof COMPONENTS)[number] {
  const found = COMPONENTS.find((c) => c === raw);
  if (!found)
    throw notFoundMessage(`component "${raw.slice(0, 64)}" not found (one of: ${COMPONENTS.join(', ')})`);
  return found;
}

const ROUTES: MetricRoute[] = [
  {
    path: '/cluster',
    summary: 'Cluster metrics',
    operationId: 'GetClusterMetrics',
    query: QUERY.plain,
    scope: () => ({ family: 'cluster' }),
  },
  {
    path: '/nodes',
    summary: 'Metrics of the nodes',
    operationId: 'ListNodeMetrics',
    query: QUERY.nodes,
    identifier: 'node',
    scope: (_, q) => ({ family: 'node', filter: q.resourcesFilter }),
  },
  {
    path: '/nodes/:node',
    summary: 'Metrics of one node',
    operationId: 'GetNodeMetrics',
    query: QUERY.plain,
    identifier: 'node',
    scope: (p, q) => ({ family: 'node', node: p.node, filter: q.resourcesFilter }),
  },
  {
    path: '/workspaces',
    summary: 'Metrics of the workspaces',
    operationId: 'ListWorkspaceMetrics',
    query: QUERY.ranked,
    identifier: 'workspace',
    scope: (_, q) => ({ family: 'workspace', filter: q.resourcesFilter }),
  },
  {
    path: '/workspaces/:workspace/namespaces',
    summary: "Metrics of a workspace's namespaces",
    operationId: 'ListWorkspaceNamespaceMetrics',
    query: QUERY.ranked,
    identifier: 'namespace',
    scope: (p, q) => ({ family: 'namespace', workspace: p.workspace, filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces',
    summary: 'Metrics of the namespaces',
    operationId: 'ListNamespaceMetrics',
    query: QUERY.ranked,
    identifier: 'namespace',
    scope: (_, q) => ({ family: 'namespace', filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces/:namespace',
    summary: 'Metrics of one namespace',
    operationId: 'GetNamespaceMetrics',
    query: QUERY.plain,
    identifier: 'namespace',
    scope: (p, q) => ({ family: 'namespace', namespace: p.namespace, filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces/:namespace/workloads',
    summary: "Metrics of a namespace's workloads",
    operationId: 'ListWorkloadMetrics',
    query: QUERY.ranked,
    identifier: 'workload',
    scope: (p, q) => ({ family: 'workload', namespace: p.namespace, filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces/:namespace/workloads/:kind',
    summary: "Metrics of a namespace's workloads of one kind",
    operationId: 'ListWorkloadMetricsOfKind',
    query: QUERY.ranked,
    identifier: 'workload',
    scope: (p, q) => ({
      family: 'workload',
      namespace: p.namespace,
      kind: workloadKind(p.kind),
      filter: q.resourcesFilter,
    }),
  },
  {
    path: '/namespaces/:namespace/workloads/:kind/:workload/pods',
    summary: "Metrics of a workload's pods",
    operationId: 'ListWorkloadPodMetrics',
    query: QUERY.ranked,
    identifier: 'pod',
    scope: (p, q) => ({
      family: 'pod',
      namespace: p.namespace,
      owner: { kind: workloadKind(p.kind), name: p.workload },
      filter: q.resourcesFilter,
    }),
  },
  {
    path: '/pods',
    summary: 'Metrics of pods in every namespace',
    operationId: 'ListAllPodMetrics',
    query: QUERY.pods,
    identifier: 'pod',
    scope: (_, q) => ({ family: 'pod', pods: q.namespacedResources, filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces/:namespace/pods',
    summary: "Metrics of a namespace's pods",
    operationId: 'ListPodMetrics',
    query: QUERY.ranked,
    identifier: 'pod',
    scope: (p, q) => ({ family: 'pod', namespace: p.namespace, filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces/:namespace/pods/:pod',
    summary: 'Metrics of one pod',
    operationId: 'GetPodMetrics',
    query: QUERY.plain,
    identifier: 'pod',
    scope: (p, q) => ({ family: 'pod', namespace: p.namespace, pod: p.pod, filter: q.resourcesFilter }),
  },
  {
    path: '/nodes/:node/pods',
    summary: "Metrics of a node's pods",
    operationId: 'ListNodePodMetrics',
    query: QUERY.pods,
    identifier: 'pod',
    scope: (p, q) => ({
      family: 'pod',
      node: p.node,
      pods: q.namespacedResources,
      filter: q.resourcesFilter,
    }),
  },
  {
    path: '/nodes/:node/pods/:pod',
    summary: 'Metrics of one pod on a node',
    operationId: 'GetNodePodMetrics',
    query: QUERY.plain,
    identifier: 'pod',
    scope: (p, q) => ({ family: 'pod', node: p.node, pod: p.pod, filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces/:namespace/pods/:pod/containers',
    summary: "Metrics of a pod's containers",
    operationId: 'ListContainerMetrics',
    query: QUERY.ranked,
    identifier: 'container',
    scope: (p, q) => ({ family: 'container', namespace: p.namespace, pod: p.pod, filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces/:namespace/pods/:pod/containers/:container',
    summary: 'Metrics of one container',
    operationId: 'GetContainerMetrics',
    query: QUERY.plain,
    identifier: 'container',
    scope: (p, q) => ({
      family: 'container',
      namespace: p.namespace,
      pod: p.pod,
      container: p.container,
      filter: q.resourcesFilter,
    }),
  },
  {
    path: '/namespaces/:namespace/persistentvolumeclaims',
    summary: "Metrics of a namespace's PersistentVolumeClaims",
    operationId: 'ListPVCMetrics',
    query: QUERY.ranked,
    identifier: 'persistentvolumeclaim',
    scope: (p, q) => ({ family: 'pvc', namespace: p.namespace, filter: q.resourcesFilter }),
  },
  {
    path: '/namespaces/:namespace/persistentvolumeclaims/:pvc',
    summary: 'Metrics of one PersistentVolumeClaim',
    operationId: 'GetPVCMetrics',
    query: QUERY.plain,
    identifier: 'persistentvolumeclaim',
    scope: (p, q) => ({ family: 'pvc', namespace: p.namespace, pvc: p.pvc, filter: q.resourcesFilter }),
  },
  {
    path: '/storageclasses/:storageclass/persistentvolumeclaims',
    summary: "Metrics of a StorageClass's PersistentVolumeClaims",
    operationId: 'ListStorageClassPVCMetrics',
    query: QUERY.ranked,
    identifier: 'persistentvolumeclaim',
    scope: (p, q) => ({ family: 'pvc', storageClass: p.storageclass, filter: q.resourcesFilter }),
  },
  {
    path: '/components/:component',
    summary: 'Metrics of a control-plane component (etcd, apiserver, scheduler)',
    operationId: 'GetComponentMetrics',
    query: QUERY.plain,
    scope: (p) => ({ family: component(p.component) }),
  },
];

function paramsSchema(path: string): TSchema | undefined {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  if (names.length === 0) return undefined;
  return Type.Object(Object.fromEntries(names.map((n) => [n, PATH_PARAMETERS[n]])));
}

const searchOf = (request: FastifyRequest) => {
  const at = request.url.indexOf('?');
  return at < 0 ? '' : request.url.slice(at + 1);
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Registers the routes; `prometheus` options are for tests (timeouts, concurrency). */
export function registerMonitoringRoutes(
  app: FastifyInstance,
  ctx: ServerContext,
  prometheus: PrometheusOptions = DEFAULT_PROMETHEUS_OPTIONS,
): void {
  const metrics = new MetricsService(ctx, prometheus);
  const documented = (summary: string, operationId: string, querystring: TSchema, path: string) => {
    const params = paramsSchema(path);
    return {
      tags: [TAG],
      summary,
      operationId,
      querystring,
      ...(params ? { params } : {}),
      response: { 200: MetricsAnswer, ...errors(400, 404, 503) },
    };
  };

  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/kubesphere`,
    schema: documented(
      'Platform counts: clusters, workspaces, users, app templates (from the cache)',
      'GetKubeSphereStats',
      Type.Object({}),
      '',
    ),
    handler: async () => platformStats(ctx.cache, nowSeconds()),
  });

  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/workspaces/:workspace`,
    schema: documented(
      'Metrics of one workspace, or with type=statistics its counts of projects, members and roles',
      'GetWorkspaceMetrics',
      QUERY.workspace,
      '/workspaces/:workspace',
    ),
    handler: async (request) => {
      const { workspace } = request.params as Params;
      const query = parseMetricsQuery(searchOf(request), nowSeconds());
      if (query.type === 'statistics') return workspaceStats(ctx.cache, workspace, nowSeconds());
      return metrics.answer({ family: 'workspace', workspace, filter: query.resourcesFilter }, query);
    },
  });

  for (const route of ROUTES) {
    registerKapisRoute(app, {
      method: 'GET',
      path: `${BASE}${route.path}`,
      schema: documented(route.summary, route.operationId, route.query, route.path),
      handler: async (request) => {
        const params = request.params as Params;
        const query = parseMetricsQuery(searchOf(request), nowSeconds());
        const scope = route.scope(params, query);
        return metrics.answer(scope, query, route.identifier, params.namespace);
      },
    });
  }
}

class MetricsService {
  private client?: { endpoint: string; prometheus: PrometheusClient };

  constructor(
    private readonly ctx: ServerContext,
    private readonly options: PrometheusOptions,
  ) {}

  /** The named metrics of `scope` that `query` selects; `namespace`: the path's, whose lifetime bounds the window. */
  async answer(scope: Scope, query: MetricsQuery, identifier?: string, namespace?: string): Promise<Metrics> {
    const names = [...metricsOf(scope.family).keys()].filter((n) => query.metricsFilter.test(n));
    if (names.length === 0) return { results: [] };
    const window = namespace ? await this.withinLifetime(namespace, query.window) : query.window;
    if (!window) return { results: names.map(noHit) };
    const results = await this.query(names, scope, window);
    if (query.sort && identifier && window.kind === 'instant')
      return sortAndPage({ results }, query.sort, identifier);
    return { results };
  }

  /**
   * The window clipped to the namespace's lifetime, as KubeSphere does (a range starts at the first step after the
   * namespace was created); undefined when it ends before the namespace existed. 404 for a namespace that does not exist.
   */
  private async withinLifetime(namespace: string, window: TimeWindow): Promise<TimeWindow | undefined> {
    const inf = this.ctx.cache.informer(NAMESPACES);
    if (!(await inf.waitForSync(15_000))) {
      throw serviceUnavailable('the cache of namespaces has not synced yet; retry shortly');
    }
    const entry = inf.get('', namespace);
    if (!entry) throw notFound('', 'namespaces', namespace);
    const created = entry.created / 1000;
    if (window.kind === 'instant') return window.time < created ? undefined : window;
    if (window.end < created) return undefined;
    if (window.start >= created) return window;
    const steps = Math.floor((window.end - created) / window.step);
    return { ...window, start: window.end - steps * window.step };
  }

  private async query(names: string[], scope: Scope, window: TimeWindow): Promise<Metric[]> {
    const prometheus = this.prometheus();
    if (!prometheus) return names.map((n) => failedMetric(n, NOT_CONFIGURED));
    const templates = metricsOf(scope.family);
    const pairs =
      scope.family === 'pod' && scope.pods
        ? new Set(scope.pods.map((p) => `${p.namespace}/${p.pod}`))
        : undefined;
    const keep =
      pairs && ((labels: Record<string, string>) => pairs.has(`${labels.namespace}/${labels.pod}`));
    return Promise.all(
      names.map(async (name) => {
        const expr = expressionOf(name, templates.get(name) ?? '', scope);
        try {
          const data =
            window.kind === 'instant'
              ? await prometheus.query(expr, window.time)
              : await prometheus.queryRange(expr, window.start, window.end, window.step);
          return metricOf(name, data, keep);
        } catch (err) {
          return failedMetric(name, (err as Error).message);
        }
      }),
    );
  }

  /** The client of the endpoint in force (the configuration may change at run time); undefined when none is set. */
  private prometheus(): PrometheusClient | undefined {
    const endpoint = this.ctx.config.current().monitoring?.endpoint ?? '';
    if (endpoint === '') return undefined;
    if (this.client?.endpoint !== endpoint) {
      this.client = { endpoint, prometheus: new PrometheusClient(endpoint, this.options) };
    }
    return this.client.prometheus;
  }
}
