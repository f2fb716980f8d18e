// Per-kind status words used by KubeSphere's `status` filters (pkg/models/resources/v1alpha3/*).
import type { KubeObject } from '../../cluster/index.ts';

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
  return v && typeof v === 'object' ? (v as Rec) : {};
}

function arr(v: unknown): Rec[] {
  return Array.isArray(v) ? (v as Rec[]) : [];
}

/** Conditions and the status each must have for a healthy node. */
const EXPECTED_NODE_CONDITIONS: Record<string, string> = {
  MemoryPressure: 'False',
  DiskPressure: 'False',
  PIDPressure: 'False',
  NetworkUnavailable: 'False',
  Ready: 'True',
};

/** running | warning (some condition unhealthy) | unschedulable (spec.unschedulable). */
export function nodeStatus(node: KubeObject): string {
  if (rec(node.spec).unschedulable === true) return 'unschedulable';
  for (const c of arr(rec(node.status).conditions)) {
    const expected = EXPECTED_NODE_CONDITIONS[String(c.type)];
    if (expected && c.status !== expected) return 'warning';
  }
  return 'running';
}

/** stopped | running | updating, from ready vs desired replicas (deployments, statefulsets). */
export function workloadStatus(obj: KubeObject): string {
  const s = rec(obj.status);
  const ready = Number(s.readyReplicas ?? 0);
  const replicas = Number(s.replicas ?? 0);
  if (ready === 0 && replicas === 0) return 'stopped';
  return ready === replicas ? 'running' : 'updating';
}

export function daemonSetStatus(obj: KubeObject): string {
  const s = rec(obj.status);
  const desired = Number(s.desiredNumberScheduled ?? 0);
  const ready = Number(s.numberReady ?? 0);
  if (desired === 0 && ready === 0) return 'stopped';
  return desired === ready ? 'running' : 'updating';
}

/** Waiting | Running | Error | Completed: `kubectl get pods` STATUS folded into KubeSphere's four words. */
export function podStatus(pod: KubeObject): string {
  const status = rec(pod.status);
  let reason = String(status.reason || status.phase || '');
  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  const initCount = arr(rec(pod.spec).initContainers).length;
  for (let i = 0; i < initStatuses.length; i++) {
    const state = rec(initStatuses[i].state);
    const terminated = state.terminated ? rec(state.terminated) : undefined;
    const waiting = state.waiting ? rec(state.waiting) : undefined;
    if (terminated && Number(terminated.exitCode ?? 0) === 0) continue;
    if (terminated) {
      reason = terminated.reason
        ? `Init:${terminated.reason}`
        : terminated.signal
          ? `Init:Signal:${terminated.signal}`
          : `Init:ExitCode:${terminated.exitCode}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initCount}`;
    }
    initializing = true;
    break;
  }
  if (!initializing) {
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      const state = rec(c.state);
      const waiting = state.waiting ? rec(state.waiting) : undefined;
      const terminated = state.terminated ? rec(state.terminated) : undefined;
      if (waiting?.reason) reason = String(waiting.reason);
      else if (terminated?.reason) reason = String(terminated.reason);
      else if (terminated) {
        reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
      } else if (c.ready === true && state.running) hasRunning = true;
    }
    if (reason === 'Completed' && hasRunning) {
      const ready = arr(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True');
      reason = ready ? 'Running' : 'NotReady';
    }
  }
  const meta = pod.metadata ?? {};
  if (meta.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (meta.deletionTimestamp) reason = 'Terminating';
  switch (reason) {
    case 'Running':
      return 'Running';
    case 'Failed':
    case 'Error':
      return 'Error';
    case 'Completed':
      return 'Completed';
    case 'Succeeded': {
      const notCompleted = arr(status.conditions).some(
        (c) => c.type === 'Ready' && c.reason !== 'PodCompleted',
      );
      return notCompleted ? 'Waiting' : 'Completed';
    }
    default:
      return reason.startsWith('OutOf') ? 'Error' : 'Waiting';
  }
}
