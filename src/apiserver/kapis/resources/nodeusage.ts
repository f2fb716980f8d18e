// Requests and limits of the non-terminated pods on each node, kept incrementally from the pod informer's events,
// so annotating a page of nodes costs O(page) instead of KubeSphere's walk over every pod per request.

import { type PodUsage, podUsage } from '../../../k8s/pod-resources.ts';
import { bytes, cpuMillis, formatBytes, formatCpu } from '../../../k8s/quantity.ts';
import type { Informer, KubeObject } from '../../cluster/index.ts';

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
  return v && typeof v === 'object' ? (v as Rec) : {};
}

function terminated(pod: KubeObject): boolean {
  const phase = rec(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export class NodeUsage {
  private readonly pods = new Map<string, { node: string; usage: PodUsage }>();
  private readonly nodes = new Map<string, PodUsage>();

  constructor(pods: Informer) {
    pods.addEventHandler({
      onAdd: (obj, e) => this.set(e.key, obj),
      onUpdate: (obj, _old, e) => this.set(e.key, obj),
      onDelete: (_obj, e) => this.drop(e.key),
    });
  }

  /** Totals of a node (zeros when no pod runs there). */
  of(node: string): PodUsage {
    return this.nodes.get(node) ?? { cpuReq: 0, cpuLim: 0, memReq: 0, memLim: 0 };
  }

  /** Number of non-terminated, scheduled pods tracked. */
  get size(): number {
    return this.pods.size;
  }

  private set(key: string, pod: KubeObject): void {
    this.drop(key);
    const node = String(rec(pod.spec).nodeName ?? '');
    if (!node || terminated(pod)) return;
    const usage = podUsage(pod);
    this.pods.set(key, { node, usage });
    this.add(node, usage, 1);
  }

  private drop(key: string): void {
    const old = this.pods.get(key);
    if (!old) return;
    this.pods.delete(key);
    this.add(old.node, old.usage, -1);
  }

  private add(node: string, u: PodUsage, sign: 1 | -1): void {
    let t = this.nodes.get(node);
    if (!t) {
      t = { cpuReq: 0, cpuLim: 0, memReq: 0, memLim: 0 };
      this.nodes.set(node, t);
    }
    t.cpuReq += sign * u.cpuReq;
    t.cpuLim += sign * u.cpuLim;
    t.memReq += sign * u.memReq;
    t.memLim += sign * u.memLim;
  }
}

export const NODE_ANNOTATIONS = {
  cpuRequests: 'node.kubesphere.io/cpu-requests',
  cpuLimits: 'node.kubesphere.io/cpu-limits',
  memoryRequests: 'node.kubesphere.io/memory-requests',
  memoryLimits: 'node.kubesphere.io/memory-limits',
  cpuRequestsFraction: 'node.kubesphere.io/cpu-requests-fraction',
  cpuLimitsFraction: 'node.kubesphere.io/cpu-limits-fraction',
  memoryRequestsFraction: 'node.kubesphere.io/memory-requests-fraction',
  memoryLimitsFraction: 'node.kubesphere.io/memory-limits-fraction',
} as const;

function percent(part: number, whole: number): string {
  return `${whole > 0 ? Math.trunc((part / whole) * 100) : 0}%`;
}

/** Adds KubeSphere's requests/limits annotations (and fractions of allocatable) to a node object in place. */
export function annotateNode(node: KubeObject, usage: NodeUsage): KubeObject {
  if (!node.metadata) node.metadata = {};
  const meta = node.metadata;
  if (!meta.annotations) meta.annotations = {};
  const ann = meta.annotations;
  const u = usage.of(String(meta.name ?? ''));
  const alloc = rec(rec(node.status).allocatable);
  const cpuAlloc = cpuMillis(alloc.cpu);
  const memAlloc = bytes(alloc.memory);
  ann[NODE_ANNOTATIONS.cpuRequests] = formatCpu(u.cpuReq);
  ann[NODE_ANNOTATIONS.cpuLimits] = formatCpu(u.cpuLim);
  ann[NODE_ANNOTATIONS.memoryRequests] = formatBytes(u.memReq);
  ann[NODE_ANNOTATIONS.memoryLimits] = formatBytes(u.memLim);
  ann[NODE_ANNOTATIONS.cpuRequestsFraction] = percent(u.cpuReq, cpuAlloc);
  ann[NODE_ANNOTATIONS.cpuLimitsFraction] = percent(u.cpuLim, cpuAlloc);
  ann[NODE_ANNOTATIONS.memoryRequestsFraction] = percent(u.memReq, memAlloc);
  ann[NODE_ANNOTATIONS.memoryLimitsFraction] = percent(u.memLim, memAlloc);
  return node;
}
