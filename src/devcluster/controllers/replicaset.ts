// ReplicaSet controller: keeps spec.replicas active pods (generateName `<rs>-`, controlled by the ReplicaSet) and
// reports replicas, fullyLabeledReplicas, readyReplicas and availableReplicas.
import { StatusError } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj } from '../store.ts';
import { recordEvent } from './events.ts';
import {
  type Controller,
  type ControllerContext,
  controlledBy,
  controllerKey,
  FIELD_MANAGER,
  objectKey,
  ownKey,
  splitKey,
  timestamp,
  writeStatus,
} from './framework.ts';
import { adoptOrphans, deletionOrder, isActive, isReady, msUntilAvailable, podFromTemplate } from './pods.ts';
import { quotaLoosened } from './resourcequota.ts';

export const RS = 'apps/replicasets';
const COMPONENT = 'replicaset-controller';
/** Pods created or deleted per reconcile; the rest follow in the next turn, so other work interleaves. */
const BATCH = 25;

export const replicaSetController: Controller = {
  name: 'replicaset',
  watches: [
    { res: RS, keys: ownKey },
    { res: '/pods', keys: controllerKey('ReplicaSet') },
    // A quota that loosens wakes the namespace's ReplicaSets short of their replicas, instead of their back-off.
    { res: '/resourcequotas', keys: (ev, ctx) => (quotaLoosened(ev) ? shortReplicaSets(ctx, ev.ns) : []) },
  ],
  reconcile(key, ctx) {
    const { ns, name } = splitKey(key);
    const e = ctx.store.get(RS, ns, name);
    if (!e) return undefined;
    const rs = e.obj;
    const spec = rs.spec as Obj;
    let again: number | undefined;
    let failure: StatusError | undefined;
    if (!(rs.metadata as Obj).deletionTimestamp) {
      try {
        again = manageReplicas(ctx, rs, Number(spec.replicas ?? 1));
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        failure = err;
        recordEvent(ctx, COMPONENT, rs, 'Warning', 'FailedCreate', `Error creating: ${err.message}`);
      }
    }
    const { status, availableIn } = replicaSetStatus(ctx, e, failure);
    writeStatus(ctx, ctx.def('apps', 'replicasets'), e, status);
    if (failure) throw failure;
    return minDefined(again, availableIn);
  },
};

/** Keys of the namespace's ReplicaSets with fewer replicas than they want. */
function shortReplicaSets(ctx: ControllerContext, ns: string): string[] {
  return ctx.store
    .list(RS, ns)
    .filter(
      (e) =>
        Number((e.obj.status as Obj | undefined)?.replicas ?? 0) < Number((e.obj.spec as Obj).replicas ?? 1),
    )
    .map((e) => objectKey(e.ns, e.name));
}

/** Creates or deletes up to BATCH pods; returns 0 when more remain to do. */
function manageReplicas(ctx: ControllerContext, rs: Obj, want: number): number | undefined {
  const meta = rs.metadata as Obj;
  let active = controlledBy(ctx, rs, '/pods').filter((p) => isActive(p.obj));
  if (active.length < want && adoptOrphans(ctx, rs, '/pods', want - active.length) > 0)
    active = controlledBy(ctx, rs, '/pods').filter((p) => isActive(p.obj));
  const diff = active.length - want;
  const podDef = ctx.def('', 'pods');
  if (diff < 0) {
    const template = (rs.spec as Obj).template as Obj;
    for (let i = 0; i < Math.min(-diff, BATCH); i++) {
      const pod = ctx.rest.create(
        podDef,
        String(meta.namespace),
        podFromTemplate(template, rs, { generateName: `${String(meta.name)}-` }),
        { fieldManager: FIELD_MANAGER },
      );
      recordEvent(ctx, COMPONENT, rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.name}`);
    }
    return -diff > BATCH ? 0 : undefined;
  }
  if (diff > 0) {
    const doomed = active.sort((a, b) => deletionOrder(a.obj, b.obj)).slice(0, Math.min(diff, BATCH));
    for (const p of doomed) {
      try {
        ctx.rest.delete(podDef, p.ns, p.name, {
          preconditions: { uid: String((p.obj.metadata as Obj).uid) },
        });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
      recordEvent(ctx, COMPONENT, rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.name}`);
    }
    return diff > BATCH ? 0 : undefined;
  }
  return undefined;
}

function replicaSetStatus(
  ctx: ControllerContext,
  e: Entry,
  failure: StatusError | undefined,
): { status: Obj; availableIn?: number } {
  const rs = e.obj;
  const spec = rs.spec as Obj;
  const minReady = Number(spec.minReadySeconds ?? 0);
  const templateLabels = ((spec.template as Obj | undefined)?.metadata as Obj | undefined)?.labels;
  const active = controlledBy(ctx, rs, '/pods').filter((p) => isActive(p.obj));
  let available = 0;
  let availableIn: number | undefined;
  const now = ctx.now();
  for (const p of active) {
    const ms = msUntilAvailable(p.obj, minReady, now);
    if (ms === 0) available++;
    else if (ms !== undefined) availableIn = minDefined(availableIn, ms);
  }
  const old = isObj(rs.status) ? rs.status : {};
  const status: Obj = {
    replicas: active.length,
    fullyLabeledReplicas: active.filter((p) => labelsInclude((p.obj.metadata as Obj).labels, templateLabels))
      .length,
    readyReplicas: active.filter((p) => isReady(p.obj)).length,
    availableReplicas: available,
    observedGeneration: (rs.metadata as Obj).generation,
  };
  const oldConditions = Array.isArray(old.conditions) ? (old.conditions as Obj[]) : [];
  // As kube: a standing ReplicaFailure is kept as first written (its message names a generated pod, so rewriting
  // it on every failed retry would change the status, wake this controller and loop).
  const standing = failure ? oldConditions.find((c) => c.type === 'ReplicaFailure') : undefined;
  const conditions = oldConditions.filter((c) => c.type !== 'ReplicaFailure' || c === standing);
  if (failure && !standing)
    conditions.push({
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: failure.message,
      lastTransitionTime: timestamp(now),
    });
  if (conditions.length > 0) status.conditions = conditions;
  return { status, availableIn };
}

function labelsInclude(labels: unknown, want: unknown): boolean {
  const l = isObj(labels) ? labels : {};
  return Object.entries(isObj(want) ? want : {}).every(([k, v]) => l[k] === v);
}

export function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
