// The dev cluster's kube-scheduler: binds each pending pod of the default scheduler to a Ready, schedulable node
// that fits (its filters in kube-scheduler's order: unschedulable, taints, node affinity/selector, resources, then
// the pod's claims and volumes as VolumeBinding checks them, volume-binding.ts), preferring the least allocated node
// among the first feasible ones it finds (kube-scheduler's adaptive share of a large cluster's nodes, each search
// going on where the last one stopped). A pod that fits nowhere stays Pending with PodScheduled=False/Unschedulable
// and a FailedScheduling event worded as kube-scheduler words it; it is tried again when a node changes, a bound pod
// goes away, or a claim it mounts or a volume changes. A pod with claims waiting for their first consumer is bound
// once the chosen node's volumes are bound to them. Requests per node are kept incrementally from pod events, as
// the scheduler's cache is.
import { type PodUsage, podUsage } from '../../k8s/pod-resources.ts';
import { bytes, cpuMillis } from '../../k8s/quantity.ts';
import { conflict, StatusError } from '../../k8s/status.ts';
import { recordEvent } from '../controllers/events.ts';
import {
  type Controller,
  type ControllerContext,
  controllerOf,
  objectKey,
  splitKey,
  timestamp,
} from '../controllers/framework.ts';
import { nodeSelected, untoleratedTaint } from '../controllers/node-fit.ts';
import { isTerminal } from '../controllers/pods.ts';
import { claimNamesOf } from '../controllers/storage-protection.ts';
import { isObj } from '../meta.ts';
import type { Rest, WriteOptions } from '../rest.ts';
import type { Entry, Obj, StoreEvent } from '../store.ts';
import { assumeVolumes, type PodVolumes, podVolumes, volumeMisfit } from './volume-binding.ts';

export const SCHEDULER = 'default-scheduler';

/** kube-scheduler's defaults for containers without requests, used only to score (not to filter). */
const SCORE_DEFAULT_CPU = 100;
const SCORE_DEFAULT_MEM = 200 * 2 ** 20;

/**
 * pods/binding: sets the pod's node once (409 when it already has one, as kube-apiserver's binding does). The pod
 * strategy records PodScheduled=True in the same write.
 */
export function bindPod(rest: Rest, ns: string, name: string, nodeName: string, opts: WriteOptions): Entry {
  const d = rest.registry.anyVersion('', 'pods');
  if (!d) throw new StatusError(404, 'NotFound', 'pods are not served');
  const e = rest.get(d, ns, name);
  const spec = isObj(e.obj.spec) ? e.obj.spec : {};
  if (spec.nodeName)
    throw conflict(
      '',
      'pods/binding',
      name,
      `pod ${name} is already assigned to node "${String(spec.nodeName)}"`,
    );
  const meta = { ...(e.obj.metadata as Obj), resourceVersion: String(e.rv) };
  return rest.update(d, ns, name, { ...e.obj, metadata: meta, spec: { ...spec, nodeName } }, opts, 'binding');
}

interface Bound {
  node: string;
  usage: PodUsage;
  /** The controlling owner's uid ('' for none), to spread an owner's replicas over nodes. */
  owner: string;
}

interface NodeLoad {
  cpu: number;
  mem: number;
  pods: number;
  /** With kube-scheduler's non-zero defaults, for scoring. */
  scoreCpu: number;
  scoreMem: number;
  /** Pods per controlling owner uid. */
  owners: Map<string, number>;
}

const emptyLoad = (): NodeLoad => ({ cpu: 0, mem: 0, pods: 0, scoreCpu: 0, scoreMem: 0, owners: new Map() });
/** The load of a node no pod is bound to (read only). */
const NO_LOAD = emptyLoad();

const ownerUid = (pod: Obj): string => String(controllerOf(pod)?.uid ?? '');

function wantsScheduling(pod: Obj): boolean {
  const spec = isObj(pod.spec) ? pod.spec : {};
  return (
    !spec.nodeName &&
    (spec.schedulerName ?? SCHEDULER) === SCHEDULER &&
    !(pod.metadata as Obj).deletionTimestamp &&
    !isTerminal(pod)
  );
}

