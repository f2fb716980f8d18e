// Objects every cluster has (system namespaces) and the demo data seeded on a fresh data directory, so that
// `kubectl get nodes` and `get pods -A` are never empty on a new machine.
import { randomUUID } from 'node:crypto';
import type { Registry } from './registry.ts';
import type { Rest } from './rest.ts';
import type { Obj } from './store.ts';

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function def(registry: Registry, group: string, resource: string) {
  const d = registry.all().find((x) => x.group === group && x.resource === resource);
  if (!d) throw new Error(`built-in resource ${resource} missing`);
  return d;
}

/** Creates the system namespaces that are missing (every start; real clusters always have them). */
export function ensureSystemNamespaces(rest: Rest, registry: Registry, extra: string[] = []): void {
  const ns = def(registry, '', 'namespaces');
  for (const name of [...SYSTEM_NAMESPACES, ...extra]) {
    if (rest.store.get('/namespaces', '', name)) continue;
    rest.create(ns, '', { metadata: { name } }, { fieldManager: 'kube-apiserver' });
  }
  // The `kubernetes` service every cluster has in `default`.
  if (!rest.store.get('/services', 'default', 'kubernetes')) {
    rest.create(
      def(registry, '', 'services'),
      'default',
      {
        metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: {
          clusterIP: '10.96.0.1',
          clusterIPs: ['10.96.0.1'],
          ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
        },
      },
      { fieldManager: 'kube-apiserver' },
    );
  }
}

function node(i: number, controlPlane: boolean): Obj {
  const name = `node${i}`;
  const ip = `192.168.49.${10 + i}`;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
  };
  if (controlPlane) labels['node-role.kubernetes.io/control-plane'] = '';
  else labels['node-role.kubernetes.io/worker'] = '';
  const resources = {
    cpu: '4',
    memory: '8140440Ki',
    pods: '110',
    'ephemeral-storage': '102687672Ki',
    'hugepages-2Mi': '0',
  };
  const now = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const cond = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    metadata: { name, labels, annotations: { 'node.alpha.kubernetes.io/ttl': '0' } },
    spec: {
      podCIDR: `10.244.${i}.0/24`,
      podCIDRs: [`10.244.${i}.0/24`],
      ...(controlPlane
        ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }
        : {}),
    },
    status: {
      capacity: resources,
      allocatable: { ...resources, cpu: '3800m', memory: '7935640Ki' },
      conditions: [
        cond(
          'MemoryPressure',
          'False',
          'KubeletHasSufficientMemory',
          'kubelet has sufficient memory available',
        ),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: randomUUID().replace(/-/g, ''),
        systemUUID: randomUUID(),
        bootID: randomUUID(),
        kernelVersion: '6.8.0-45-generic',
        osImage: 'Ubuntu 24.04.1 LTS',
        containerRuntimeVersion: 'containerd://1.7.22',
        kubeletVersion: 'v1.33.1',
        kubeProxyVersion: 'v1.33.1',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: [],
    },
  };
}

function runningPod(
  name: string,
  ns: string,
  nodeName: string,
  image: string,
  labels: Record<string, string>,
  ip: string,
): { pod: Obj; status: Obj } {
  const now = new Date(Date.now() - 3500_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const container = name.replace(/-node\d+$/, '').replace(/-[a-z0-9]{5,10}(-[a-z0-9]{5})?$/, '');
  return {
    pod: {
      metadata: { name, namespace: ns, labels },
      spec: {
        nodeName,
        containers: [{ name: container, image }],
        priorityClassName: 'system-cluster-critical',
      },
    },
    status: {
      phase: 'Running',
      qosClass: 'Burstable',
      hostIP: '192.168.49.11',
      podIP: ip,
      podIPs: [{ ip }],
      startTime: now,
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: now,
      })),
      containerStatuses: [
        {
          name: container,
          image,
          imageID: `${image}@sha256:${'0'.repeat(64)}`,
          containerID: `containerd://${randomUUID().replace(/-/g, '')}`,
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: now } },
        },
      ],
    },
  };
}

/** Demo data for a fresh data directory: three nodes, the KubeSphere namespace and a few running system pods. */
export function seedDemoData(rest: Rest, registry: Registry): void {
  ensureSystemNamespaces(rest, registry, ['kubesphere-system']);
  const nodes = def(registry, '', 'nodes');
  for (let i = 1; i <= 3; i++) rest.create(nodes, '', node(i, i === 1), { fieldManager: 'kubelet' });
  const pods = def(registry, '', 'pods');
  const demo = [
    runningPod(
      'etcd-node1',
      'kube-system',
      'node1',
      'registry.k8s.io/etcd:3.5.21-0',
      { component: 'etcd', tier: 'control-plane' },
      '192.168.49.11',
    ),
    runningPod(
      'kube-apiserver-node1',
      'kube-system',
      'node1',
      'registry.k8s.io/kube-apiserver:v1.33.1',
      { component: 'kube-apiserver', tier: 'control-plane' },
      '192.168.49.11',
    ),
    runningPod(
      'coredns-674b8bbfcf-x7k2p',
      'kube-system',
      'node2',
      'registry.k8s.io/coredns/coredns:v1.12.0',
      { 'k8s-app': 'kube-dns' },
      '10.244.2.2',
    ),
  ];
  for (const { pod, status } of demo) {
    const created = rest.create(pods, 'kube-system', pod, { fieldManager: 'kubelet' });
    rest.update(
      pods,
      'kube-system',
      created.name,
      { ...created.obj, status },
      { fieldManager: 'kubelet' },
      'status',
    );
  }
}
