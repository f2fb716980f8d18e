// The PromQL of one metric for one request: the catalog's template with the scope's label matchers in place of `$1`
// and `$2`, as KubeSphere builds them (promql.go's make*MetricExpr). Every value from the request goes in as a PromQL
// string literal with its quotes and backslashes escaped, so no input can close the literal and add matchers or
// operators; names taken from the path are matched exactly (regex metacharacters escaped) where the matcher is a regex.

/** Which objects a request is about; `filter` is the `resources_filter` regex ('.*' when absent). */
export type Scope =
  | { family: 'cluster' | 'etcd' | 'apiserver' | 'scheduler' }
  | { family: 'node'; node?: string; filter: string }
  | { family: 'workspace'; workspace?: string; filter: string }
  | { family: 'namespace'; workspace?: string; namespace?: string; filter: string }
  | { family: 'workload'; namespace: string; kind?: WorkloadKind; filter: string }
  | {
      family: 'pod';
      namespace?: string;
      node?: string;
      pod?: string;
      owner?: { kind: WorkloadKind; name: string };
      /** namespaced_resources_filter: pods named with their namespace (the answer keeps only these pairs). */
      pods?: { namespace: string; pod: string }[];
      filter: string;
    }
  | { family: 'container'; namespace: string; pod: string; container?: string; filter: string }
  | { family: 'pvc'; namespace?: string; pvc?: string; storageClass?: string; filter: string };

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';

/** A PromQL double-quoted string holding `value` verbatim. */
export function quote(value: string): string {
  return `"${value
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')}"`;
}

/** `value` as a regex that matches exactly that text. */
export function literalRegex(value: string): string {
  return value.replace(/[\\^$.*+?()[\]{}|]/g, (c) => `\\${c}`);
}

const eq = (label: string, value: string) => `${label}=${quote(value)}`;
const re = (label: string, regex: string) => `${label}=~${quote(regex)}`;

/** The PromQL of `metric` (a catalog `template`) over `scope`. */
export function expressionOf(metric: string, template: string, scope: Scope): string {
  // Cluster and component templates have no placeholders; etcd's `"$1"` is label_replace's own reference.
  if (!('filter' in scope)) return template;
  const [first, second] = matchersOf(metric, scope);
  // One pass, so a `$2` inside a filled-in value is never expanded again.
  return template.replace(/\$([12])/g, (_, n: string) => (n === '1' ? first : second));
}

function matchersOf(metric: string, scope: Extract<Scope, { filter: string }>): [string, string] {
  switch (scope.family) {
    case 'node':
      return [scope.node ? eq('node', scope.node) : re('node', scope.filter), ''];
    case 'workspace':
      return [
        scope.workspace
          ? eq('workspace', scope.workspace)
          : `${re('workspace', scope.filter)}, workspace!=""`,
        '',
      ];
    case 'namespace':
      if (scope.workspace)
        return [`${eq('workspace', scope.workspace)}, ${re('namespace', scope.filter)}`, ''];
      return [scope.namespace ? eq('namespace', scope.namespace) : re('namespace', scope.filter), ''];
    case 'workload':
      return workloadMatchers(metric, scope);
    case 'pod':
      return podMatchers(scope);
    case 'container':
      return [
        [
          eq('pod', scope.pod),
          eq('namespace', scope.namespace),
          scope.container ? eq('container', scope.container) : re('container', scope.filter),
        ].join(', '),
        '',
      ];
    case 'pvc':
      return [pvcMatchers(scope), ''];
  }
}

/** A namespace's claims (one by name, else the filter), or a storage class's (KubeSphere's makePVCMetricExpr). */
function pvcMatchers(scope: Extract<Scope, { family: 'pvc' }>): string {
  const claim = scope.pvc
    ? eq('persistentvolumeclaim', scope.pvc)
    : re('persistentvolumeclaim', scope.filter);
  if (scope.namespace) return `${eq('namespace', scope.namespace)}, ${claim}`;
  return `${eq('storageclass', scope.storageClass ?? '')}, ${claim}`;
}

function workloadMatchers(metric: string, scope: Extract<Scope, { family: 'workload' }>): [string, string] {
  const ns = eq('namespace', scope.namespace);
  // The recording rules label a workload `Kind:name`.
  const workload = `${ns}, ${re('workload', `${scope.kind ?? '.*'}:(${scope.filter})`)}`;
  const kind = ['deployment', 'statefulset', 'daemonset'].find((k) => metric.includes(k));
  const byKind = kind ? `${ns}, ${kind}!="", ${re(kind, scope.filter)}` : '';
  return [workload, byKind];
}

function podMatchers(scope: Extract<Scope, { family: 'pod' }>): [string, string] {
  const owner = scope.owner ? ownerMatchers(scope.owner) : '';
  const parts: string[] = [];
  if (scope.namespace) {
    parts.push(scope.pod ? eq('pod', scope.pod) : re('pod', scope.filter), eq('namespace', scope.namespace));
  } else {
    if (scope.node) parts.push(eq('node', scope.node));
    if (scope.pod) parts.push(eq('pod', scope.pod));
    else parts.push(re('pod', scope.filter));
    const named = scope.pods ?? [];
    if (named.length > 0) {
      parts.push(re('namespace', named.map((p) => literalRegex(p.namespace)).join('|')));
      parts.push(re('pod', named.map((p) => literalRegex(p.pod)).join('|')));
    }
  }
  return [owner, parts.join(', ')];
}

function ownerMatchers(owner: { kind: WorkloadKind; name: string }): string {
  // A Deployment's pods are owned by its ReplicaSets, `<name>-<pod-template-hash>`.
  if (owner.kind === 'Deployment') {
    return `owner_kind="ReplicaSet", ${re('owner_name', `^${literalRegex(owner.name)}-[^-]{1,10}$`)}`;
  }
  return `${eq('owner_kind', owner.kind)}, ${eq('owner_name', owner.name)}`;
}
