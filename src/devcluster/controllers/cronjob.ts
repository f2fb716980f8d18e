// CronJob controller: at each scheduled time (the dev cluster's clock, spec.timeZone) creates the Job
// `<cronjob>-<minutes since epoch>` from jobTemplate unless suspended, too late for startingDeadlineSeconds, or
// refused by concurrencyPolicy (Forbid skips while a Job runs, Replace deletes it first); keeps status.active,
// lastScheduleTime and lastSuccessfulTime, and prunes finished Jobs to the history limits.
import { StatusError } from '../../k8s/status.ts';
import { parseSchedule } from '../cron-schedule.ts';
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
import { finishedCondition } from './job.ts';
import { controllerRef } from './pods.ts';

const CRONJOBS = 'batch/cronjobs';
const COMPONENT = 'cronjob-controller';
/** Missed schedules are looked for this far back at most (a long-stopped dev cluster starts only the latest). */
const LOOKBACK_MS = 7 * 86_400_000;

export const cronJobController: Controller = {
  name: 'cronjob',
  watches: [
    { res: CRONJOBS, keys: ownKey },
    { res: 'batch/jobs', keys: controllerKey('CronJob') },
  ],
  reconcile(key, ctx) {
    const { ns, name } = splitKey(key);
    const e = ctx.store.get(CRONJOBS, ns, name);
    if (!e || (e.obj.metadata as Obj).deletionTimestamp) return undefined;
    return syncCronJob(ctx, e);
  },
};

const finishedType = (job: Obj) => finishedCondition(job)?.type as string | undefined;
const jobRef = (j: Entry): Obj => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  name: j.name,
  namespace: j.ns,
  uid: (j.obj.metadata as Obj).uid,
  resourceVersion: String(j.rv),
});

function syncCronJob(ctx: ControllerContext, e: Entry): number | undefined {
  const cj = e.obj;
  const spec = cj.spec as Obj;
  const meta = cj.metadata as Obj;
  const old = isObj(cj.status) ? cj.status : {};
  const now = ctx.now();
  const jobDef = ctx.def('batch', 'jobs');
  let jobs = controlledBy(ctx, cj, 'batch/jobs');
  let schedule: ReturnType<typeof parseSchedule>;
  try {
    schedule = parseSchedule(
      String(spec.schedule),
      typeof spec.timeZone === 'string' ? spec.timeZone : undefined,
    );
  } catch (err) {
    // Stored before validation existed: report it, never retry in a loop.
    recordEvent(
      ctx,
      COMPONENT,
      cj,
      'Warning',
      'UnparseableSchedule',
      `unparseable schedule: ${(err as Error).message}`,
    );
    return undefined;
  }
  const status: Obj = { ...old };
  const last = Date.parse(String(old.lastScheduleTime ?? meta.creationTimestamp ?? '')) || now;
  let due: number | undefined;
  for (
    let t = schedule.next(Math.max(last, now - LOOKBACK_MS));
    t !== undefined && t <= now;
    t = schedule.next(t)
  )
    due = t;
  const next = schedule.next(now);

  if (due !== undefined && spec.suspend !== true) {
    const deadline = spec.startingDeadlineSeconds;
    const name = `${String(meta.name)}-${Math.floor(due / 60_000)}`;
    const active = jobs.filter((j) => !finishedType(j.obj));
    if (typeof deadline === 'number' && now - due > deadline * 1000)
      recordEvent(
        ctx,
        COMPONENT,
        cj,
        'Warning',
        'MissSchedule',
        `Missed scheduled time to start a job: ${timestamp(due)}`,
      );
    else if (jobs.some((j) => j.name === name)) {
      // Already started for this time.
    } else if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
      recordEvent(
        ctx,
        COMPONENT,
        cj,
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
      );
      return 1000;
    } else {
      if (spec.concurrencyPolicy === 'Replace')
        for (const j of active) {
          removeJob(ctx, j);
          recordEvent(ctx, COMPONENT, cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.name}`);
        }
      const created = ctx.rest.create(jobDef, e.ns, jobFrom(cj, name, due), { fieldManager: FIELD_MANAGER });
      recordEvent(ctx, COMPONENT, cj, 'Normal', 'SuccessfulCreate', `Created job ${created.name}`);
      status.lastScheduleTime = timestamp(due);
      jobs = controlledBy(ctx, cj, 'batch/jobs');
    }
  }

  jobs = pruneHistory(ctx, cj, jobs);
  const active = jobs.filter((j) => !finishedType(j.obj));
  if (active.length > 0) status.active = active.map(jobRef);
  else delete status.active;
  const succeeded = jobs
    .filter((j) => finishedType(j.obj) === 'Complete')
    .map((j) => String((j.obj.status as Obj).completionTime ?? ''))
    .sort();
  if (succeeded.length > 0) status.lastSuccessfulTime = succeeded[succeeded.length - 1];
  writeStatus(ctx, ctx.def('batch', 'cronjobs'), e, status);
  return next === undefined ? undefined : next - now;
}

function jobFrom(cj: Obj, name: string, scheduled: number): Obj {
  const template = isObj((cj.spec as Obj).jobTemplate) ? ((cj.spec as Obj).jobTemplate as Obj) : {};
  const tmeta = isObj(template.metadata) ? template.metadata : {};
  return {
    metadata: {
      name,
      labels: { ...((tmeta.labels as Obj | undefined) ?? {}) },
      annotations: {
        ...((tmeta.annotations as Obj | undefined) ?? {}),
        'batch.kubernetes.io/cronjob-scheduled-timestamp': timestamp(scheduled),
      },
      ownerReferences: [controllerRef(cj)],
    },
    spec: structuredClone(template.spec ?? {}),
  };
}

/** Deletes the oldest finished Jobs beyond successful/failedJobsHistoryLimit; returns the Jobs left. */
function pruneHistory(ctx: ControllerContext, cj: Obj, jobs: Entry[]): Entry[] {
  const spec = cj.spec as Obj;
  const byAge = (a: Entry, b: Entry) =>
    String((a.obj.metadata as Obj).creationTimestamp).localeCompare(
      String((b.obj.metadata as Obj).creationTimestamp),
    ) || a.name.localeCompare(b.name);
  const doomed: Entry[] = [];
  for (const [type, limit] of [
    ['Complete', Number(spec.successfulJobsHistoryLimit ?? 3)],
    ['Failed', Number(spec.failedJobsHistoryLimit ?? 1)],
  ] as const) {
    const done = jobs.filter((j) => finishedType(j.obj) === type).sort(byAge);
    doomed.push(...done.slice(0, Math.max(0, done.length - limit)));
  }
  for (const j of doomed) removeJob(ctx, j);
  return jobs.filter((j) => !doomed.includes(j));
}

function removeJob(ctx: ControllerContext, j: Entry): void {
  try {
    ctx.rest.delete(ctx.def('batch', 'jobs'), j.ns, j.name, {
      propagationPolicy: 'Background',
      preconditions: { uid: String((j.obj.metadata as Obj).uid) },
    });
  } catch (err) {
    if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
  }
}
