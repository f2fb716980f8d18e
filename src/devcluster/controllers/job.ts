// Job controller: runs up to `parallelism` pods at once until `completions` succeeded (or, without completions, until
// one succeeded and none runs), fails the Job past backoffLimit failed pods or activeDeadlineSeconds, and reports
// active/ready/succeeded/failed, startTime, completionTime and the SuccessCriteriaMet/Complete or
// FailureTarget/Failed conditions, as kube-controller-manager's job controller (NonIndexed completion mode).
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
  ownKey,
  splitKey,
  timestamp,
  writeStatus,
} from './framework.ts';
import { isActive, isReady, podFromTemplate } from './pods.ts';

const JOBS = 'batch/jobs';
const COMPONENT = 'job-controller';
const BATCH = 25;

const phase = (p: Entry) => String((p.obj.status as Obj | undefined)?.phase ?? '');

export function finishedCondition(job: Obj): Obj | undefined {
  const conds = (job.status as Obj | undefined)?.conditions;
  if (!Array.isArray(conds)) return undefined;
  return conds.find(
    (c): c is Obj => isObj(c) && (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
}

export const jobController: Controller = {
  name: 'job',
  watches: [
    { res: JOBS, keys: ownKey },
    { res: '/pods', keys: controllerKey('Job') },
  ],
  reconcile(key, ctx) {
    const { ns, name } = splitKey(key);
    const e = ctx.store.get(JOBS, ns, name);
    if (!e || finishedCondition(e.obj)) return undefined;
    return syncJob(ctx, e);
  },
};

function syncJob(ctx: ControllerContext, e: Entry): number | undefined {
  const job = e.obj;
  const spec = job.spec as Obj;
  const old = isObj(job.status) ? job.status : {};
  const now = ctx.now();
  const pods = controlledBy(ctx, job, '/pods');
  const active = pods.filter((p) => isActive(p.obj));
  const succeeded = pods.filter((p) => phase(p) === 'Succeeded').length;
  const failed = pods.filter((p) => phase(p) === 'Failed').length;
  const completions =
    spec.completions === null || spec.completions === undefined ? undefined : Number(spec.completions);
  const parallelism = Number(spec.parallelism ?? 1);
  const suspended = spec.suspend === true;
  const status: Obj = { ...old };
  const conditions = Array.isArray(old.conditions) ? (old.conditions as Obj[]).map((c) => ({ ...c })) : [];
  const at = timestamp(now);
  const addCondition = (type: string, reason: string, message: string) =>
    conditions.push({ type, status: 'True', reason, message, lastProbeTime: at, lastTransitionTime: at });
  if (!suspended && !status.startTime) status.startTime = at;

  const startMs = Date.parse(String(status.startTime ?? '')) || now;
  const deadline =
    spec.activeDeadlineSeconds === undefined ? undefined : Number(spec.activeDeadlineSeconds) * 1000;
  let failure: { reason: string; message: string } | undefined;
  if (failed > Number(spec.backoffLimit ?? 6))
    failure = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  else if (!suspended && deadline !== undefined && now - startMs >= deadline)
    failure = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
  const complete =
    !failure && (completions === undefined ? succeeded > 0 && active.length === 0 : succeeded >= completions);

  let again: number | undefined;
  if (failure || complete || suspended) deletePods(ctx, active);
  else {
    const want =
      completions === undefined
        ? succeeded > 0
          ? 0
          : parallelism
        : Math.min(parallelism, completions - succeeded);
    if (active.length < want) again = createPods(ctx, job, Math.min(want - active.length, BATCH));
    else if (active.length > want) deletePods(ctx, active.slice(want));
    if (deadline !== undefined) again = Math.min(again ?? Number.POSITIVE_INFINITY, startMs + deadline - now);
  }

  if (failure) {
    addCondition('FailureTarget', failure.reason, failure.message);
    addCondition('Failed', failure.reason, failure.message);
    recordEvent(ctx, COMPONENT, job, 'Warning', failure.reason, failure.message);
  } else if (complete) {
    addCondition('SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods');
    addCondition('Complete', 'CompletionsReached', 'Reached expected number of succeeded pods');
    status.completionTime = at;
    recordEvent(ctx, COMPONENT, job, 'Normal', 'Completed', 'Job completed');
  }
  const stillActive =
    failure || complete || suspended ? [] : controlledBy(ctx, job, '/pods').filter((p) => isActive(p.obj));
  status.active = stillActive.length;
  status.ready = stillActive.filter((p) => isReady(p.obj)).length;
  status.succeeded = succeeded;
  status.failed = failed;
  status.terminating = 0;
  status.uncountedTerminatedPods = {};
  for (const f of ['active', 'succeeded', 'failed']) if (status[f] === 0) delete status[f];
  if (conditions.length > 0) status.conditions = conditions;
  writeStatus(ctx, ctx.def('batch', 'jobs'), e, status);
  return again;
}

function createPods(ctx: ControllerContext, job: Obj, n: number): number | undefined {
  const meta = job.metadata as Obj;
  for (let i = 0; i < n; i++) {
    const pod = ctx.rest.create(
      ctx.def('', 'pods'),
      String(meta.namespace),
      podFromTemplate((job.spec as Obj).template as Obj, job, { generateName: `${String(meta.name)}-` }),
      { fieldManager: FIELD_MANAGER },
    );
    recordEvent(ctx, COMPONENT, job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.name}`);
  }
  return n === BATCH ? 0 : undefined;
}

function deletePods(ctx: ControllerContext, pods: Entry[]): void {
  for (const p of pods) {
    try {
      ctx.rest.delete(ctx.def('', 'pods'), p.ns, p.name, {
        preconditions: { uid: String((p.obj.metadata as Obj).uid) },
      });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}
