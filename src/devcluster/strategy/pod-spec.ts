// Pod templates, shared by pods and the workload kinds: the API server's defaults and the validation clients trip over.
import type { StatusCause } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { objAt } from './strategy.ts';

export function defaultPodSpec(spec: Obj): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  spec.enableServiceLinks ??= true;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  spec.priority ??= 0;
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObj(c)) continue;
      c.terminationMessagePath ??= '/dev/termination-log';
      c.terminationMessagePolicy ??= 'File';
      const img = String(c.image ?? '');
      const tag = /:([^/:@]+)$/.exec(img)?.[1];
      c.imagePullPolicy ??= !img.includes('@') && (!tag || tag === 'latest') ? 'Always' : 'IfNotPresent';
      c.resources ??= {};
      if (Array.isArray(c.ports)) for (const p of c.ports) if (isObj(p)) p.protocol ??= 'TCP';
    }
  }
}

export function validatePodSpec(spec: unknown, path: string, causes: StatusCause[]): void {
  if (!isObj(spec)) {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: path });
    return;
  }
  const cs = spec.containers;
  if (!Array.isArray(cs) || cs.length === 0) {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${path}.containers` });
    return;
  }
  cs.forEach((c, i) => {
    if (!isObj(c) || typeof c.name !== 'string' || c.name === '')
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${path}.containers[${i}].name`,
      });
    if (!isObj(c) || typeof c.image !== 'string' || c.image === '')
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${path}.containers[${i}].image`,
      });
  });
}

/** Defaults `spec.template` (metadata and pod spec) of a workload. */
export function defaultTemplate(spec: Obj): void {
  const tpl = objAt(spec, 'template');
  objAt(tpl, 'metadata');
  defaultPodSpec(objAt(tpl, 'spec'));
}
