// The status words of resources.kubesphere.io/v1alpha2 (its `status` condition and the abnormal-workload counts):
// running, updating, stopped, failed, complete, paused, pending, bound, lost ...
import type { KubeObject } from '../../../cluster/index.ts';
import { daemonSetStatus, nodeStatus } from '../status.ts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' ? (v as Rec) : {});

/** Deployments and StatefulSets: ready replicas against the desired ones (spec.replicas, default 1). */
export function replicatedStatus(obj: KubeObject): string {
  const desired = Number(rec(obj.spec).replicas ?? 1);
  const ready = Number(rec(obj.status).readyReplicas ?? 0);
  if (desired === 0 && ready === 0) return 'stopped';
  return ready === desired ? 'running' : 'updating';
}

/** Jobs: failed or complete by their finished condition, else running. */
export function jobStatus(obj: KubeObject): string {
  const conditions = rec(obj.status).conditions;
  for (const c of Array.isArray(conditions) ? (conditions as Rec[]) : []) {
    if (c.status !== 'True') continue;
    if (c.type === 'Failed') return 'failed';
    if (c.type === 'Complete') return 'complete';
  }
  return 'running';
}

/** The status word of an object of type `resource`, or undefined when that type has none. */
export function legacyStatus(resource: string, obj: KubeObject): string | undefined {
  switch (resource) {
    case 'deployments':
    case 'statefulsets':
      return replicatedStatus(obj);
    case 'daemonsets':
      return daemonSetStatus(obj);
    case 'jobs':
      return jobStatus(obj);
    case 'cronjobs':
      return rec(obj.spec).suspend === true ? 'paused' : 'running';
    case 'persistentvolumeclaims':
    case 'pods':
      return String(rec(obj.status).phase ?? '').toLowerCase();
    case 'nodes':
      return nodeStatus(obj);
    default:
      return undefined;
  }
}
