// Requests and limits of the non-terminated pods on each node, kept incrementally from the pod informer's events,
// so annotating a page of nodes costs O(page) instead of KubeSphere's walk over every pod per request.
import type { Informer, KubeObject } from '../../cluster/index.ts';
import { bytes, cpuMillis, formatBytes, formatCpu } from './quantity.ts';

interface Usage {
  cpuReq: number;
  cpuLim: number;
  memReq: number;
  memLim: number;
}

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
  return v && typeof v === 'object' ? (v as Rec) : {};
}

function containers(v: unknown): Rec[] {
  return Array.isArray(v) ? (v as Rec[]) : [];
}

/** Kubernetes' PodRequestsAndLimits: sum of containers, at least the largest init container, plus overhead. */
export function podUsage(pod: KubeObject): Usage {
  const spec = rec(pod.spec);
  const u: Usage = { cpuReq: 0, cpuLim: 0, memReq: 0, memLim: 0 };
  for (const c of containers(spec.containers)) {
    const r = rec(c.resources);
    u.cpuReq += cpuMillis(rec(r.requests).cpu);
    u.memReq += bytes(rec(r.requests).memory);
    u.cpuLim += cpuMillis(rec(r.limits).cpu);
    u.memLim += bytes(rec(r.limits).memory);
  }
  for (const c of containers(spec.initContainers)) {
    const r = rec(c.resources);
    u.cpuReq = Math.max(u.cpuReq, cpuMillis(rec(r.requests).cpu));
    u.memReq = Math.max(u.memReq, bytes(rec(r.requests).memory));
    u.cpuLim = Math.max(u.cpuLim, cpuMillis(rec(r.limits).cpu));
    u.memLim = Math.max(u.memLim, bytes(rec(r.limits).memory));
  }
  const overhead = rec(spec.overhead);
  u.cpuReq += cpuMillis(overhead.cpu);
  u.memReq += bytes(overhead.memory);
  if (u.cpuLim > 0) u.cpuLim += cpuMillis(overhead.cpu);
  if (u.memLim > 0) u.memLim += bytes(overhead.memory);
  return u;
}

function terminated(pod: KubeObject): boolean {
  const phase = rec(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export class NodeUsage {
  private readonly pods = new Map<string, { node: string; usage: Usage }>();
  private readonly nodes = new Map<string, Usage>();

  constructor(pods: Informer) {
    pods.addEventHandler({
      onAdd: (obj, e) => this.set(e.key, obj),
      onUpdate: (obj, _old, e) => this.set(e.key, obj),
      onDelete: (_obj, e) => this.drop(e.key),
    });
  }

  /** Totals of a node (zeros when no pod runs there). */
  of(node: string): Usage {
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

  private add(node: string, u: Usage, sign: 1 | -1): void {
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
