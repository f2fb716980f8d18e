// pods/eviction (what `kubectl drain` posts): a graceful delete that the pod's PodDisruptionBudgets may refuse with
// 429, as kube-apiserver's eviction does. The dev cluster runs no disruption controller, so a budget's allowed
// disruptions are computed here from the pods it selects (ready ones are healthy; the selected pods are the
// expected count); a pod that is not ready may always be evicted.
import { badRequest, StatusError } from '../../k8s/status.ts';
import { isReady, selectorMatches } from '../controllers/pods.ts';
import { isObj } from '../meta.ts';
import type { Rest } from '../rest.ts';
import type { Obj } from '../store.ts';
import { deleteOptions } from './params.ts';

function scaled(v: unknown, expected: number): number | undefined {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(String(v ?? ''));
  return m ? Math.ceil((expected * Number(m[1])) / 100) : undefined;
}

/** The budget that forbids evicting one more healthy pod, with how many it needs and has. */
function blockingBudget(
  rest: Rest,
  ns: string,
  pod: Obj,
): { name: string; needs: number; has: number } | undefined {
  const labels = (pod.metadata as Obj).labels;
  for (const pdb of rest.store.list('policy/poddisruptionbudgets', ns)) {
    const spec = (pdb.obj.spec ?? {}) as Obj;
    if (!selectorMatches(spec.selector, labels)) continue;
    const selected = rest.store
      .list('/pods', ns)
      .map((e) => e.obj)
      .filter(
        (p) =>
          selectorMatches(spec.selector, (p.metadata as Obj).labels) &&
          !(p.metadata as Obj).deletionTimestamp,
      );
    const healthy = selected.filter(isReady).length;
    const expected = selected.length;
    const minAvailable = scaled(spec.minAvailable, expected);
    const maxUnavailable = scaled(spec.maxUnavailable, expected);
    const needs = minAvailable ?? (maxUnavailable === undefined ? expected : expected - maxUnavailable);
    if (healthy - 1 < needs) return { name: pdb.name, needs, has: healthy };
  }
  return undefined;
}

export function evict(rest: Rest, ns: string, name: string, body: unknown): void {
  if (!isObj(body)) throw badRequest('the request body must be an Eviction object');
  const meta = isObj(body.metadata) ? body.metadata : {};
  if (meta.name !== undefined && meta.name !== name)
    throw badRequest(`name in URL does not match name in Eviction object`);
  const pods = rest.registry.anyVersion('', 'pods');
  if (!pods) throw new StatusError(404, 'NotFound', 'pods are not served');
  const pod = rest.get(pods, ns, name).obj;
  const phase = (pod.status as Obj | undefined)?.phase;
  const finished = phase === 'Succeeded' || phase === 'Failed';
  const budget = finished || !isReady(pod) ? undefined : blockingBudget(rest, ns, pod);
  if (budget)
    throw new StatusError(
      429,
      'TooManyRequests',
      "Cannot evict pod as it would violate the pod's disruption budget.",
      {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: `The disruption budget ${budget.name} needs ${budget.needs} healthy pods and has ${budget.has} currently`,
          },
        ],
      },
    );
  rest.delete(pods, ns, name, deleteOptions(body.deleteOptions, new URLSearchParams()));
}
