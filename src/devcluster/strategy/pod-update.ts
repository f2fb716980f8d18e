// What a plain pod update (PUT, PATCH or apply of pods, no subresource) may change, as kube-apiserver v1.33's
// ValidatePodUpdate: container and init container images, activeDeadlineSeconds (set once, then only lowered),
// tolerations (additions, and an existing one's tolerationSeconds), schedulingGates (removals) and a negative
// terminationGracePeriodSeconds set to 1. Any other spec change is refused (422) with kube's message, followed by the
// changed fields (kube prints a Go diff of its internal PodSpec; here the JSON paths and values).
// Not covered: kube's relaxations for pods still gated (nodeSelector additions, node affinity narrowing).
import type { StatusCause } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { changedFields, comparable } from './spec-diff.ts';

/** kube's updatablePodSpecFields, joined as its message joins them. */
const UPDATABLE = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
].join(',');

const MAX_INT32 = 2147483647;

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

const forbidden = (field: string, why: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${why}`,
  field,
});

const invalidValue = (field: string, value: string, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${value}: ${why}`,
  field,
});

/** The refusals of an update from `old` to `spec` (both pod specs, defaults applied), in kube's order. */
export function validatePodUpdate(spec: Obj, old: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of ['containers', 'initContainers']) {
    const now = list(spec[key]);
    if (now.length !== list(old[key]).length) {
      causes.push(forbidden(`spec.${key}`, 'pod updates may not add or remove containers'));
      return causes;
    }
    now.forEach((c, i) => {
      const image = typeof c.image === 'string' ? c.image : '';
      const field = `spec.${key}[${i}].image`;
      if (image === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field });
      else if (image.trim() !== image)
        causes.push(
          invalidValue(field, JSON.stringify(image), 'must not have leading or trailing whitespace'),
        );
    });
  }
  const deadline = checkActiveDeadline(spec.activeDeadlineSeconds, old.activeDeadlineSeconds);
  if (deadline) {
    causes.push(deadline);
    if (typeof spec.activeDeadlineSeconds === 'number') return causes;
  }
  const now = list(spec.tolerations);
  if (list(old.tolerations).some((t) => !now.some((n) => sameExceptSeconds(t, n))))
    causes.push(
      forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'),
    );
  const gates = new Set(list(old.schedulingGates).map((g) => g.name));
  list(spec.schedulingGates).forEach((g, i) => {
    if (!gates.has(g.name))
      causes.push(
        forbidden(
          `spec.schedulingGates[${i}].name`,
          `only deletion is allowed, but found new scheduling gate '${String(g.name)}'`,
        ),
      );
  });
  const changed = changedFields('core.PodSpec', old, withUpdatableFrom(spec, old));
  if (changed)
    causes.push(forbidden('spec', `pod updates may not change fields other than ${UPDATABLE}\n${changed}`));
  return causes;
}

/** kube's two allowed updates of activeDeadlineSeconds: from unset to a value, or to a lower one. */
function checkActiveDeadline(now: unknown, before: unknown): StatusCause | undefined {
  const field = 'spec.activeDeadlineSeconds';
  if (typeof now === 'number') {
    if (now < 0 || now > MAX_INT32)
      return invalidValue(field, String(now), `must be between 0 and ${MAX_INT32}, inclusive`);
    if (typeof before === 'number' && before < now)
      return invalidValue(field, String(now), 'must be less than or equal to previous value');
    return undefined;
  }
  if (typeof before === 'number')
    return invalidValue(field, '"null"', 'must not update from a positive integer to nil value');
  return undefined;
}

function sameExceptSeconds(a: Obj, b: Obj): boolean {
  const { tolerationSeconds: _a, ...ra } = a;
  const { tolerationSeconds: _b, ...rb } = b;
  return JSON.stringify(comparable(ra)) === JSON.stringify(comparable(rb));
}

/** `spec` with the fields an update may change taken from `old`, as kube munges them before comparing. */
function withUpdatableFrom(spec: Obj, old: Obj): Obj {
  const munged: Obj = { ...spec };
  for (const key of ['containers', 'initContainers']) {
    const before = list(old[key]);
    if (Array.isArray(spec[key]))
      munged[key] = list(spec[key]).map((c, i) => ({ ...c, image: before[i]?.image }));
  }
  for (const key of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) munged[key] = old[key];
  const grace = old.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && munged.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = grace;
  return munged;
}
