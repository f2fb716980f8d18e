// Route schemas of monitoring.kubesphere.io/v1alpha3: path parameters (validated: Kubernetes names only), the query
// parameters (documented; ./params.ts parses them) and the answer's shape (documented).
import Type, { type TSchema } from 'typebox';

/** Kubernetes names (RFC 1123): a subdomain (nodes, pods, workloads) and a label (namespaces, containers). */
export const SUBDOMAIN = {
  maxLength: 253,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
};
export const LABEL = { maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' };

/** True when `name` is a Kubernetes name of that form. */
export const isName = (form: typeof LABEL, name: string) =>
  name.length <= form.maxLength && new RegExp(form.pattern).test(name);

const subdomain = (description: string) => Type.String({ ...SUBDOMAIN, description });
const label = (description: string) => Type.String({ ...LABEL, description });

export const PATH_PARAMETERS: Record<string, TSchema> = {
  node: subdomain('Node name'),
  workspace: label('Workspace name'),
  namespace: label('Namespace name'),
  kind: Type.String({ description: 'Workload kind: deployment, statefulset or daemonset (or the plural)' }),
  workload: subdomain('Workload name'),
  pod: subdomain('Pod name'),
  container: label('Container name'),
  pvc: subdomain('PersistentVolumeClaim name'),
  storageclass: subdomain('StorageClass name'),
  component: Type.String({ description: 'etcd, apiserver or scheduler' }),
};

const TIME = {
  time: Type.Optional(
    Type.String({
      description: 'Unix time (seconds) of an instant query; default now. Ignored with start and end',
    }),
  ),
  start: Type.Optional(Type.String({ description: 'Unix time (seconds): start of a range query, with end' })),
  end: Type.Optional(
    Type.String({ description: 'Unix time (seconds): end of a range query, not before start' }),
  ),
  step: Type.Optional(
    Type.String({
      description:
        'Resolution of a range query, a duration such as 60s or 10m (default 10m); at most 11,000 points',
    }),
  ),
  metrics_filter: Type.Optional(
    Type.String({
      description: 'Regex (RE2) selecting metric names, e.g. `cluster_cpu_usage|cluster_memory_total$`',
    }),
  ),
};

const RANKING = {
  resources_filter: Type.Optional(Type.String({ description: 'Regex (RE2) over the resource names' })),
  sort_metric: Type.Optional(Type.String({ description: 'Rank resources by this metric (instant queries)' })),
  sort_type: Type.Optional(Type.String({ description: 'asc or desc (default)' })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page of ranked resources (default 1)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Resources per page (default 5)' })),
};

export const QUERY = {
  plain: Type.Object(TIME),
  ranked: Type.Object({ ...TIME, ...RANKING }),
  workspace: Type.Object({
    ...TIME,
    type: Type.Optional(
      Type.String({ description: 'statistics: the counts of projects, members and roles' }),
    ),
  }),
  nodes: Type.Object({
    ...TIME,
    ...RANKING,
    type: Type.Optional(Type.String({ description: "rank: KubeSphere's node ranking query (same answer)" })),
  }),
  pods: Type.Object({
    ...TIME,
    ...RANKING,
    namespaced_resources_filter: Type.Optional(
      Type.String({ description: 'Pods as `<namespace>/<pod>|<namespace>/<pod>`' }),
    ),
  }),
};

const Point = Type.Array(Type.Union([Type.Number(), Type.String()]), {
  description: '[Unix time in seconds, value as a string]',
});

export const MetricsAnswer = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        metric_name: Type.String(),
        data: Type.Object({
          resultType: Type.Optional(Type.String({ description: 'vector (instant) or matrix (range)' })),
          result: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  metric: Type.Optional(Type.Object({}, { additionalProperties: Type.String() })),
                  value: Type.Optional(Point),
                  values: Type.Optional(Type.Array(Point)),
                },
                { additionalProperties: true },
              ),
            ),
          ),
        }),
        error: Type.Optional(
          Type.String({
            description: 'Why this metric has no data (Prometheus unreachable or not configured)',
          }),
        ),
      }),
    ),
    page: Type.Optional(Type.Integer()),
    total_page: Type.Optional(Type.Integer()),
    total_item: Type.Optional(Type.Integer()),
  },
  { description: 'One result per requested metric, in KubeSphere’s shape' },
);
