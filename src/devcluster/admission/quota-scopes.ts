// Which objects a scoped ResourceQuota tracks, as kube's pod evaluator decides it: `spec.scopes` (each an Exists
// requirement) and `spec.scopeSelector.matchExpressions`, all of which a pod must match. Terminating and
// NotTerminating (spec.activeDeadlineSeconds), BestEffort and NotBestEffort (no container requests or limits
// anything), PriorityClass (spec.priorityClassName, matched as the label `PriorityClass=<name>`: In, NotIn, Exists,
// DoesNotExist) and CrossNamespacePodAffinity (an affinity or anti-affinity term naming namespaces or a namespace
// selector). Scoped quotas never track objects other than pods.
import { quantitiesOf } from '../../k8s/quantity.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';

export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values: string[];
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** kube's getScopeSelectorsFromQuota: the scopes as Exists requirements, then the selector's expressions. */
export function scopeRequirements(spec: Obj): ScopeRequirement[] {
  const scopes = Array.isArray(spec.scopes) ? spec.scopes : [];
  const selector = isObj(spec.scopeSelector) ? spec.scopeSelector : {};
  return [
    ...scopes.map((s) => ({ scopeName: String(s), operator: 'Exists', values: [] })),
    ...list(selector.matchExpressions).map((e) => ({
      scopeName: String(e.scopeName ?? ''),
      operator: String(e.operator ?? ''),
      values: Array.isArray(e.values) ? e.values.map(String) : [],
    })),
  ];
}

/** Stored quotas are replaced, never changed, on write: their requirements are read once. */
const requirementsCache = new WeakMap<Obj, ScopeRequirement[]>();

function requirementsOf(quota: Obj): ScopeRequirement[] {
  let r = requirementsCache.get(quota);
  if (!r) {
    r = scopeRequirements(isObj(quota.spec) ? quota.spec : {});
    requirementsCache.set(quota, r);
  }
  return r;
}

/** Whether `o` (stored under `res`) falls under every scope of the quota. */
export function inScope(quota: Obj, res: string, o: Obj): boolean {
  const requirements = requirementsOf(quota);
  if (requirements.length === 0) return true;
  if (res !== '/pods') return false;
  const spec = isObj(o.spec) ? o.spec : {};
  return requirements.every((r) => podMatches(r, spec));
}

function podMatches(r: ScopeRequirement, spec: Obj): boolean {
  switch (r.scopeName) {
    case 'Terminating':
      return terminating(spec);
    case 'NotTerminating':
      return !terminating(spec);
    case 'BestEffort':
      return bestEffort(spec);
    case 'NotBestEffort':
      return !bestEffort(spec);
    case 'PriorityClass':
      return priorityClassMatches(
        r,
        typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '',
      );
    case 'CrossNamespacePodAffinity':
      return crossNamespaceAffinity(spec);
    default:
      return false;
  }
}

const terminating = (spec: Obj) =>
  typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;

/** kube's QoS BestEffort: no container asks for or limits any resource. */
function bestEffort(spec: Obj): boolean {
  return [...list(spec.containers), ...list(spec.initContainers)].every((c) => {
    const r = isObj(c.resources) ? c.resources : {};
    return quantitiesOf(r.requests).size === 0 && quantitiesOf(r.limits).size === 0;
  });
}

/** The requirement as a label selector over `{PriorityClass: <name>}` (no label when the pod names none). */
function priorityClassMatches(r: ScopeRequirement, name: string): boolean {
  switch (r.operator) {
    case 'Exists':
      return name !== '';
    case 'DoesNotExist':
      return name === '';
    case 'In':
      return name !== '' && r.values.includes(name);
    case 'NotIn':
      return name === '' || !r.values.includes(name);
    default:
      return false;
  }
}

/** kube's usesCrossNamespacePodAffinity: a pod (anti-)affinity term with namespaces or a namespaceSelector. */
function crossNamespaceAffinity(spec: Obj): boolean {
  const affinity = isObj(spec.affinity) ? spec.affinity : {};
  return ['podAffinity', 'podAntiAffinity'].some((kind) => {
    const a = isObj(affinity[kind]) ? affinity[kind] : {};
    const terms = [
      ...list(a.requiredDuringSchedulingIgnoredDuringExecution),
      ...list(a.preferredDuringSchedulingIgnoredDuringExecution).map((w) =>
        isObj(w.podAffinityTerm) ? w.podAffinityTerm : {},
      ),
    ];
    return terms.some(
      (t) => (Array.isArray(t.namespaces) && t.namespaces.length > 0) || isObj(t.namespaceSelector),
    );
  });
}
