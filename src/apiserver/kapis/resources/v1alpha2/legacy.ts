// resources.kubesphere.io/v1alpha2's legacy search (`GET [namespaces/{ns}/]{resources}`), also v1alpha3's fallback for
// the names it does not know: `conditions=k=v,k~v` (exact and fuzzy), `paging=limit=L,page=P` or `limit`/`page`,
// `start`, `orderBy` (createTime, name), `reverse`; answered `{"items", "total_count"}`. KubeSphere answers an unknown
// resource with a 500 text and an offset past the end with a panic; here they are a 404 Status and an empty page.
import { badRequest, notFoundMessage } from '../../../../k8s/status.ts';
import type { Entry, KubeObject } from '../../../cluster/index.ts';
import { ALIAS_ANNOTATION, def, PROTECTED_ANNOTATIONS, RESOURCE_BY_NAME, type ResourceDef } from '../defs.ts';
import type { ResourceService } from '../service.ts';
import { legacyStatus } from './status.ts';

/** The types the legacy search knows (KubeSphere's list), and which of them exist only cluster-wide. */
const LEGACY_NAMES = [
  'configmaps',
  'cronjobs',
  'daemonsets',
  'deployments',
  'ingresses',
  'jobs',
  'persistentvolumeclaims',
  'secrets',
  'services',
  'statefulsets',
  'pods',
  'roles',
  'horizontalpodautoscalers',
  'nodes',
  'namespaces',
  'clusterroles',
  'storageclasses',
  'workspaces',
  's2ibuilders',
  's2iruns',
  's2ibuildertemplates',
] as const;

/** Legacy types v1alpha3 has no definition of (optional: served only when the cluster has the API). */
const OPTIONAL = { optional: true };
const EXTRA_DEFS: ResourceDef[] = [
  def('horizontalpodautoscalers', 'autoscaling', 'v2', true, {}, OPTIONAL),
  def('s2ibuilders', 'devops.kubesphere.io', 'v1alpha1', true, {}, OPTIONAL),
  def('s2iruns', 'devops.kubesphere.io', 'v1alpha1', true, {}, OPTIONAL),
  def('s2ibuildertemplates', 'devops.kubesphere.io', 'v1alpha1', false, {}, OPTIONAL),
];

const EXTRA_BY_NAME = new Map(EXTRA_DEFS.map((d) => [d.name, d]));
const LEGACY = new Set<string>(LEGACY_NAMES);

/** The legacy definition of a type name, or undefined when the legacy search does not know it. */
export function legacyDefinition(resource: string): ResourceDef | undefined {
  if (!LEGACY.has(resource)) return undefined;
  return RESOURCE_BY_NAME.get(resource) ?? EXTRA_BY_NAME.get(resource);
}

export const LEGACY_RESOURCES: readonly string[] = LEGACY_NAMES;

const DEFAULT_LIMIT = 10;

export interface LegacyQuery {
  match: Map<string, string>;
  fuzzy: Map<string, string>;
  /** undefined: every match. */
  limit: number | undefined;
  offset: number;
  orderBy: 'createTime' | 'name';
  reverse: boolean;
}

function nonNegativeInt(name: string, raw: string, allowMinusOne = false): number {
  if (allowMinusOne && raw === '-1') return -1;
  if (!/^\d{1,9}$/.test(raw))
    throw badRequest(`invalid value for query parameter ${name}: "${raw.slice(0, 64)}"`);
  return Number(raw);
}

/** Parses the legacy query (400 Status for bad conditions, paging or orderBy). */
export function parseLegacyQuery(search: string): LegacyQuery {
  const params = new URLSearchParams(search);
  const q: LegacyQuery = {
    match: new Map(),
    fuzzy: new Map(),
    limit: DEFAULT_LIMIT,
    offset: 0,
    orderBy: 'createTime',
    reverse: true,
  };
  const conditions = params.get('conditions') ?? '';
  for (const item of conditions === '' ? [] : conditions.split(',')) {
    const m = /^([^=~\s]+)([=~])(\S*)$/.exec(item);
    if (!m) throw badRequest(`invalid conditions: "${item.slice(0, 64)}" (expected key=value or key~value)`);
    (m[2] === '=' ? q.match : q.fuzzy).set(m[1], m[3]);
  }
  let limit = DEFAULT_LIMIT;
  let page = 1;
  const paging = params.get('paging');
  if (paging) {
    const m = /^limit=(-?\d+),page=(\d+)$/.exec(paging);
    if (!m) throw badRequest(`invalid paging: "${paging.slice(0, 64)}" (expected limit=L,page=P)`);
    limit = nonNegativeInt('paging', m[1], true);
    page = nonNegativeInt('paging', m[2]);
  } else {
    const l = params.get('limit');
    const p = params.get('page');
    if (l) limit = nonNegativeInt('limit', l, true);
    if (p) page = nonNegativeInt('page', p);
  }
  if (page < 1) throw badRequest('invalid page: pages start at 1');
  q.limit = limit < 0 ? undefined : limit;
  q.offset = limit < 0 ? 0 : (page - 1) * limit;
  const start = params.get('start');
  if (start) q.offset = nonNegativeInt('start', start);
  const orderBy = params.get('orderBy');
  if (orderBy) {
    if (orderBy !== 'createTime' && orderBy !== 'name') {
      throw badRequest(`invalid orderBy: "${orderBy.slice(0, 64)}" (createTime or name)`);
    }
    q.orderBy = orderBy;
    q.reverse = false;
  }
  const reverse = params.get('reverse');
  if (reverse) {
    if (reverse !== 'true' && reverse !== 'false') throw badRequest('invalid reverse: true or false');
    q.reverse = reverse === 'true';
  }
  return q;
}

