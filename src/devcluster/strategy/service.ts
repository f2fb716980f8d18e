// Services: a cluster IP allocated on create (unique among stored services), port and policy defaults, type check.

import { isObj } from '../meta.ts';
import type { Store } from '../store.ts';
import { objAt, strategy } from './strategy.ts';

const TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

let nextClusterIp = 1;

function usedClusterIps(store: Store): Set<string> {
  const ips = new Set<string>();
  for (const e of store.list('/services')) {
    const ip = (e.obj.spec as { clusterIP?: unknown } | undefined)?.clusterIP;
    if (typeof ip === 'string') ips.add(ip);
  }
  return ips;
}

function allocateClusterIp(store: Store): string {
  const used = usedClusterIps(store);
  let ip = '';
  do {
    const n = nextClusterIp++;
    ip = `10.96.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`;
  } while (used.has(ip));
  return ip;
}

export const serviceStrategy = strategy({
  prepareForCreate(o, ctx) {
    const spec = objAt(o, 'spec');
    spec.type ??= 'ClusterIP';
    spec.sessionAffinity ??= 'None';
    if (spec.type !== 'ExternalName' && spec.clusterIP === undefined) {
      const ip = allocateClusterIp(ctx.store);
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    }
    if (spec.type !== 'ExternalName') {
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
      spec.internalTrafficPolicy ??= 'Cluster';
    }
    if (Array.isArray(spec.ports)) {
      spec.ports.forEach((p, i) => {
        if (!isObj(p)) return;
        p.protocol ??= 'TCP';
        p.targetPort ??= p.port;
        if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && p.nodePort === undefined)
          p.nodePort = 30000 + ((Date.now() + i) % 2767);
      });
    }
    o.status ??= { loadBalancer: {} };
  },
  validate(o) {
    const spec = isObj(o.spec) ? o.spec : {};
    if (spec.type === undefined || TYPES.includes(String(spec.type))) return [];
    return [
      {
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${spec.type}": supported values: "${TYPES.join('", "')}"`,
        field: 'spec.type',
      },
    ];
  },
});
