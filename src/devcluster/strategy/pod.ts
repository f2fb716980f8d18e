// Pods: scheduling defaults, the QoS class and a Pending status on create; containers need a name and an image.
// The node is set once, through pods/binding (which records PodScheduled=True in the same write), never by an
// update. A running pod's delete is graceful: it is marked with a deletion time and its kubelet removes it.
import { conflict, invalid, type StatusCause } from '../../k8s/status.ts';
import { isObj, metaOf, nowSeconds } from '../meta.ts';
import type { Obj } from '../store.ts';
import { defaultPodSpec, validatePodSpec } from './pod-spec.ts';
import { objAt, strategy } from './strategy.ts';

const UNTOLERATED_FOR_5_MINUTES = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

const containersOf = (spec: Obj): Obj[] => [
  ...(Array.isArray(spec.containers) ? spec.containers.filter(isObj) : []),
  ...(Array.isArray(spec.initContainers) ? spec.initContainers.filter(isObj) : []),
];

/** Kubernetes' QoS class: Guaranteed (limits equal requests for cpu and memory everywhere), BestEffort, Burstable. */
export function qosClass(spec: Obj): string {
  const cs = containersOf(spec);
  const res = (c: Obj, k: string) => ((c.resources as Obj | undefined)?.[k] ?? {}) as Obj;
  const any = cs.some((c) => ['cpu', 'memory'].some((r) => res(c, 'requests')[r] || res(c, 'limits')[r]));
  if (!any) return 'BestEffort';
  const guaranteed = cs.every((c) =>
    ['cpu', 'memory'].every((r) => {
      const limit = res(c, 'limits')[r];
      const request = res(c, 'requests')[r] ?? limit;
      return limit !== undefined && String(request) === String(limit);
    }),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const phaseOf = (o: Obj) => (o.status as Obj | undefined)?.phase;

export const podStrategy = strategy({
  prepareForCreate(o) {
    const spec = objAt(o, 'spec');
    defaultPodSpec(spec);
    spec.serviceAccountName ??= 'default';
    spec.serviceAccount ??= spec.serviceAccountName;
    spec.tolerations ??= UNTOLERATED_FOR_5_MINUTES.map((key) => ({
      key,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 300,
    }));
    o.status = { phase: 'Pending', qosClass: qosClass(spec) };
  },
  prepareForUpdate(o, old, sub) {
    if (sub !== 'binding') return;
    const oldSpec = old.spec as Obj;
    const name = String((old.metadata as Obj).name);
    if ((old.metadata as Obj).deletionTimestamp)
      throw conflict('', 'pods/binding', name, `pod ${name} is being deleted, cannot be assigned to a host`);
    const nodeName = (o.spec as Obj | undefined)?.nodeName;
    o.metadata = structuredClone(old.metadata);
    o.spec = { ...structuredClone(oldSpec), nodeName };
    const status = objAt(o, 'status');
    const conds = Array.isArray(status.conditions) ? status.conditions.filter(isObj) : [];
    status.conditions = [
      ...conds.filter((c) => c.type !== 'PodScheduled'),
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowSeconds() },
    ];
  },
  finishUpdate(o, old, sub) {
    if (sub === 'binding' || sub === 'status') return;
    const before = (old.spec as Obj | undefined)?.nodeName;
    const after = (o.spec as Obj | undefined)?.nodeName;
    if ((before ?? '') !== (after ?? ''))
      throw invalid('', 'Pod', String((old.metadata as Obj).name), [
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: pod updates may not change spec.nodeName (bind the pod through pods/binding)',
          field: 'spec.nodeName',
        },
      ]);
  },
  validate(o) {
    const causes: StatusCause[] = [];
    validatePodSpec(o.spec, 'spec', causes);
    return causes;
  },
  delete(e, ctx, opts) {
    const spec = isObj(e.obj.spec) ? e.obj.spec : {};
    const grace = opts.gracePeriodSeconds ?? Number(spec.terminationGracePeriodSeconds ?? 30);
    const nodeName = typeof spec.nodeName === 'string' ? spec.nodeName : '';
    const gcPolicy = opts.propagationPolicy === 'Foreground' || opts.propagationPolicy === 'Orphan';
    // Nothing runs the pod (unscheduled, finished, or its node is gone), or it is forced: the generic delete.
    if (grace <= 0 || gcPolicy || !nodeName || !ctx.store.get('/nodes', '', nodeName)) return undefined;
    if (phaseOf(e.obj) === 'Succeeded' || phaseOf(e.obj) === 'Failed') return undefined;
    if ((e.obj.metadata as Obj).deletionTimestamp) return e;
    const o = structuredClone(e.obj);
    const meta = metaOf(o);
    meta.deletionTimestamp = new Date(Date.now() + grace * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    meta.deletionGracePeriodSeconds = grace;
    return ctx.store.put('/pods', e.ns, e.name, o);
  },
});
