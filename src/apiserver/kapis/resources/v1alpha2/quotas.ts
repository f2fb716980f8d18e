// Resource quotas as KubeSphere's console reads them: the cluster's object counts, and per namespace the tightest of
// its ResourceQuotas (hard and used per key), live counts for the keys no quota tracks, and what is left.
import { bytes, cpuMillis, formatBytes, formatCpu, parseQuantity } from '../../../../k8s/quantity.ts';
import type { Informer } from '../../../cluster/index.ts';
import { def } from '../defs.ts';
import type { ResourceService } from '../service.ts';

/** Quota keys counted from the cache when no quota tracks them, and the type each counts (none: always 0). */
const COUNTED: readonly [key: string, resource: string | undefined][] = [
  ['count/pods', 'pods'],
  ['count/daemonsets.apps', 'daemonsets'],
  ['count/deployments.apps', 'deployments'],
  ['count/ingresses.extensions', 'ingresses'],
  ['count/services', 'services'],
  ['count/statefulsets.apps', 'statefulsets'],
  ['persistentvolumeclaims', 'persistentvolumeclaims'],
  ['count/jobs.batch', 'jobs'],
  ['count/cronjobs.batch', 'cronjobs'],
  // KubeSphere counts S2I builders only with DevOps installed; it has no informer for them otherwise.
  ['count/s2ibuilders.devops.kubesphere.io', undefined],
];

const RESOURCE_QUOTAS = def('resourcequotas', '', 'v1', true, {}, { optional: true });

type Quantities = Record<string, string>;
type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' ? (v as Rec) : {});

function count(inf: Informer, namespace: string | undefined): number {
  return namespace === undefined ? inf.size : inf.keysInNamespace(namespace).size;
}

async function counts(
  svc: ResourceService,
  namespace: string | undefined,
  skip: Quantities,
): Promise<Quantities> {
  const out: Quantities = {};
  for (const [key, resource] of COUNTED) {
    if (key in skip) continue;
    out[key] = resource ? String(count(await svc.builtin(resource), namespace)) : '0';
  }
  return out;
}

/** The cluster's counts, in KubeSphere's shape (its namespace field is literally two quote characters). */
export async function clusterQuotas(svc: ResourceService) {
  return { namespace: '""', data: { used: await counts(svc, undefined, {}) } };
}

/** hard - used in the unit family of the key, floored at 0. */
function left(key: string, hard: string, used: string): string {
  if (/cpu/.test(key)) return formatCpu(Math.max(0, cpuMillis(hard) - cpuMillis(used)));
  if (/memory|storage/.test(key)) return formatBytes(Math.max(0, bytes(hard) - bytes(used)));
  return String(Math.max(0, parseQuantity(hard) - parseQuantity(used)));
}

export async function namespaceQuotas(svc: ResourceService, namespace: string) {
  await svc.checkNamespace(namespace);
  const hard: Quantities = {};
  const used: Quantities = {};
  if (await svc.served(RESOURCE_QUOTAS)) {
    const quotas = await svc.synced(RESOURCE_QUOTAS);
    for (const key of quotas.keysInNamespace(namespace)) {
      const status = rec(quotas.getByKey(key)?.object().status);
      const h = rec(status.hard) as Quantities;
      const u = rec(status.used) as Quantities;
      // The tightest quota of each key wins, with its usage.
      for (const [k, v] of Object.entries(h)) {
        if (k in hard && parseQuantity(hard[k]) <= parseQuantity(v)) continue;
        hard[k] = v;
        used[k] = u[k] ?? '0';
      }
    }
  }
  const remaining: Quantities = {};
  for (const [k, h] of Object.entries(hard)) remaining[k] = left(k, h, used[k]);
  Object.assign(used, await counts(svc, namespace, used));
  return { namespace, data: { hard, used, left: remaining } };
}
