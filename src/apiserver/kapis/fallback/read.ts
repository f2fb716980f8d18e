// Fallback reads from the informer cache (an informer starts on the first read of a type): a list page with
// KubeSphere's v1beta1 query parameters, answered as a Kubernetes list (`metadata.remainingItemCount`, no
// totalItems), or one object. Users never show credentials here either.
import { parseFieldSelector } from '../../../k8s/selectors.ts';
import { notFound, serviceUnavailable } from '../../../k8s/status.ts';
import type { ClusterCache, Entry, Informer, KubeObject } from '../../cluster/index.ts';
import { parseListQuery } from '../query.ts';
import { def, type ResourceDef, redactUser } from '../resources/defs.ts';
import { listPage, type Pred } from '../resources/list.ts';
import type { Target } from './target.ts';

const SYNC_WAIT_MS = 15_000;

/** The ResourceDef the list engine needs, for a type known only through discovery. */
export function definitionOf(t: Target): ResourceDef {
  const users = t.group === 'iam.kubesphere.io' && t.resource === 'users';
  return def(t.resource, t.group, t.version, t.api.namespaced, {}, users ? { redact: redactUser } : {});
}

export async function syncedInformer(cache: ClusterCache, def: ResourceDef): Promise<Informer> {
  const inf = cache.informer(def.ref);
  if (!(await inf.waitForSync(SYNC_WAIT_MS))) {
    throw serviceUnavailable(`the cache of ${def.name}.${def.ref.group} has not synced yet; retry shortly`);
  }
  return inf;
}

/** The value at a dotted JSON path of the object, as a selector compares it ('' when absent). */
function valueAt(obj: unknown, path: string): string {
  let cur = obj;
  for (const key of path.split('.')) {
    if (!cur || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return '';
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur === null || cur === undefined || typeof cur === 'object' ? '' : String(cur);
}

/** `fieldSelector` over JSON paths of the (presented) object: `a.b=v`, `a.b!=v`. */
function fieldSelectorPred(selector: string, present: (e: Entry) => KubeObject): Pred {
  const reqs = parseFieldSelector(selector);
  return (e) => {
    const obj = present(e);
    return reqs.every((r) => (valueAt(obj, r.field) === r.value) === (r.operator === 'Equals'));
  };
}

function presenter(def: ResourceDef): (e: Entry) => KubeObject {
  return def.redact ? (e) => def.redact!(e.object()) : (e) => e.object();
}

function serialise(def: ResourceDef, e: Entry): string {
  return def.redact ? JSON.stringify(def.redact(e.object())) : e.json;
}

export async function listTarget(cache: ClusterCache, t: Target, search: string): Promise<string> {
  const def = definitionOf(t);
  const params = new URLSearchParams(search);
  const fieldSelector = params.get('fieldSelector');
  params.delete('fieldSelector');
  const q = parseListQuery(params.toString(), def.sortFields);
  const inf = await syncedInformer(cache, def);
  const extra = fieldSelector ? [fieldSelectorPred(fieldSelector, presenter(def))] : [];
  const page = listPage(inf, def, q, t.namespace, extra);
  const offset = q.limit === undefined ? 0 : (q.page - 1) * q.limit;
  const remaining = Math.max(0, page.total - offset - page.entries.length);
  const items = page.entries.map((e) => serialise(def, e));
  // Lists of CRDs served by label are unstructured lists in KubeSphere, with their kind; built-in ones carry none.
  const head =
    t.eligible === 'labelled'
      ? `"apiVersion":"${t.group}/${t.version}","kind":${JSON.stringify(`${t.api.kind}List`)},`
      : '';
  const meta = { resourceVersion: inf.resourceVersion, remainingItemCount: remaining };
  return `{${head}"metadata":${JSON.stringify(meta)},"items":[${items.join(',')}]}`;
}

export async function getTarget(cache: ClusterCache, t: Target, name: string): Promise<string> {
  const def = definitionOf(t);
  const inf = await syncedInformer(cache, def);
  const entry = inf.get(t.namespace ?? '', name);
  if (!entry) throw notFound(t.group, t.resource, name);
  return serialise(def, entry);
}
