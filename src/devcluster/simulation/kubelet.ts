// Simulated kubelets, as kwok's pod stages: a pod bound to a node shows ContainerCreating (with a pod IP from the
// node's CIDR), then Running and Ready; containers of run-to-completion pods (restartPolicy Never or OnFailure, as
// Job pods are) terminate after a simulated run time with exit code 0 (or the code the annotation asks); a running
// container whose image an update changed is restarted with it; a pod marked for graceful deletion is stopped and
// removed. Each step records the kubelet's events.
import { createHash, randomBytes } from 'node:crypto';
import { StatusError } from '../../k8s/status.ts';
import { recordEvent } from '../controllers/events.ts';
import {
  type Controller,
  type ControllerContext,
  objectKey,
  splitKey,
  timestamp,
} from '../controllers/framework.ts';
import { isObj } from '../meta.ts';
import type { Entry, Obj, StoreEvent } from '../store.ts';
import { internalIp, KUBELET } from './nodes.ts';

/** Annotations a pod may carry to shape its simulated run (documented in the README's dev cluster section). */
export const RUN_SECONDS_ANNOTATION = 'kapiserver.kubesphere.io/simulated-run-seconds';
export const EXIT_CODE_ANNOTATION = 'kapiserver.kubesphere.io/simulated-exit-code';

export interface KubeletOptions {
  /** How long a pod shows ContainerCreating before it runs (ms). */
  podStartMs: number;
  /** How long a run-to-completion pod's containers run unless the pod's annotation says otherwise (ms). */
  podRunMs: number;
}

const containersOf = (pod: Obj, key: 'containers' | 'initContainers'): Obj[] => {
  const list = (pod.spec as Obj | undefined)?.[key];
  return Array.isArray(list) ? list.filter(isObj) : [];
};

export const runsToCompletion = (pod: Obj): boolean =>
  ['Never', 'OnFailure'].includes(String((pod.spec as Obj | undefined)?.restartPolicy ?? 'Always'));

/** A stable image digest per image name (what a registry would have answered). */
const imageId = (image: string) =>
  `${image.split('@')[0].replace(/:[^/:]+$/, '')}@sha256:${createHash('sha256').update(image).digest('hex')}`;

const containerId = () => `containerd://${randomBytes(32).toString('hex')}`;

