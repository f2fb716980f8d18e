// pods/resize, kube-apiserver v1.33's in-place resize of a pod's containers: a write through it keeps the stored pod
// but for its containers' resources and resize policies (kube's dropNonResizeUpdates), and ValidatePodResize allows
// only cpu and memory of containers and sidecars to change, none removed, the QoS class kept and memory limits not
// lowered or added unless the container restarts for them. The simulated nodes always support resizing.
import { parseQuantity } from '../../k8s/quantity.ts';
import type { StatusCause } from '../../k8s/status.ts';
import { requestsFromLimits } from '../admission/index.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { comparable } from './spec-diff.ts';

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const resourcesOf = (c: Obj | undefined): Obj => (isObj(c?.resources) ? c.resources : {});
const same = (a: unknown, b: unknown) => JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));
const isSidecar = (c: Obj) => c.restartPolicy === 'Always';
const quantityBelow = (a: unknown, b: unknown) =>
  (parseQuantity(a)?.nano ?? 0n) < (parseQuantity(b)?.nano ?? 0n);

const forbidden = (field: string, why: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${why}`,
  ...(field ? { field } : {}),
});

/** The stored pod `old` with the resources and resize policies `o` gives its containers, by name, written into `o`. */
export function keepResizeOnly(o: Obj, old: Obj): void {
  const given = isObj(o.spec) ? o.spec : {};
  requestsFromLimits(given);
  const spec = structuredClone(old.spec) as Obj;
  for (const key of ['containers', 'initContainers']) {
    const byName = new Map(list(given[key]).map((c) => [c.name, c]));
    for (const c of list(spec[key])) {
      const g = byName.get(c.name);
      if (!g) continue;
      c.resources = g.resources ?? {};
      if (g.resizePolicy === undefined) delete c.resizePolicy;
      else c.resizePolicy = g.resizePolicy;
    }
  }
  o.metadata = structuredClone(old.metadata);
  o.spec = spec;
}

/** A resource list with cpu and memory as in `old` (none when `old` has no list), as kube's dropCPUMemoryUpdates. */
function withOldCpuMemory(now: unknown, old: unknown): Obj | undefined {
  if (!isObj(old)) return undefined;
  const { cpu: _c, memory: _m, ...rest } = isObj(now) ? now : {};
  return {
    ...rest,
    ...(old.cpu !== undefined ? { cpu: old.cpu } : {}),
    ...(old.memory !== undefined ? { memory: old.memory } : {}),
  };
}

/** Whether `c`, with its cpu and memory taken back from `old`, equals `old`: nothing else was resized. */
function onlyCpuMemoryChanged(c: Obj, old: Obj): boolean {
  const r = resourcesOf(c);
  const before = resourcesOf(old);
  const munged = {
    ...c,
    resources: {
      ...r,
      limits: withOldCpuMemory(r.limits, before.limits),
      requests: withOldCpuMemory(r.requests, before.requests),
    },
  };
  return same(munged, old);
}

/** kube's validateContainerResize: nothing removed; memory limits lowered or added only with RestartContainer. */
function checkContainer(c: Obj, old: Obj, path: string, causes: StatusCause[]): void {
  const r = resourcesOf(c);
  const before = resourcesOf(old);
  for (const key of ['requests', 'limits'])
    if (
      Object.keys(isObj(before[key]) ? before[key] : {}).some((name) => !isObj(r[key]) || !(name in r[key]))
    )
      causes.push(forbidden(`${path}.${key}`, `resource ${key} cannot be removed`));
  const memoryPolicy = list(c.resizePolicy).find((p) => p.resourceName === 'memory')?.restartPolicy;
  if (memoryPolicy !== undefined && memoryPolicy !== '' && memoryPolicy !== 'NotRequired') return;
  const limit = (res: Obj) => (isObj(res.limits) ? res.limits.memory : undefined);
  const now = limit(r);
  const was = limit(before);
  const field = `${path}.limits[memory]`;
  if (now !== undefined && was === undefined)
    causes.push(forbidden(field, 'memory limits cannot be added unless resizePolicy is RestartContainer'));
  else if (now !== undefined && was !== undefined && quantityBelow(now, was))
    causes.push(
      forbidden(field, 'memory limits cannot be decreased unless resizePolicy is RestartContainer'),
    );
}

/** kube's ValidatePodResize, for the pod `o` (after keepResizeOnly) replacing `old`; `qos` is `o`'s QoS class. */
export function validatePodResize(o: Obj, old: Obj, qos: string): StatusCause[] {
  const annotations = (old.metadata as Obj | undefined)?.annotations;
  if (isObj(annotations) && 'kubernetes.io/config.mirror' in annotations)
    return [forbidden('', 'static pods cannot be resized')];
  const spec = o.spec as Obj;
  const before = old.spec as Obj;
  if ((before.os as Obj | undefined)?.name === 'windows')
    return [forbidden('', 'windows pods cannot be resized')];
  const causes: StatusCause[] = [];
  const oldQos = String((old.status as Obj | undefined)?.qosClass ?? '');
  if (qos !== oldQos)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(oldQos)}: Pod QOS Class may not change as a result of resizing`,
      field: 'spec',
    });
  const oldInit = list(before.initContainers);
  const oldContainers = list(before.containers);
  const inits = list(spec.initContainers);
  const containers = list(spec.containers);
  inits.forEach((c, i) => {
    if (isSidecar(oldInit[i] ?? {}))
      checkContainer(c, oldInit[i], `spec.initContainers[${i}].resources`, causes);
  });
  containers.forEach((c, i) => {
    checkContainer(c, oldContainers[i] ?? {}, `spec.containers[${i}].resources`, causes);
  });
  containers.forEach((c, i) => {
    if (!onlyCpuMemoryChanged(c, oldContainers[i] ?? {}))
      causes.push(forbidden('spec', 'only cpu and memory resources are mutable'));
  });
  inits.forEach((c, i) => {
    if (!isSidecar(oldInit[i] ?? {})) {
      if (!same(c, oldInit[i]))
        causes.push(forbidden('spec', 'resources for non-sidecar init containers are immutable'));
    } else if (!onlyCpuMemoryChanged(c, oldInit[i]))
      causes.push(forbidden('spec', 'only cpu and memory resources for sidecar containers are mutable'));
  });
  return causes;
}