function scoreUsage(pod: Obj): { cpu: number; mem: number } {
  const containers = Array.isArray((pod.spec as Obj | undefined)?.containers)
    ? ((pod.spec as Obj).containers as Obj[])
    : [];
  let cpu = 0;
  let mem = 0;
  for (const c of containers) {
    const req = ((c.resources as Obj | undefined)?.requests ?? {}) as Obj;
    cpu += req.cpu === undefined ? SCORE_DEFAULT_CPU : cpuMillis(req.cpu);
    mem += req.memory === undefined ? SCORE_DEFAULT_MEM : bytes(req.memory);
  }
  return { cpu, mem };
}

function nodeReady(node: Obj): boolean {
  const conds = (node.status as Obj | undefined)?.conditions;
  return Array.isArray(conds) && conds.some((c) => isObj(c) && c.type === 'Ready' && c.status === 'True');
}

/** What the filters read of a node, once per version of its object (the scheduler tries hundreds per pod). */
interface NodeFacts {
  unschedulable: boolean;
  ready: boolean;
  /** Whether it has NoSchedule/NoExecute taints (untainted nodes need no toleration check). */
  tainted: boolean;
  /** Allocatable resources. */
  cpu: number;
  mem: number;
  pods: number;
}

const factsCache = new WeakMap<Obj, NodeFacts>();
function factsOf(node: Obj): NodeFacts {
  let f = factsCache.get(node);
  if (!f) {
    const spec = isObj(node.spec) ? node.spec : {};
    const alloc = ((node.status as Obj | undefined)?.allocatable ?? {}) as Obj;
    f = {
      unschedulable: spec.unschedulable === true,
      ready: nodeReady(node),
      tainted:
        Array.isArray(spec.taints) &&
        spec.taints.some((t) => isObj(t) && (t.effect === 'NoSchedule' || t.effect === 'NoExecute')),
      cpu: cpuMillis(alloc.cpu),
      mem: bytes(alloc.memory),
      pods: Number(alloc.pods ?? 110),
    };
    factsCache.set(node, f);
  }
  return f;
}

/** Whether the pod restricts its nodes by nodeSelector or node affinity (else every node is selected). */
function selectsNodes(spec: Obj): boolean {
  return (
    (isObj(spec.nodeSelector) && Object.keys(spec.nodeSelector).length > 0) ||
    isObj((spec.affinity as Obj | undefined)?.nodeAffinity)
  );
}

/** The reasons a node does not fit the pod (kube-scheduler's filter messages, in its order), empty when it fits. */
function misfits(
  ctx: ControllerContext,
  pod: Obj,
  usage: PodUsage,
  selective: boolean,
  vols: PodVolumes | undefined,
  node: Obj,
  load: NodeLoad,
): string[] {
  const spec = pod.spec as Obj;
  const f = factsOf(node);
  if (f.unschedulable) return ['node(s) were unschedulable'];
  if (!f.ready) return ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }'];
  const taint = f.tainted ? untoleratedTaint(spec.tolerations, node) : undefined;
  if (taint) return [`node(s) had untolerated taint {${String(taint.key)}: ${String(taint.value ?? '')}}`];
  if (selective && !nodeSelected(spec, node)) return ["node(s) didn't match Pod's node affinity/selector"];
  const out: string[] = [];
  if (load.pods + 1 > f.pods) out.push('Too many pods');
  if (usage.cpuReq > 0 && load.cpu + usage.cpuReq > f.cpu) out.push('Insufficient cpu');
  if (usage.memReq > 0 && load.mem + usage.memReq > f.mem) out.push('Insufficient memory');
  const volume = out.length === 0 && vols ? volumeMisfit(ctx, vols, node) : undefined;
  return volume ? [volume] : out;
}

const RESOURCE_REASONS = new Set(['Too many pods', 'Insufficient cpu', 'Insufficient memory']);

/** "0/3 nodes are available: ..." with kube-scheduler's sorted reason histogram and its preemption summary. */
export function unschedulableMessage(total: number, perNode: string[][]): string {
  if (total === 0) return 'no nodes available to schedule pods';
  const counts = new Map<string, number>();
  let preemptable = 0;
  for (const reasons of perNode) {
    for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    if (reasons.length > 0 && reasons.every((r) => RESOURCE_REASONS.has(r))) preemptable++;
  }
  const histogram = [...counts].map(([r, n]) => `${n} ${r}`).sort();
  const head = `0/${total} nodes are available${histogram.length ? `: ${histogram.join(', ')}` : ''}.`;
  const preemption = [
    ...(preemptable ? [`${preemptable} No preemption victims found for incoming pod`] : []),
    ...(total - preemptable ? [`${total - preemptable} Preemption is not helpful for scheduling`] : []),
  ].sort();
  return `${head} preemption: 0/${total} nodes are available: ${preemption.join(', ')}.`;
}