function condition(type: string, status: boolean, at: string, reason?: string, message?: string): Obj {
  return {
    type,
    status: status ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: at,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** Keeps lastTransitionTime of conditions whose status did not change. */
function mergeConditions(old: unknown, next: Obj[]): Obj[] {
  const prev = Array.isArray(old) ? old.filter(isObj) : [];
  const kept = prev.filter((c) => !next.some((n) => n.type === c.type));
  return [
    ...kept,
    ...next.map((n) => {
      const p = prev.find((c) => c.type === n.type);
      return p && p.status === n.status ? { ...n, lastTransitionTime: p.lastTransitionTime } : n;
    }),
  ];
}

/** Pod IPs per node: the lowest free host address of the node's /24 pod CIDR. */
class PodIps {
  private readonly byNode = new Map<string, Set<string>>();
  private readonly byPod = new Map<string, { node: string; ip: string }>();

  observe(ev: StoreEvent): void {
    const key = objectKey(ev.ns, ev.name);
    const old = this.byPod.get(key);
    const status = (ev.obj.status ?? {}) as Obj;
    const node = String((ev.obj.spec as Obj | undefined)?.nodeName ?? '');
    const ip = typeof status.podIP === 'string' ? status.podIP : '';
    const holds =
      ev.type !== 'DELETED' && ip !== '' && status.phase !== 'Succeeded' && status.phase !== 'Failed';
    if (old && (!holds || old.ip !== ip)) {
      this.byPod.delete(key);
      this.byNode.get(old.node)?.delete(old.ip);
    }
    if (holds && !this.byPod.has(key)) {
      this.byPod.set(key, { node, ip });
      let used = this.byNode.get(node);
      if (!used) {
        used = new Set();
        this.byNode.set(node, used);
      }
      used.add(ip);
    }
  }

  /** Keys of the pods holding an IP on `node`. */
  podsOn(node: string): string[] {
    return [...this.byPod].filter(([, v]) => v.node === node).map(([k]) => k);
  }

  allocate(node: Obj): string | undefined {
    const cidr = String((node.spec as Obj | undefined)?.podCIDR ?? '');
    const m = /^(\d+\.\d+\.\d+)\.0\/24$/.exec(cidr);
    if (!m) return undefined;
    const used = this.byNode.get(String((node.metadata as Obj).name)) ?? new Set();
    for (let h = 2; h < 255; h++) if (!used.has(`${m[1]}.${h}`)) return `${m[1]}.${h}`;
    return undefined;
  }
}

export function kubeletController(opts: KubeletOptions): Controller {
  const ips = new PodIps();
  /** Pod uid -> when its next step is due (Date.now ms); absent after a restart, when the step is due at once. */
  const due = new Map<string, number>();
  /** Pods whose containers were stopped (a pod held by finalizers is stopped once). */
  const stopped = new Set<string>();

  const waitFor = (uid: string, ms: number): number | undefined => {
    const at = due.get(uid);
    if (at === undefined) {
      due.set(uid, Date.now() + ms);
      return ms;
    }
    return at > Date.now() ? at - Date.now() : undefined;
  };

  return {
    name: 'kubelet',
    watches: [
      {
        res: '/pods',
        keys(ev) {
          ips.observe(ev);
          if (ev.type === 'DELETED') {
            due.delete(String((ev.obj.metadata as Obj).uid));
            stopped.delete(String((ev.obj.metadata as Obj).uid));
          }
          const node = (ev.obj.spec as Obj | undefined)?.nodeName;
          return node && ev.type !== 'DELETED' ? [objectKey(ev.ns, ev.name)] : [];
        },
      },
      // A node that goes away orphans its pods: collected as kube-controller-manager's pod GC does.
      {
        res: '/nodes',
        keys: (ev) => (ev.type === 'DELETED' ? ips.podsOn(ev.name) : []),
      },
    ],
    reconcile(key, ctx) {
      const { ns, name } = splitKey(key);
      const e = ctx.store.get('/pods', ns, name);
      if (!e) return undefined;
      const pod = e.obj;
      const meta = pod.metadata as Obj;
      const uid = String(meta.uid);
      const nodeName = String((pod.spec as Obj | undefined)?.nodeName ?? '');
      const node = ctx.store.get('/nodes', '', nodeName);
      if (meta.deletionTimestamp) {
        if (!stopped.has(uid)) {
          stop(ctx, e, node?.obj);
          stopped.add(uid);
        }
        return undefined;
      }
      if (!node) {
        orphaned(ctx, e);
        return undefined;
      }
      const status = (pod.status ?? {}) as Obj;
      if (status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
      if (!status.podIP && !status.hostIP) {
        const created = writeStatus(ctx, e, creatingStatus(pod, node.obj, ips.allocate(node.obj), ctx.now()));
        for (const c of containersOf(created.obj, 'containers'))
          recordEvent(
            ctx,
            KUBELET,
            created.obj,
            'Normal',
            'Pulled',
            `Container image "${String(c.image)}" already present on machine`,
            {
              fieldPath: `spec.containers{${String(c.name)}}`,
              host: nodeName,
            },
          );
        due.delete(uid);
        return waitFor(uid, opts.podStartMs);
      }
      if (status.phase === 'Pending') {
        const wait = waitFor(uid, opts.podStartMs);
        if (wait !== undefined) return wait;
        due.delete(uid);
        const running = writeStatus(ctx, e, runningStatus(pod, ctx.now()));
        for (const c of containersOf(running.obj, 'containers')) {
          const detail = { fieldPath: `spec.containers{${String(c.name)}}`, host: nodeName };
          recordEvent(
            ctx,
            KUBELET,
            running.obj,
            'Normal',
            'Created',
            `Created container ${String(c.name)}`,
            detail,
          );
          recordEvent(
            ctx,
            KUBELET,
            running.obj,
            'Normal',
            'Started',
            `Started container ${String(c.name)}`,
            detail,
          );
        }
        return runsToCompletion(pod) ? waitFor(uid, runMs(pod, opts)) : undefined;
      }
      if (status.phase === 'Running' && restartChanged(ctx, e, nodeName)) return undefined; // its write comes back
      if (status.phase === 'Running' && runsToCompletion(pod)) {
        const wait = waitFor(uid, runMs(pod, opts));
        if (wait !== undefined) return wait;
        due.delete(uid);
        writeStatus(ctx, e, finishedStatus(pod, exitCode(pod), ctx.now()));
      }
      return undefined;
    },
  };
}

function runMs(pod: Obj, opts: KubeletOptions): number {
  const v = Number(((pod.metadata as Obj).annotations as Obj | undefined)?.[RUN_SECONDS_ANNOTATION]);
  return Number.isFinite(v) && v >= 0 ? Math.min(v, 86_400) * 1000 : opts.podRunMs;
}

function exitCode(pod: Obj): number {
  const v = Number(((pod.metadata as Obj).annotations as Obj | undefined)?.[EXIT_CODE_ANNOTATION] ?? 0);
  return Number.isInteger(v) && v >= 0 && v <= 255 ? v : 1;
}

function writeStatus(ctx: ControllerContext, e: Entry, status: Obj): Entry {
  const meta = { ...(e.obj.metadata as Obj), resourceVersion: String(e.rv) };
  return ctx.rest.update(
    ctx.def('', 'pods'),
    e.ns,
    e.name,
    { ...e.obj, metadata: meta, status },
    { fieldManager: KUBELET },
    'status',
  );
}

function creatingStatus(pod: Obj, node: Obj, ip: string | undefined, nowMs: number): Obj {
  const at = timestamp(nowMs);
  const old = (pod.status ?? {}) as Obj;
  const hostIP = internalIp(node) ?? '';
  const podIP = (pod.spec as Obj).hostNetwork === true ? hostIP : (ip ?? '');
  const names = containersOf(pod, 'containers').map((c) => String(c.name));
  const notReady = `containers with unready status: [${names.join(' ')}]`;
  return {
    ...old,
    phase: 'Pending',
    conditions: mergeConditions(old.conditions, [
      condition('PodReadyToStartContainers', true, at),
      condition('Initialized', true, at),
      condition('Ready', false, at, 'ContainersNotReady', notReady),
      condition('ContainersReady', false, at, 'ContainersNotReady', notReady),
      condition('PodScheduled', true, at),
    ]),
    hostIP,
    hostIPs: hostIP ? [{ ip: hostIP }] : [],
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime: at,
    ...(containersOf(pod, 'initContainers').length
      ? {
          initContainerStatuses: containersOf(pod, 'initContainers').map((c) => ({
            ...containerBase(c),
            ready: true,
            started: false,
            state: {
              terminated: {
                exitCode: 0,
                reason: 'Completed',
                startedAt: at,
                finishedAt: at,
                containerID: containerId(),
              },
            },
          })),
        }
      : {}),
    containerStatuses: containersOf(pod, 'containers').map((c) => ({
      ...containerBase(c),
      imageID: '',
      ready: false,
      started: false,
      state: { waiting: { reason: 'ContainerCreating' } },
    })),
  };
}

const containerBase = (c: Obj) => ({
  name: c.name,
  image: c.image,
  imageID: imageId(String(c.image)),
  restartCount: 0,
  lastState: {},
});

function runningStatus(pod: Obj, nowMs: number): Obj {
  const at = timestamp(nowMs);
  const old = (pod.status ?? {}) as Obj;
  return {
    ...old,
    phase: 'Running',
    conditions: mergeConditions(old.conditions, [
      condition('Ready', true, at),
      condition('ContainersReady', true, at),
    ]),
    containerStatuses: containersOf(pod, 'containers').map((c) => ({
      ...containerBase(c),
      containerID: containerId(),
      ready: true,
      started: true,
      state: { running: { startedAt: at } },
    })),
  };
}

/**
 * Restarts the running containers whose image an update changed, as a kubelet does whatever the restart policy
 * ("definition changed"): the old container terminated, the new one running the new image. Whether it wrote.
 */
function restartChanged(ctx: ControllerContext, e: Entry, nodeName: string): boolean {
  const status = (e.obj.status ?? {}) as Obj;
  const statuses = Array.isArray(status.containerStatuses) ? status.containerStatuses.filter(isObj) : [];
  const specs = new Map(containersOf(e.obj, 'containers').map((c) => [String(c.name), c]));
  const changed = statuses.filter((s) => {
    const spec = specs.get(String(s.name));
    return spec !== undefined && spec.image !== s.image && !!(s.state as Obj | undefined)?.running;
  });
  if (changed.length === 0) return false;
  const at = timestamp(ctx.now());
  const restarted = (s: Obj): Obj => ({
    ...s,
    ...containerBase(specs.get(String(s.name)) as Obj),
    restartCount: Number(s.restartCount ?? 0) + 1,
    lastState: {
      terminated: {
        exitCode: 0,
        reason: 'Completed',
        startedAt: ((s.state as Obj).running as Obj).startedAt ?? at,
        finishedAt: at,
        containerID: s.containerID,
      },
    },
    containerID: containerId(),
    state: { running: { startedAt: at } },
  });
  const written = writeStatus(ctx, e, {
    ...status,
    containerStatuses: statuses.map((s) => (changed.includes(s) ? restarted(s) : s)),
  });
  for (const s of changed) {
    const name = String(s.name);
    const detail = { fieldPath: `spec.containers{${name}}`, host: nodeName };
    const image = String(specs.get(name)?.image);
    recordEvent(
      ctx,
      KUBELET,
      written.obj,
      'Normal',
      'Killing',
      `Container ${name} definition changed, will be restarted`,
      detail,
    );
    recordEvent(
      ctx,
      KUBELET,
      written.obj,
      'Normal',
      'Pulled',
      `Container image "${image}" already present on machine`,
      detail,
    );
    recordEvent(ctx, KUBELET, written.obj, 'Normal', 'Created', `Created container ${name}`, detail);
    recordEvent(ctx, KUBELET, written.obj, 'Normal', 'Started', `Started container ${name}`, detail);
  }
  return true;
}

function finishedStatus(pod: Obj, code: number, nowMs: number): Obj {
  const at = timestamp(nowMs);
  const old = (pod.status ?? {}) as Obj;
  const prev = Array.isArray(old.containerStatuses) ? old.containerStatuses.filter(isObj) : [];
  const succeeded = code === 0;
  const reason = succeeded ? 'PodCompleted' : 'PodFailed';
  return {
    ...old,
    phase: succeeded ? 'Succeeded' : 'Failed',
    conditions: mergeConditions(old.conditions, [
      condition('PodReadyToStartContainers', false, at),
      condition('Ready', false, at, reason),
      condition('ContainersReady', false, at, reason),
    ]),
    containerStatuses: prev.map((s) => ({
      ...s,
      ready: false,
      started: false,
      state: {
        terminated: {
          exitCode: code,
          reason: succeeded ? 'Completed' : 'Error',
          startedAt: ((s.state as Obj | undefined)?.running as Obj | undefined)?.startedAt ?? at,
          finishedAt: at,
          containerID: s.containerID,
        },
      },
    })),
  };
}

/** Removes this pod now (not one recreated under its name meanwhile); gone already is fine. */
function removePod(ctx: ControllerContext, e: Entry): void {
  try {
    ctx.rest.delete(ctx.def('', 'pods'), e.ns, e.name, {
      gracePeriodSeconds: 0,
      preconditions: { uid: String((e.obj.metadata as Obj).uid) },
    });
  } catch (err) {
    if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
  }
}

/** A pod bound to a node that does not exist is deleted (PodGC), unless it is new: its node may be on its way. */
function orphaned(ctx: ControllerContext, e: Entry): void {
  if ((e.obj.status as Obj | undefined)?.hostIP) removePod(ctx, e);
}

/** Graceful deletion: the containers are stopped (Killing events) and the pod removed, as its kubelet does. */
function stop(ctx: ControllerContext, e: Entry, node: Obj | undefined): void {
  const status = (e.obj.status ?? {}) as Obj;
  const host = String((e.obj.spec as Obj | undefined)?.nodeName ?? '');
  if (node && status.phase === 'Running')
    for (const c of containersOf(e.obj, 'containers'))
      recordEvent(ctx, KUBELET, e.obj, 'Normal', 'Killing', `Stopping container ${String(c.name)}`, {
        fieldPath: `spec.containers{${String(c.name)}}`,
        host,
      });
  removePod(ctx, e);
}
