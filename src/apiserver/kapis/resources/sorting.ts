// The per-kind sorts KubeSphere's console asks for besides creation time and name: a workload's or job's last update
// (`updateTime`) and a pod's start (`startTime`). Times are in ms since the epoch; a missing one is the creation time.
import type { KubeObject } from '../../cluster/index.ts';
import type { SortKey } from './defs.ts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' ? (v as Rec) : {});

function ms(v: unknown): number {
  const t = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(t) ? 0 : t;
}

const created = (obj: KubeObject) => ms(obj.metadata?.creationTimestamp);

/** The latest of the creation time and the times named `fields` of the status and its conditions. */
function latest(obj: KubeObject, statusFields: string[], conditionFields: string[]): number {
  const status = rec(obj.status);
  let t = created(obj);
  for (const f of statusFields) t = Math.max(t, ms(status[f]));
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Rec[]) : [];
  for (const c of conditions) for (const f of conditionFields) t = Math.max(t, ms(rec(c)[f]));
  return t;
}

/** Deployments, statefulsets, daemonsets: their conditions' last update (as KubeSphere's lastUpdateTime). */
export const workloadUpdateTime: SortKey = (obj) => latest(obj, [], ['lastUpdateTime', 'lastTransitionTime']);

/** Jobs: started, completed, or a condition changed. */
export const jobUpdateTime: SortKey = (obj) =>
  latest(obj, ['startTime', 'completionTime'], ['lastProbeTime', 'lastTransitionTime']);

/** Pods: when the kubelet started them (not yet started: their creation). */
export const podStartTime: SortKey = (obj) => ms(rec(obj.status).startTime) || created(obj);