/** A PreFilter refusal (no node is tried): kube-scheduler's message, every node beyond preemption's help. */
export function preFilterMessage(total: number, refusal: string): string {
  return `0/${total} nodes are available: ${refusal}. preemption: 0/${total} nodes are available: ${total} Preemption is not helpful for scheduling.`;
}

/**
 * How many feasible nodes kube-scheduler looks for before it stops filtering (its adaptive percentageOfNodesToScore:
 * 50% less 1% per 125 nodes, at least 5% and at least 100 nodes); the pod goes to the best of those.
 */
export function feasibleNodesToFind(nodes: number): number {
  if (nodes < 100) return nodes;
  const percent = Math.max(5, 50 - Math.floor(nodes / 125));
  return Math.max(100, Math.floor((nodes * percent) / 100));
}

/** The share of a resource left free on a node after placing the pod (0 when the node has none). */
const freeShare = (used: number, total: number) => (total > 0 ? Math.max(0, total - used) / total : 0);

export function schedulerController(): Controller {
  const bound = new Map<string, Bound>();
  /** Where the next pod's search starts: each search goes on from where the last one stopped, as kube-scheduler's. */
  let nextStart = 0;
  /** The nodes not being deleted, filtered again only when the store's node list changed. */
  let nodeList: Entry[] | undefined;
  let live: Entry[] = [];
  const liveNodes = (all: Entry[]) => {
    if (all !== nodeList) {
      nodeList = all;
      live = all.filter((n) => !(n.obj.metadata as Obj).deletionTimestamp);
    }
    return live;
  };
  const loads = new Map<string, NodeLoad>();
  /** Pods that fit nowhere at their last attempt: tried again when capacity may have changed. */
  const waiting = new Set<string>();

  const adjust = (b: Bound, score: { cpu: number; mem: number }, sign: 1 | -1) => {
    let l = loads.get(b.node);
    if (!l) {
      l = emptyLoad();
      loads.set(b.node, l);
    }
    l.cpu += sign * b.usage.cpuReq;
    l.mem += sign * b.usage.memReq;
    l.pods += sign;
    l.scoreCpu += sign * score.cpu;
    l.scoreMem += sign * score.mem;
    if (b.owner) l.owners.set(b.owner, (l.owners.get(b.owner) ?? 0) + sign);
  };

  /** Keeps the per-node load current; answers whether capacity was freed. */
  const observe = (ev: StoreEvent): boolean => {
    const key = objectKey(ev.ns, ev.name);
    const old = bound.get(key);
    const pod = ev.obj;
    const node = String((pod.spec as Obj | undefined)?.nodeName ?? '');
    const holds = ev.type !== 'DELETED' && node !== '' && !isTerminal(pod);
    if (old && (!holds || old.node !== node)) {
      bound.delete(key);
      adjust(old, scoreUsage(ev.prev ?? pod), -1);
    }
    if (holds && !bound.has(key)) {
      const b = { node, usage: podUsage(pod), owner: ownerUid(pod) };
      bound.set(key, b);
      adjust(b, scoreUsage(pod), 1);
    }
    return old !== undefined && !holds;
  };

  return {
    name: 'scheduler',
    watches: [
      {
        res: '/pods',
        keys(ev) {
          const freed = observe(ev);
          const key = objectKey(ev.ns, ev.name);
          if (ev.type === 'DELETED' || !wantsScheduling(ev.obj)) waiting.delete(key);
          const out = freed ? [...waiting] : [];
          if (ev.type !== 'DELETED' && wantsScheduling(ev.obj) && !waiting.has(key)) out.push(key);
          return out;
        },
      },
      { res: '/nodes', keys: () => [...waiting] },
      // A claim bound, created or annotated: the pods that mount it; a volume: the pods that found none.
      { res: '/persistentvolumeclaims', keys: (ev, ctx) => podsMounting(ctx, ev.ns, ev.name) },
      { res: '/persistentvolumes', keys: () => [...waiting] },
    ],
    reconcile(key, ctx) {
      const { ns, name } = splitKey(key);
      const e = ctx.store.get('/pods', ns, name);
      if (!e || !wantsScheduling(e.obj)) {
        waiting.delete(key);
        return undefined;
      }
      const vols = podVolumes(ctx, e.obj);
      if (typeof vols === 'string') {
        waiting.add(key);
        const total = ctx.store.list('/nodes').length;
        markUnschedulable(ctx, e, total ? preFilterMessage(total, vols) : unschedulableMessage(0, []));
        return undefined;
      }
      if (vols?.inFlight) return undefined; // its claims are being bound on the node chosen before
      const usage = podUsage(e.obj);
      const score = scoreUsage(e.obj);
      const owner = ownerUid(e.obj);
      const nodes = liveNodes(ctx.store.list('/nodes'));
      const selective = selectsNodes(e.obj.spec as Obj);
      const perNode: string[][] = [];
      let best: { name: string; siblings: number; score: number; pods: number } | undefined;
      const want = feasibleNodesToFind(nodes.length);
      let feasible = 0;
      let processed = 0;
      for (; processed < nodes.length && feasible < want; processed++) {
        const n = nodes[(nextStart + processed) % nodes.length];
        const load = loads.get(n.name) ?? NO_LOAD;
        const reasons = misfits(ctx, e.obj, usage, selective, vols, n.obj, load);
        perNode.push(reasons);
        if (reasons.length) continue;
        feasible++;
        const alloc = factsOf(n.obj);
        const s =
          freeShare(load.scoreCpu + score.cpu, alloc.cpu) + freeShare(load.scoreMem + score.mem, alloc.mem);
        // Default topology spreading first (fewest replicas of the same owner), then the least allocated node.
        const siblings = owner ? (load.owners.get(owner) ?? 0) : 0;
        if (
          !best ||
          siblings < best.siblings ||
          (siblings === best.siblings && (s > best.score || (s === best.score && load.pods < best.pods)))
        )
          best = { name: n.name, siblings, score: s, pods: load.pods };
      }
      if (nodes.length) nextStart = (nextStart + processed) % nodes.length;
      if (best) {
        waiting.delete(key);
        if (vols?.delayed.length) {
          // Bound once the PV controller has bound its claims (their events bring the pod back).
          assumeVolumes(ctx, vols, (ctx.store.get('/nodes', '', best.name) as Entry).obj, SCHEDULER);
          return undefined;
        }
        const assigned = bindPod(ctx.rest, ns, name, best.name, { fieldManager: SCHEDULER });
        recordEvent(
          ctx,
          SCHEDULER,
          assigned.obj,
          'Normal',
          'Scheduled',
          `Successfully assigned ${key} to ${best.name}`,
        );
        return undefined;
      }
      waiting.add(key);
      markUnschedulable(ctx, e, unschedulableMessage(nodes.length, perNode));
      return undefined;
    },
  };
}

