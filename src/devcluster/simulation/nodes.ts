// Simulated nodes, as kwok fakes them: every Node object is "run" by a simulated kubelet that registers its status
// (capacity, allocatable, conditions, addresses, nodeInfo), gets a pod CIDR as the node IPAM controller would give
// it, and keeps a Lease in kube-node-lease renewed. Renewals are batched: one SQLite commit per interval for all
// nodes, not one per node.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type Controller, FIELD_MANAGER, ownKey, timestamp } from '../controllers/framework.ts';
import { isObj, jsonEqual } from '../meta.ts';
import type { Rest } from '../rest.ts';
import type { Entry, Obj } from '../store.ts';

export const KUBELET = 'kubelet';
const LEASE_NAMESPACE = 'kube-node-lease';
const LEASES = 'coordination.k8s.io/leases';
const LEASE_DURATION_SECONDS = 40;
/** A node's status is rewritten every this many lease renewals even when unchanged (kubelet: 5 min vs 10 s). */
const STATUS_EVERY_RENEWALS = 30;

/** What each simulated node has unless its object says otherwise. */
const CAPACITY = {
  cpu: '4',
  memory: '8140440Ki',
  pods: '110',
  'ephemeral-storage': '102687672Ki',
  'hugepages-2Mi': '0',
};
const RESERVED_ALLOCATABLE = { cpu: '3800m', memory: '7935640Ki' };

/** 10.244.0.0/14 in /24s: the Nth node's pod CIDR (N from 1; 1023 nodes at most). */
export const MAX_NODES = 1023;
const podCidr = (n: number) => `10.${244 + (n >> 8)}.${n & 255}.0/24`;

function cidrIndex(cidr: unknown): number | undefined {
  const m = /^10\.(24[4-7])\.(\d{1,3})\.0\/24$/.exec(String(cidr ?? ''));
  return m ? (Number(m[1]) - 244) * 256 + Number(m[2]) : undefined;
}

/** The node's InternalIP: 192.168.49.10 + its CIDR index. */
function nodeIp(n: number): string {
  const v = 0xc0a8310a + n;
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}

/** A demo node's object as an administrator (or kubeadm) would register it; its kubelet fills the status. */
export function demoNode(i: number, controlPlane: boolean): Obj {
  const name = `node${i}`;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    [controlPlane ? 'node-role.kubernetes.io/control-plane' : 'node-role.kubernetes.io/worker']: '',
  };
  return {
    metadata: { name, labels, annotations: { 'node.alpha.kubernetes.io/ttl': '0' } },
    spec: {
      podCIDR: podCidr(i),
      podCIDRs: [podCidr(i)],
      ...(controlPlane
        ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }
        : {}),
    },
  };
}

const CONDITIONS: [string, string, string, string][] = [
  ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
  ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
];

/** The status a healthy kubelet reports, keeping what the object already says (capacity, transition times, ids). */
export function nodeStatus(node: Obj, now: string): Obj {
  const old = isObj(node.status) ? node.status : {};
  const name = String((node.metadata as Obj).name);
  const n = cidrIndex((node.spec as Obj | undefined)?.podCIDR) ?? 0;
  const oldConds = Array.isArray(old.conditions) ? old.conditions.filter(isObj) : [];
  const capacity = isObj(old.capacity) ? old.capacity : CAPACITY;
  const oldInfo = isObj(old.nodeInfo) ? old.nodeInfo : {};
  return {
    ...old,
    capacity,
    allocatable: isObj(old.allocatable) ? old.allocatable : { ...capacity, ...RESERVED_ALLOCATABLE },
    conditions: CONDITIONS.map(([type, status, reason, message]) => {
      const prev = oldConds.find((c) => c.type === type);
      const since = prev?.status === status ? prev.lastTransitionTime : now;
      return { type, status, lastHeartbeatTime: now, lastTransitionTime: since, reason, message };
    }),
    addresses: Array.isArray(old.addresses)
      ? old.addresses
      : [
          { type: 'InternalIP', address: nodeIp(n) },
          { type: 'Hostname', address: name },
        ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: oldInfo.machineID ?? randomUUID().replace(/-/g, ''),
      systemUUID: oldInfo.systemUUID ?? randomUUID(),
      bootID: oldInfo.bootID ?? randomUUID(),
      kernelVersion: '6.8.0-45-generic',
      osImage: 'Ubuntu 24.04.1 LTS',
      containerRuntimeVersion: 'containerd://1.7.22',
      kubeletVersion: 'v1.33.1',
      kubeProxyVersion: 'v1.33.1',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
    images: Array.isArray(old.images) ? old.images : [],
  };
}

/** The node's InternalIP, if its status has one. */
export function internalIp(node: Obj): string | undefined {
  const addrs = (node.status as Obj | undefined)?.addresses;
  if (!Array.isArray(addrs)) return undefined;
  const a = addrs.find((x): x is Obj => isObj(x) && x.type === 'InternalIP');
  return typeof a?.address === 'string' ? a.address : undefined;
}

/** metav1.MicroTime of a time in ms. */
const microTime = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');

function leaseBody(node: Obj, nowMs: number): Obj {
  const meta = node.metadata as Obj;
  return {
    metadata: {
      name: meta.name,
      namespace: LEASE_NAMESPACE,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: meta.name, uid: meta.uid }],
    },
    spec: {
      holderIdentity: meta.name,
      leaseDurationSeconds: LEASE_DURATION_SECONDS,
      renewTime: microTime(nowMs),
    },
  };
}

