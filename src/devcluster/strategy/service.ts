// Services: a cluster IP from the service CIDR (10.96.0.0/12) and node ports from 30000-32767, each unique among
// stored services (a requested one that is taken or out of range is a 422, as kube-apiserver's allocators answer);
// `None` stays headless. Port and policy defaults; the type is checked. An update keeps the allocated IP and ports.
import { invalid } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Obj, Store } from '../store.ts';
import { objAt, strategy } from './strategy.ts';

const TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
const CIDR_BASE = (10 << 24) | (96 << 16); // 10.96.0.0
const CIDR_SIZE = 1 << 20; // /12
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

const ipToInt = (ip: string): number | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m || m.slice(1).some((x) => Number(x) > 255)) return undefined;
  return ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
};
const intToIp = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** Cluster IPs and node ports held by stored services other than `self`. */
function allocated(store: Store, self: string): { ips: Set<string>; ports: Set<number> } {
  const ips = new Set<string>();
  const ports = new Set<number>();
  for (const e of store.list('/services')) {
    if (`${e.ns}/${e.name}` === self) continue;
    const spec = (e.obj.spec ?? {}) as Obj;
    if (typeof spec.clusterIP === 'string') ips.add(spec.clusterIP);
    for (const p of Array.isArray(spec.ports) ? spec.ports.filter(isObj) : [])
      if (typeof p.nodePort === 'number') ports.add(p.nodePort);
  }
  return { ips, ports };
}

function refuse(o: Obj, field: string, message: string): never {
  throw invalid('', 'Service', String((o.metadata as Obj).name), [
    { reason: 'FieldValueInvalid', message, field },
  ]);
}

function allocateClusterIp(o: Obj, spec: Obj, used: Set<string>): void {
  const wanted = spec.clusterIP;
  if (wanted === 'None' || spec.type === 'ExternalName') return;
  if (typeof wanted === 'string' && wanted !== '') {
    const n = ipToInt(wanted);
    if (n === undefined || n - CIDR_BASE <= 0 || n - CIDR_BASE >= CIDR_SIZE - 1)
      refuse(
        o,
        'spec.clusterIPs',
        `Invalid value: ["${wanted}"]: failed to allocate IP ${wanted}: provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12`,
      );
    if (used.has(wanted))
      refuse(
        o,
        'spec.clusterIPs',
        `Invalid value: ["${wanted}"]: failed to allocate IP ${wanted}: provided IP is already allocated`,
      );
    spec.clusterIPs = [wanted];
    return;
  }
  for (let n = 1; n < CIDR_SIZE - 1; n++) {
    const ip = intToIp(CIDR_BASE + n);
    if (used.has(ip)) continue;
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
    return;
  }
  refuse(o, 'spec.clusterIPs', 'Internal error: failed to allocate a serviceIP: range is full');
}

/** Node ports of NodePort and LoadBalancer services: kept from `old` by port, requested, or the lowest free. */
function allocateNodePorts(o: Obj, spec: Obj, used: Set<number>, old?: Obj): void {
  if (spec.type !== 'NodePort' && spec.type !== 'LoadBalancer') return;
  const oldSpecPorts = (old?.spec as Obj | undefined)?.ports;
  const oldPorts = Array.isArray(oldSpecPorts) ? (oldSpecPorts as Obj[]) : [];
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isObj) : [];
  const taken = new Set(used);
  ports.forEach((p, i) => {
    p.nodePort ??= oldPorts.find((q) => q.port === p.port && q.protocol === p.protocol)?.nodePort;
    if (p.nodePort === undefined) return;
    const n = Number(p.nodePort);
    const field = `spec.ports[${i}].nodePort`;
    if (!Number.isInteger(n) || n < NODE_PORT_MIN || n > NODE_PORT_MAX)
      refuse(
        o,
        field,
        `Invalid value: ${String(p.nodePort)}: provided port is not in the valid range. The range of valid ports is ${NODE_PORT_MIN}-${NODE_PORT_MAX}`,
      );
    if (taken.has(n)) refuse(o, field, `Invalid value: ${n}: provided port is already allocated`);
    taken.add(n);
  });
  for (const p of ports) {
    if (p.nodePort !== undefined) continue;
    let n = NODE_PORT_MIN;
    while (taken.has(n) && n <= NODE_PORT_MAX) n++;
    if (n > NODE_PORT_MAX)
      refuse(o, 'spec.ports', 'Internal error: failed to allocate a nodePort: range is full');
    p.nodePort = n;
    taken.add(n);
  }
}

function defaults(spec: Obj): void {
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  if (spec.type !== 'ExternalName') {
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
    spec.internalTrafficPolicy ??= 'Cluster';
  }
  for (const p of Array.isArray(spec.ports) ? spec.ports.filter(isObj) : []) {
    p.protocol ??= 'TCP';
    p.targetPort ??= p.port;
  }
}

const selfKey = (o: Obj) => `${String((o.metadata as Obj).namespace)}/${String((o.metadata as Obj).name)}`;

export const serviceStrategy = strategy({
  prepareForCreate(o, ctx) {
    const spec = objAt(o, 'spec');
    defaults(spec);
    const used = allocated(ctx.store, selfKey(o));
    allocateClusterIp(o, spec, used.ips);
    allocateNodePorts(o, spec, used.ports);
    o.status ??= { loadBalancer: {} };
  },
  prepareForUpdate(o, old, sub, ctx) {
    if (sub === 'status') return;
    const spec = objAt(o, 'spec');
    const oldSpec = (old.spec ?? {}) as Obj;
    // The allocated IP stays (a client that omits it keeps it, as kube-apiserver defaults it from the old object).
    if (spec.clusterIP === undefined || spec.clusterIP === '') {
      spec.clusterIP = oldSpec.clusterIP;
      spec.clusterIPs = oldSpec.clusterIPs;
    } else if (spec.clusterIP !== oldSpec.clusterIP && oldSpec.clusterIP !== undefined)
      refuse(old, 'spec.clusterIPs[0]', 'Invalid value: field is immutable');
    defaults(spec);
    allocateNodePorts(old, spec, allocated(ctx.store, selfKey(old)).ports, old);
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
