// What a pod asks of its node: Kubernetes' PodRequestsAndLimits (the sum of its containers, at least its largest
// init container, plus the pod overhead). Shared by kapiserver's node usage annotations and the dev cluster's
// scheduler, so both count a pod the same way.
import { bytes, cpuMillis } from './quantity.ts';

/** CPU in millicores, memory in bytes. */
export interface PodUsage {
  cpuReq: number;
  cpuLim: number;
  memReq: number;
  memLim: number;
}

type Rec = Record<string, unknown>;

const rec = (v: unknown): Rec => (v && typeof v === 'object' ? (v as Rec) : {});
const list = (v: unknown): Rec[] => (Array.isArray(v) ? (v as Rec[]) : []);

export function podUsage(pod: object): PodUsage {
  const spec = rec((pod as Rec).spec);
  const u: PodUsage = { cpuReq: 0, cpuLim: 0, memReq: 0, memLim: 0 };
  for (const c of list(spec.containers)) {
    const r = rec(c.resources);
    u.cpuReq += cpuMillis(rec(r.requests).cpu);
    u.memReq += bytes(rec(r.requests).memory);
    u.cpuLim += cpuMillis(rec(r.limits).cpu);
    u.memLim += bytes(rec(r.limits).memory);
  }
  for (const c of list(spec.initContainers)) {
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