function annotations(obj: KubeObject, def: ResourceDef): Record<string, string> {
  const all = obj.metadata?.annotations ?? {};
  if (!def.redact) return all;
  // Secrets' last-applied copy holds their values: never something a search may probe.
  return Object.fromEntries(Object.entries(all).filter(([k]) => !PROTECTED_ANNOTATIONS.has(k)));
}

function owners(obj: KubeObject) {
  return obj.metadata?.ownerReferences ?? [];
}

function exact(key: string, value: string, e: Entry, obj: () => KubeObject, def: ResourceDef): boolean {
  switch (key) {
    case 'name':
      return value.split(',').includes(e.name);
    case 'keyword':
      return (
        e.name.includes(value) ||
        Object.values(e.labels ?? {}).some((v) => v.includes(value)) ||
        Object.values(annotations(obj(), def)).some((v) => v.includes(value))
      );
    case 'owner':
      return owners(obj()).some((o) => o.uid === value);
    case 'ownerKind':
      return owners(obj()).some((o) => o.kind === value);
    case 'ownerName':
      return owners(obj()).some((o) => o.name === value);
    case 'status': {
      const status = legacyStatus(def.name, obj());
      if (status !== undefined) return status === value.toLowerCase();
      return e.labels?.status === value;
    }
    default:
      return e.labels?.[key] === value;
  }
}

function fuzzyMatch(map: Readonly<Record<string, string>>, key: string, value: string): boolean {
  const v = map[key];
  return value === '' ? !v : (v ?? '').includes(value);
}

function fuzzy(key: string, value: string, e: Entry, obj: () => KubeObject, def: ResourceDef): boolean {
  const labels = e.labels ?? {};
  switch (key) {
    case 'name':
      return e.name.includes(value) || (annotations(obj(), def)[ALIAS_ANNOTATION] ?? '').includes(value);
    case 'label':
      return Object.entries(labels).some(([k, v]) => `${k}=${v}`.includes(value));
    case 'annotation':
      return Object.entries(annotations(obj(), def)).some(([k, v]) => `${k}=${v}`.includes(value));
    case 'app':
      return (labels.chart ?? '').includes(value) || (labels.release ?? '').includes(value);
    default:
      return fuzzyMatch(labels, key, value);
  }
}

function compare(orderBy: LegacyQuery['orderBy']): (a: Entry, b: Entry) => number {
  const byName = (a: Entry, b: Entry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  if (orderBy === 'name') return byName;
  return (a, b) => a.created - b.created || byName(a, b);
}

/** Searches one type; `namespace` undefined = every namespace. */
export async function legacySearch(
  svc: ResourceService,
  resource: string,
  namespace: string | undefined,
  q: LegacyQuery,
): Promise<string> {
  const def = await servedLegacy(svc, resource, namespace);
  if (namespace !== undefined) await svc.checkNamespace(namespace);
  const inf = await svc.synced(def);
  const conditions = q.match.size + q.fuzzy.size > 0;
  const matched: Entry[] = [];
  const keys = namespace === undefined ? undefined : inf.keysInNamespace(namespace);
  const candidates = keys ? [...keys].map((k) => inf.getByKey(k)) : inf.entries();
  for (const e of candidates) {
    if (!e) continue;
    if (conditions) {
      // Parsed only when a condition needs more than the name and labels.
      let parsed: KubeObject | undefined;
      const obj = () => {
        parsed ??= e.object();
        return parsed;
      };
      let ok = true;
      for (const [k, v] of q.match) if (ok && !exact(k, v, e, obj, def)) ok = false;
      for (const [k, v] of q.fuzzy) if (ok && !fuzzy(k, v, e, obj, def)) ok = false;
      if (!ok) continue;
    }
    matched.push(e);
  }
  const c = compare(q.orderBy);
  matched.sort(q.reverse ? (a, b) => c(b, a) : c);
  const page = matched.slice(q.offset, q.limit === undefined ? undefined : q.offset + q.limit);
  const present = svc.presenter(def);
  const items = page.map((e) => (present ? JSON.stringify(present(e.object())) : e.json));
  return `{"items":[${items.join(',')}],"total_count":${matched.length}}`;
}

/** One object of a legacy type (v1alpha3's fallback for a name it does not know). */
export async function legacyGet(
  svc: ResourceService,
  resource: string,
  namespace: string | undefined,
  name: string,
): Promise<string> {
  const def = await servedLegacy(svc, resource, namespace);
  if (namespace !== undefined) await svc.checkNamespace(namespace);
  const inf = await svc.synced(def);
  const entry = def.namespaced && namespace === undefined ? undefined : inf.get(namespace ?? '', name);
  if (!entry) throw notFoundMessage(`${resource} "${name}" not found`);
  return svc.present(def, entry);
}

async function servedLegacy(svc: ResourceService, resource: string, namespace: string | undefined) {
  const def = legacyDefinition(resource);
  if (!def || !(await svc.served(def))) throw notSupported(resource);
  if (namespace !== undefined && !def.namespaced) {
    throw notFoundMessage(`resource "${resource}" is cluster-scoped: it is not listed in a namespace`);
  }
  return def;
}

export function notSupported(resource: string) {
  return notFoundMessage(`resource "${resource}" is not supported`);
}