/** The lowest pod CIDR index no node holds. */
function freeCidrIndex(rest: Rest): number | undefined {
  const used = new Set(
    rest.store.list('/nodes').map((e) => cidrIndex((e.obj.spec as Obj | undefined)?.podCIDR)),
  );
  for (let n = 1; n <= MAX_NODES; n++) if (!used.has(n)) return n;
  return undefined;
}

/** The kubelet's registration of a node: a pod CIDR, a full status and a Lease. Runs on every node change. */
export const nodeRegistration: Controller = {
  name: 'node-registration',
  watches: [{ res: '/nodes', keys: ownKey }],
  reconcile(name, ctx) {
    let e: Entry | undefined = ctx.store.get('/nodes', '', name);
    if (!e || (e.obj.metadata as Obj).deletionTimestamp) return undefined;
    const nodes = ctx.def('', 'nodes');
    const spec = isObj(e.obj.spec) ? e.obj.spec : {};
    if (!spec.podCIDR) {
      const n = freeCidrIndex(ctx.rest);
      if (n !== undefined) {
        const next = { ...e.obj, spec: { ...spec, podCIDR: podCidr(n), podCIDRs: [podCidr(n)] } };
        e = ctx.rest.update(nodes, '', name, withRv(next, e), { fieldManager: FIELD_MANAGER });
      }
    }
    const status = isObj(e.obj.status) ? e.obj.status : {};
    if (!isRegistered(status)) {
      const next = { ...e.obj, status: nodeStatus(e.obj, timestamp(ctx.now())) };
      e = ctx.rest.update(nodes, '', name, withRv(next, e), { fieldManager: KUBELET }, 'status');
    }
    if (!ctx.store.get(LEASES, LEASE_NAMESPACE, name) && ctx.store.get('/namespaces', '', LEASE_NAMESPACE))
      ctx.rest.create(
        ctx.def('coordination.k8s.io', 'leases'),
        LEASE_NAMESPACE,
        leaseBody(e.obj, ctx.now()),
        {
          fieldManager: KUBELET,
        },
      );
    return undefined;
  },
};

function isRegistered(status: Obj): boolean {
  const conds = Array.isArray(status.conditions) ? status.conditions.filter(isObj) : [];
  return isObj(status.nodeInfo) && isObj(status.allocatable) && conds.some((c) => c.type === 'Ready');
}

const withRv = (o: Obj, e: Entry): Obj => ({
  ...o,
  metadata: { ...(o.metadata as Obj), resourceVersion: String(e.rv) },
});

/**
 * Every node's heartbeat: its Lease renewed each interval, its status (condition heartbeat times) every
 * STATUS_EVERY_RENEWALS intervals and at start, all in one store batch.
 */
export class NodeHeartbeat {
  private timer: NodeJS.Timeout | undefined;
  private beats = 0;

  constructor(
    private readonly rest: Rest,
    private readonly intervalMs: number,
    private readonly now: () => number,
    private readonly logger?: Logger,
  ) {}

  start(): void {
    this.beat();
    this.timer = setInterval(() => this.beat(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One heartbeat of every node. */
  beat(): void {
    const withStatus = this.beats++ % STATUS_EVERY_RENEWALS === 0;
    const leases = this.rest.registry.anyVersion('coordination.k8s.io', 'leases');
    const nodes = this.rest.registry.anyVersion('', 'nodes');
    if (!leases || !nodes) return;
    const nowMs = this.now();
    this.rest.store.batch(() => {
      for (const n of this.rest.store.list('/nodes')) {
        if ((n.obj.metadata as Obj).deletionTimestamp) continue;
        try {
          if (withStatus && isObj(n.obj.status) && isRegistered(n.obj.status)) {
            const status = nodeStatus(n.obj, timestamp(nowMs));
            if (!jsonEqual(status, n.obj.status))
              this.rest.update(
                nodes,
                '',
                n.name,
                withRv({ ...n.obj, status }, n),
                { fieldManager: KUBELET },
                'status',
              );
          }
          const lease = this.rest.store.get(LEASES, LEASE_NAMESPACE, n.name);
          if (!lease) continue; // registration creates it
          const spec = { ...(lease.obj.spec as Obj), holderIdentity: n.name, renewTime: microTime(nowMs) };
          this.rest.update(leases, LEASE_NAMESPACE, n.name, withRv({ ...lease.obj, spec }, lease), {
            fieldManager: KUBELET,
          });
        } catch (err) {
          this.logger?.debug({ node: n.name, err: String(err) }, 'node heartbeat skipped');
        }
      }
    });
  }
}
