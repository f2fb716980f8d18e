// The log of a simulated container: no process ever runs in the dev cluster, so its kubelet "writes" what it did
// (the start, what the container would have run, its end), with the times from the container's status. Served by
// pods/log with kube-apiserver's options (container, timestamps, tailLines, sinceSeconds/sinceTime, limitBytes,
// previous, follow).
import { badRequest } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';

export interface LogLine {
  ms: number;
  text: string;
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** The container named by the request (the only one when unnamed), as kube-apiserver picks it. */
export function logContainer(pod: Obj, requested: string | null): Obj {
  const spec = (pod.spec ?? {}) as Obj;
  const name = String((pod.metadata as Obj).name);
  const containers = list(spec.containers);
  const inits = list(spec.initContainers);
  if (!requested) {
    if (containers.length === 1) return containers[0];
    const names = (cs: Obj[]) => cs.map((c) => String(c.name)).join(' ');
    throw badRequest(
      `a container name must be specified for pod ${name}, choose one of: [${names(containers)}]${inits.length ? ` or one of the init containers: [${names(inits)}]` : ''}`,
    );
  }
  const c = [...containers, ...inits].find((x) => x.name === requested);
  if (!c) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return c;
}

/** The container's status, or a 400 saying why it has no log yet (kube-apiserver's wording). */
export function loggedStatus(pod: Obj, c: Obj): Obj {
  const name = String((pod.metadata as Obj).name);
  if (!(pod.spec as Obj).nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const status = (pod.status ?? {}) as Obj;
  const s = [...list(status.containerStatuses), ...list(status.initContainerStatuses)].find(
    (x) => x.name === c.name,
  );
  const state = (s?.state ?? {}) as Obj;
  if (!s || (!state.running && !state.terminated)) {
    const reason = String(
      ((state.waiting as Obj | undefined)?.reason as string | undefined) ?? 'ContainerCreating',
    );
    throw badRequest(`container "${String(c.name)}" in pod "${name}" is waiting to start: ${reason}`);
  }
  return s;
}

/** The simulated lines of a started container. */
export function simulatedLog(pod: Obj, c: Obj, s: Obj): LogLine[] {
  const state = s.state as Obj;
  const run = (state.running ?? state.terminated) as Obj;
  const started = Date.parse(String(run.startedAt ?? '')) || 0;
  const node = String((pod.spec as Obj).nodeName);
  const command = [...(Array.isArray(c.command) ? c.command : []), ...(Array.isArray(c.args) ? c.args : [])];
  const lines: LogLine[] = [
    {
      ms: started,
      text: `[kapiserver dev cluster] simulated container "${String(c.name)}" (image ${String(c.image)}) started on node ${node}`,
    },
    {
      ms: started,
      text: `[kapiserver dev cluster] no process runs here; this log is written by the simulated kubelet${command.length ? `; the container would run: ${command.map(String).join(' ')}` : ''}`,
    },
  ];
  const terminated = state.terminated as Obj | undefined;
  if (terminated)
    lines.push({
      ms: Date.parse(String(terminated.finishedAt ?? '')) || started,
      text: `[kapiserver dev cluster] simulated run finished: exit code ${String(terminated.exitCode ?? 0)}`,
    });
  return lines;
}

export interface LogQuery {
  timestamps: boolean;
  tailLines?: number;
  sinceMs?: number;
  limitBytes?: number;
}

/** Reads kube-apiserver's PodLogOptions from the query (400 naming a bad one). */
export function logQuery(
  q: URLSearchParams,
  nowMs: number,
): LogQuery & { follow: boolean; previous: boolean } {
  const int = (key: string, min: number): number | undefined => {
    const v = q.get(key);
    if (v === null) return undefined;
    if (!/^-?\d+$/.test(v) || Number(v) < min)
      throw badRequest(`${key}: Invalid value: "${v}": must be ${min === 0 ? 'non-negative' : 'positive'}`);
    return Number(v);
  };
  const flag = (key: string) => ['true', '1'].includes(q.get(key) ?? '');
  const sinceSeconds = int('sinceSeconds', 1);
  const sinceTime = q.get('sinceTime');
  if (sinceSeconds !== undefined && sinceTime)
    throw badRequest('at most one of sinceTime or sinceSeconds may be specified');
  const sinceTimeMs = sinceTime ? Date.parse(sinceTime) : undefined;
  if (sinceTime && Number.isNaN(sinceTimeMs)) throw badRequest(`sinceTime: Invalid value: "${sinceTime}"`);
  return {
    timestamps: flag('timestamps'),
    follow: flag('follow'),
    previous: flag('previous'),
    tailLines: int('tailLines', 0),
    limitBytes: int('limitBytes', 1),
    sinceMs: sinceSeconds !== undefined ? nowMs - sinceSeconds * 1000 : sinceTimeMs,
  };
}

/** RFC 3339 with nanoseconds, as the kubelet prefixes lines with timestamps=true. */
const nanoTime = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000000Z');

/** The lines as served: filtered by time, cut to the tail, prefixed with timestamps. */
export function formatLog(lines: LogLine[], q: LogQuery): string {
  let ls = q.sinceMs === undefined ? lines : lines.filter((l) => l.ms >= (q.sinceMs as number));
  if (q.tailLines !== undefined) ls = q.tailLines === 0 ? [] : ls.slice(-q.tailLines);
  return ls.map((l) => `${q.timestamps ? `${nanoTime(l.ms)} ` : ''}${l.text}\n`).join('');
}
