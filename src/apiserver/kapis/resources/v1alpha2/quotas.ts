// Resource quotas as KubeSphere's console reads them: the cluster's object counts, and per namespace the tightest of
// its ResourceQuotas (hard and used per key), live counts for the keys no quota tracks, and what is left.
import { bytes, cpuMillis, formatBytes, formatCpu, quantityValue } from '../../../../k8s/quantity.ts';
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
  return String(Math.max(0, quantityValue(hard) - quantityValue(used)));
}

export interface QuotaStatus {
  hard?: Quantities;
  used?: Quantities;
}

/** The tightest hard limit of each key over a namespace's quotas, with that quota's usage, and what is left. */
export function tightestQuota(statuses: readonly QuotaStatus[]): {
  hard: Quantities;
  used: Quantities;
  left: Quantities;
} {
  const hard: Quantities = {};
  const used: Quantities = {};
  for (const s of statuses) {
    for (const [k, v] of Object.entries(s.hard ?? {})) {
      if (k in hard && quantityValue(hard[k]) <= quantityValue(v)) continue;
      hard[k] = v;
      used[k] = s.used?.[k] ?? '0';
    }
  }
  const remaining: Quantities = {};
  for (const [k, h] of Object.entries(hard)) remaining[k] = left(k, h, used[k]);
  return { hard, used, left: remaining };
}

export async function namespaceQuotas(svc: ResourceService, namespace: string) {
  await svc.checkNamespace(namespace);
  const statuses: QuotaStatus[] = [];
  if (await svc.served(RESOURCE_QUOTAS)) {
    const quotas = await svc.synced(RESOURCE_QUOTAS);
    for (const key of quotas.keysInNamespace(namespace)) {
      const status = rec(quotas.getByKey(key)?.object().status);
      statuses.push({ hard: rec(status.hard) as Quantities, used: rec(status.used) as Quantities });
    }
  }
  const data = tightestQuota(statuses);
  Object.assign(data.used, await counts(svc, namespace, data.used));
  return { namespace, data };
}
