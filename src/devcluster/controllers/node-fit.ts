// Whether a pod may run on a node by its labels and taints: nodeSelector, required node affinity (matchExpressions
// on labels, matchFields on metadata.name) and taints against tolerations, as kube-scheduler's predicates read them.
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';

function requirementMet(req: Obj, value: string | undefined): boolean {
  const values = Array.isArray(req.values) ? req.values.map(String) : [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt':
      return value !== undefined && Number(value) < Number(values[0]);
    default:
      return false;
  }
}

/** nodeSelector and requiredDuringSchedulingIgnoredDuringExecution node affinity. */
export function nodeSelected(podSpec: Obj, node: Obj): boolean {
  const labels = ((node.metadata as Obj).labels as Record<string, string> | undefined) ?? {};
  const selector = isObj(podSpec.nodeSelector) ? podSpec.nodeSelector : {};
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const required = ((podSpec.affinity as Obj | undefined)?.nodeAffinity as Obj | undefined)
    ?.requiredDuringSchedulingIgnoredDuringExecution as Obj | undefined;
  const terms = Array.isArray(required?.nodeSelectorTerms)
    ? required.nodeSelectorTerms.filter(isObj)
    : undefined;
  if (!terms) return true;
  const name = String((node.metadata as Obj).name);
  return terms.some((t) => {
    const exprs = Array.isArray(t.matchExpressions) ? t.matchExpressions.filter(isObj) : [];
    const fields = Array.isArray(t.matchFields) ? t.matchFields.filter(isObj) : [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((r) => requirementMet(r, labels[String(r.key)])) &&
      fields.every((r) => r.key === 'metadata.name' && requirementMet(r, name))
    );
  });
}

function tolerates(t: Obj, taint: Obj): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.operator === 'Exists') return !t.key || t.key === taint.key;
  return t.key === taint.key && String(t.value ?? '') === String(taint.value ?? '');
}

/** The node's first NoSchedule/NoExecute taint the tolerations do not tolerate, if any. */
export function untoleratedTaint(tolerations: unknown, node: Obj): Obj | undefined {
  const taints = Array.isArray((node.spec as Obj | undefined)?.taints)
    ? ((node.spec as Obj).taints as Obj[])
    : [];
  const ts = Array.isArray(tolerations) ? tolerations.filter(isObj) : [];
  return taints
    .filter((taint) => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute')
    .find((taint) => !ts.some((t) => tolerates(t, taint)));
}

/** Whether every NoSchedule/NoExecute taint of the node is tolerated. */
export function taintsTolerated(tolerations: unknown, node: Obj): boolean {
  return untoleratedTaint(tolerations, node) === undefined;
}
