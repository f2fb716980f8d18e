// Pods: scheduling defaults, the QoS class and a Pending status on create; containers need a name and an image.
// The node is set once, through pods/binding (which records PodScheduled=True in the same write), never by an
// update; a plain update changes only what kube's ValidatePodUpdate allows (pod-update.ts), after the same defaults
// as a create, and pods/resize only its containers' cpu and memory (pod-resize.ts). A running pod's delete is graceful: it is marked with a deletion time and its kubelet removes it.
import { conflict, invalid, type StatusCause } from '../../k8s/status.ts';
import { requestsFromLimits } from '../admission/index.ts';
import { isObj, metaOf, nowSeconds } from '../meta.ts';
import type { Obj } from '../store.ts';
import { keepResizeOnly, validatePodResize } from './pod-resize.ts';
import { defaultPodSpec, validatePodSpec } from './pod-spec.ts';
import { validatePodUpdate } from './pod-update.ts';
import { objAt, strategy } from './strategy.ts';

const UNTOLERATED_FOR_5_MINUTES = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

/**
 * kube's DefaultTolerationSeconds admission: a pod that does not tolerate the not-ready or unreachable NoExecute
 * taint (a toleration without key or effect tolerates any) gets a 300 s toleration of it.
 */
function defaultTolerations(spec: Obj): void {
  const have = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  const tolerates = (key: string) =>
    have.some((t) => isObj(t) && (!t.key || t.key === key) && (!t.effect || t.effect === 'NoExecute'));
  const added = UNTOLERATED_FOR_5_MINUTES.filter((key) => !tolerates(key)).map((key) => ({
    key,
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds: 300,
  }));
  if (added.length > 0) spec.tolerations = [...have, ...added];
}

/** The deprecated `serviceAccount` mirrors `serviceAccountName`, as kube's conversion writes it. */
function serviceAccountAlias(spec: Obj): void {
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
}

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
    spec.serviceAccountName ||= spec.serviceAccount || 'default';
    serviceAccountAlias(spec);
    defaultTolerations(spec);
    o.status = { phase: 'Pending', qosClass: qosClass(spec) };
  },
  prepareForUpdate(o, old, sub) {
    if (sub === undefined) {
      // What kube's decoding and admission fill in on every write, so a body that leaves them out changes nothing.
      const spec = objAt(o, 'spec');
      defaultPodSpec(spec);
      requestsFromLimits(spec);
      spec.serviceAccountName ||= spec.serviceAccount;
      serviceAccountAlias(spec);
      defaultTolerations(spec);
      return;
    }
    if (sub === 'resize') return keepResizeOnly(o, old);
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
    let causes: StatusCause[];
    if (sub === undefined)
      causes = validatePodUpdate(isObj(o.spec) ? o.spec : {}, isObj(old.spec) ? old.spec : {});
    else if (sub === 'resize') causes = validatePodResize(o, old, qosClass(o.spec as Obj));
    else return; // binding and status write their own part only
    if (causes.length > 0) throw invalid('', 'Pod', String((old.metadata as Obj).name), causes);
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
