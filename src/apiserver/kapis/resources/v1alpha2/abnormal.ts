// Abnormal workloads: how many deployments, statefulsets and daemonsets are updating, jobs failed, and
// persistent volume claims pending or lost, in one namespace or the whole cluster.
import type { Informer } from '../../../cluster/index.ts';
import type { ResourceService } from '../service.ts';
import { legacyStatus } from './status.ts';

const ABNORMAL: readonly [resource: string, statuses: readonly string[]][] = [
  ['deployments', ['updating']],
  ['statefulsets', ['updating']],
  ['daemonsets', ['updating']],
  ['jobs', ['failed']],
  ['persistentvolumeclaims', ['pending', 'lost']],
];

function countAbnormal(
  inf: Informer,
  resource: string,
  statuses: readonly string[],
  namespace?: string,
): number {
  const entries =
    namespace === undefined ? inf.entries() : [...inf.keysInNamespace(namespace)].map((k) => inf.getByKey(k));
  let n = 0;
  for (const e of entries) {
    if (e && statuses.includes(legacyStatus(resource, e.object()) ?? '')) n++;
  }
  return n;
}

export async function abnormalWorkloads(svc: ResourceService, namespace?: string) {
  if (namespace !== undefined) await svc.checkNamespace(namespace);
  const data: Record<string, number> = {};
  for (const [resource, statuses] of ABNORMAL) {
    data[resource] = countAbnormal(await svc.builtin(resource), resource, statuses, namespace);
  }
  return { namespace: namespace ?? '', data };
}