/** The pods of namespace `ns` waiting to be scheduled that mount claim `claim`. */
function podsMounting(ctx: ControllerContext, ns: string, claim: string): string[] {
  return ctx.store
    .list('/pods', ns)
    .filter((p) => wantsScheduling(p.obj) && claimNamesOf(p.obj).includes(claim))
    .map((p) => objectKey(p.ns, p.name));
}

/** PodScheduled=False/Unschedulable and a FailedScheduling event, once per distinct message. */
function markUnschedulable(ctx: ControllerContext, e: Entry, message: string): void {
  const status = isObj(e.obj.status) ? e.obj.status : {};
  const conds = Array.isArray(status.conditions) ? status.conditions.filter(isObj) : [];
  const prev = conds.find((c) => c.type === 'PodScheduled');
  if (prev?.status === 'False' && prev.message === message) return;
  const cond = {
    type: 'PodScheduled',
    status: 'False',
    lastProbeTime: null,
    lastTransitionTime: prev?.status === 'False' ? prev.lastTransitionTime : timestamp(ctx.now()),
    reason: 'Unschedulable',
    message,
  };
  const next = { ...status, conditions: [...conds.filter((c) => c.type !== 'PodScheduled'), cond] };
  const meta = { ...(e.obj.metadata as Obj), resourceVersion: String(e.rv) };
  const written = ctx.rest.update(
    ctx.def('', 'pods'),
    e.ns,
    e.name,
    { ...e.obj, metadata: meta, status: next },
    { fieldManager: SCHEDULER },
    'status',
  );
  recordEvent(ctx, SCHEDULER, written.obj, 'Warning', 'FailedScheduling', message);
}
