// What the workload controllers share about pods: building one from a template under a controlling owner, and
// reading its state (active, ready, available after minReadySeconds) as kube-controller-manager's podutil does.
import { type LabelSelectorObject, labelSelectorFromObject } from '../../k8s/selectors.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { type ControllerContext, controllerOf, writeObject } from './framework.ts';

/** A controller ownerReference to `owner` (blockOwnerDeletion, as the built-in controllers set it). */
export function controllerRef(owner: Obj): Obj {
  const meta = owner.metadata as Obj;
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: meta.name,
    uid: meta.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A new pod body from a pod template, controlled by `owner`. */
export function podFromTemplate(
  template: Obj,
  owner: Obj,
  name: { generateName?: string; name?: string },
): Obj {
  const tmeta = isObj(template.metadata) ? template.metadata : {};
  const meta: Obj = { ...name, ownerReferences: [controllerRef(owner)] };
  if (isObj(tmeta.labels)) meta.labels = { ...tmeta.labels };
  if (isObj(tmeta.annotations)) meta.annotations = { ...tmeta.annotations };
  if (Array.isArray(tmeta.finalizers)) meta.finalizers = [...tmeta.finalizers];
  return { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: structuredClone(template.spec ?? {}) };
}

const phaseOf = (pod: Obj) => String((pod.status as Obj | undefined)?.phase ?? '');

/** Not finished and not being deleted: counts toward a controller's replicas. */
export function isActive(pod: Obj): boolean {
  const p = phaseOf(pod);
  return p !== 'Succeeded' && p !== 'Failed' && !(pod.metadata as Obj).deletionTimestamp;
}

export const isTerminal = (pod: Obj): boolean => ['Succeeded', 'Failed'].includes(phaseOf(pod));

function readyCondition(pod: Obj): Obj | undefined {
  const conds = (pod.status as Obj | undefined)?.conditions;
  if (!Array.isArray(conds)) return undefined;
  return conds.find((c): c is Obj => isObj(c) && c.type === 'Ready');
}

export function isReady(pod: Obj): boolean {
  return readyCondition(pod)?.status === 'True';
}

/**
 * Ms until a ready pod counts as available (ready for minReadySeconds): 0 when available now, undefined when
 * not ready.
 */
export function msUntilAvailable(pod: Obj, minReadySeconds: number, now: number): number | undefined {
  const c = readyCondition(pod);
  if (c?.status !== 'True') return undefined;
  if (minReadySeconds <= 0) return 0;
  const since = Date.parse(String(c.lastTransitionTime ?? ''));
  if (Number.isNaN(since)) return 0;
  return Math.max(0, since + minReadySeconds * 1000 - now);
}

/** Whether `labels` match a metav1.LabelSelector; an invalid selector matches nothing. */
export function selectorMatches(selector: unknown, labels: unknown): boolean {
  if (!isObj(selector)) return false;
  try {
    const sel = labelSelectorFromObject(selector as LabelSelectorObject);
    return !sel.empty && sel.matches(isObj(labels) ? (labels as Record<string, string>) : {});
  } catch {
    return false;
  }
}

/**
 * Pods in the order a scale-down deletes them (kube-controller-manager's ActivePods ranking): unscheduled before
 * scheduled, pending before running, not ready before ready, then the newest first.
 */
export function deletionOrder(a: Obj, b: Obj): number {
  const scheduled = (p: Obj) => (isObj(p.spec) && p.spec.nodeName ? 1 : 0);
  const phaseRank = (p: Obj) => ({ Pending: 0, Unknown: 1, Running: 2 })[phaseOf(p)] ?? 0;
  const created = (p: Obj) => Date.parse(String((p.metadata as Obj).creationTimestamp ?? '')) || 0;
  return (
    scheduled(a) - scheduled(b) ||
    phaseRank(a) - phaseRank(b) ||
    Number(isReady(a)) - Number(isReady(b)) ||
    created(b) - created(a)
  );
}

/**
 * Gives `owner` the controller reference of up to `limit` objects of `res` in its namespace that have no controller,
 * are not being deleted and match its selector (as kube-controller-manager's ControllerRefManager adopts orphans,
 * e.g. ReplicaSets left by `kubectl delete deployment --cascade=orphan`). Returns how many it adopted.
 */
export function adoptOrphans(
  ctx: ControllerContext,
  owner: Obj,
  res: string,
  limit = Number.POSITIVE_INFINITY,
): number {
  const meta = owner.metadata as Obj;
  const selector = (owner.spec as Obj).selector;
  const [group, resource] = res.split('/');
  let adopted = 0;
  const candidates = ctx
    .orphans(res, String(meta.namespace))
    .map((r) => ctx.store.get(r.res, r.ns, r.name))
    .filter((e) => e !== undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of candidates) {
    if (adopted >= limit) break;
    const m = e.obj.metadata as Obj;
    if (controllerOf(e.obj) || m.deletionTimestamp || !selectorMatches(selector, m.labels)) continue;
    if (res === '/pods' && !isActive(e.obj)) continue;
    const next = structuredClone(e.obj);
    const refs = Array.isArray(m.ownerReferences) ? (m.ownerReferences as Obj[]) : [];
    (next.metadata as Obj).ownerReferences = [...refs, controllerRef(owner)];
    writeObject(ctx, ctx.def(group, resource), e, next);
    adopted++;
  }
  return adopted;
}
