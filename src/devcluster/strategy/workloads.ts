// Workload kinds: Deployments, ReplicaSets, StatefulSets, DaemonSets (selector and template checks), Jobs, CronJobs.
import type { StatusCause } from '../../k8s/status.ts';
import { parseSchedule } from '../cron-schedule.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { defaultPodSpec, defaultTemplate, validatePodSpec } from './pod-spec.ts';
import { objAt, type ResourceStrategy, strategy } from './strategy.ts';

function labelsMatch(selector: unknown, labels: unknown): boolean {
  if (!isObj(selector)) return false;
  const ml = isObj(selector.matchLabels) ? selector.matchLabels : {};
  const l = isObj(labels) ? labels : {};
  return Object.entries(ml).every(([k, v]) => l[k] === v);
}

/** Selector, template and replicas of the replicated workloads. */
function validateReplicated(o: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = isObj(o.spec) ? o.spec : {};
  const tpl = isObj(spec.template) ? spec.template : {};
  if (!isObj(spec.selector)) {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  } else if (!labelsMatch(spec.selector, (tpl.metadata as Obj | undefined)?.labels)) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: map[string]string(nil): `selector` does not match template `labels`',
      field: 'spec.template.metadata.labels',
    });
  }
  validatePodSpec(tpl.spec, 'spec.template.spec', causes);
  if (
    isObj(o.spec) &&
    o.spec.replicas !== undefined &&
    (!Number.isInteger(o.spec.replicas) || (o.spec.replicas as number) < 0)
  )
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: must be greater than or equal to 0',
      field: 'spec.replicas',
    });
  return causes;
}

/** A replicated workload: `defaults` applied to its spec, then its template defaulted and its status reset. */
function replicated(defaults: (spec: Obj) => void, initialStatus: () => Obj): ResourceStrategy {
  return strategy({
    prepareForCreate(o) {
      const spec = objAt(o, 'spec');
      defaults(spec);
      defaultTemplate(spec);
      o.status = initialStatus();
    },
    validate: validateReplicated,
  });
}

export const deploymentStrategy = replicated(
  (spec) => {
    spec.replicas ??= 1;
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
  },
  () => ({}),
);

export const replicaSetStrategy = replicated(
  (spec) => {
    spec.replicas ??= 1;
  },
  () => ({ replicas: 0 }),
);

export const statefulSetStrategy = replicated(
  (spec) => {
    spec.replicas ??= 1;
    spec.podManagementPolicy ??= 'OrderedReady';
    spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
    spec.revisionHistoryLimit ??= 10;
  },
  () => ({ replicas: 0 }),
);

export const daemonSetStrategy = replicated(
  (spec) => {
    spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
    spec.revisionHistoryLimit ??= 10;
  },
  () => ({ currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 }),
);

/** A Job's generated selector: its pods carry its uid and name, as kube-apiserver labels them. */
function selectJobPods(job: Obj, spec: Obj, template: Obj): void {
  const meta = job.metadata as Obj;
  const tmeta = objAt(template, 'metadata');
  tmeta.labels = {
    'batch.kubernetes.io/controller-uid': meta.uid,
    'batch.kubernetes.io/job-name': meta.name,
    'controller-uid': meta.uid,
    'job-name': meta.name,
    ...(isObj(tmeta.labels) ? tmeta.labels : {}),
  };
  spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': meta.uid } };
}

export const jobStrategy = strategy({
  prepareForCreate(o) {
    const spec = objAt(o, 'spec');
    spec.parallelism ??= 1;
    spec.completions ??= 1;
    spec.backoffLimit ??= 6;
    spec.completionMode ??= 'NonIndexed';
    spec.suspend ??= false;
    const template = objAt(spec, 'template');
    if (spec.manualSelector !== true) selectJobPods(o, spec, template);
    const tspec = objAt(template, 'spec');
    tspec.restartPolicy ??= 'Never';
    defaultPodSpec(tspec);
    o.status = {};
  },
  validate(o) {
    const causes: StatusCause[] = [];
    const template = isObj(o.spec) && isObj(o.spec.template) ? o.spec.template.spec : undefined;
    validatePodSpec(template, 'spec.template.spec', causes);
    return causes;
  },
});

export const cronJobStrategy = strategy({
  prepareForCreate(o) {
    const spec = objAt(o, 'spec');
    spec.concurrencyPolicy ??= 'Allow';
    spec.suspend ??= false;
    spec.successfulJobsHistoryLimit ??= 3;
    spec.failedJobsHistoryLimit ??= 1;
    const jspec = objAt(objAt(spec, 'jobTemplate'), 'spec');
    const tspec = objAt(objAt(jspec, 'template'), 'spec');
    tspec.restartPolicy ??= 'OnFailure';
    defaultPodSpec(tspec);
    o.status = {};
  },
  validate(o) {
    const spec = isObj(o.spec) ? o.spec : {};
    if (typeof spec.schedule !== 'string' || spec.schedule.trim() === '')
      return [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.schedule' }];
    const timeZone = typeof spec.timeZone === 'string' ? spec.timeZone : undefined;
    try {
      parseSchedule(spec.schedule, timeZone);
    } catch (err) {
      const zone = (err as Error).message.startsWith('unknown time zone');
      return [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${zone ? timeZone : spec.schedule}": ${(err as Error).message}`,
          field: zone ? 'spec.timeZone' : 'spec.schedule',
        },
      ];
    }
    return [];
  },
});
