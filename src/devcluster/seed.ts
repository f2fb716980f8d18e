// Objects every cluster has (system namespaces) and the demo data seeded on a fresh data directory, so that
// `kubectl get nodes` and `get pods -A` show a live cluster on a new machine: workloads, not written pods.
import { DEFAULT_CLASS_ANNOTATION } from './admission/default-storage-class.ts';
import { LOCAL_PATH_PROVISIONER } from './controllers/local-path-provisioner.ts';
import type { Registry } from './registry.ts';
import type { Rest } from './rest.ts';
import { demoNode, MAX_NODES } from './simulation/nodes.ts';
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

/**
 * The default StorageClass a kind or minikube cluster comes with (`standard`), created on a fresh data directory
 * only (with or without demo data): a class the user deletes later stays deleted.
 */
export function seedDefaultStorageClass(rest: Rest, registry: Registry): void {
  rest.create(
    def(registry, 'storage.k8s.io', 'storageclasses'),
    '',
    {
      metadata: { name: 'standard', annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } },
      provisioner: LOCAL_PATH_PROVISIONER,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowVolumeExpansion: true,
    },
    { fieldManager: 'kube-apiserver' },
  );
}

const container = (name: string, image: string, extra: Obj = {}): Obj => ({
  name,
  image,
  imagePullPolicy: 'IfNotPresent',
  ...extra,
});

const requests = (cpu: string, memory: string) => ({ resources: { requests: { cpu, memory } } });

/** A Deployment, DaemonSet or StatefulSet body with matching selector and template labels. */
function workload(name: string, labels: Record<string, string>, spec: Obj, podSpec: Obj): Obj {
  return {
    metadata: { name, labels },
    spec: {
      ...spec,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: podSpec },
    },
  };
}

/** The system workloads a kubeadm cluster runs, as objects the controllers turn into pods. */
function systemWorkloads(): { resource: string; group: string; body: Obj }[] {
  const dns = { 'k8s-app': 'kube-dns' };
  const proxy = { 'k8s-app': 'kube-proxy' };
  const controlPlaneToleration = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
  return [
    {
      group: 'apps',
      resource: 'deployments',
      body: workload(
        'coredns',
        dns,
        { replicas: 2 },
        {
          containers: [
            container('coredns', 'registry.k8s.io/coredns/coredns:v1.12.0', {
              args: ['-conf', '/etc/coredns/Corefile'],
              ports: [
                { name: 'dns', containerPort: 53, protocol: 'UDP' },
                { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
                { name: 'metrics', containerPort: 9153, protocol: 'TCP' },
              ],
              resources: { requests: { cpu: '100m', memory: '70Mi' }, limits: { memory: '170Mi' } },
            }),
          ],
          tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, controlPlaneToleration],
        },
      ),
    },
    {
      group: '',
      resource: 'services',
      body: {
        metadata: { name: 'kube-dns', labels: { ...dns, 'kubernetes.io/name': 'CoreDNS' } },
        spec: {
          selector: dns,
          clusterIP: '10.96.0.10',
          clusterIPs: ['10.96.0.10'],
          ports: [
            { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
            { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
            { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
          ],
        },
      },
    },
    {
      group: 'apps',
      resource: 'daemonsets',
      body: workload(
        'kube-proxy',
        proxy,
        {},
        {
          hostNetwork: true,
          containers: [
            container('kube-proxy', 'registry.k8s.io/kube-proxy:v1.33.1', {
              command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf'],
            }),
          ],
          tolerations: [{ operator: 'Exists' }],
        },
      ),
    },
  ];
}

/** The demo namespace's workloads: a web Deployment behind a Service, a StatefulSet with its headless Service, a Job. */
function demoWorkloads(): { resource: string; group: string; body: Obj }[] {
  const web = { app: 'web' };
  const db = { app: 'db' };
  return [
    {
      group: 'apps',
      resource: 'deployments',
      body: workload(
        'web',
        web,
        { replicas: 2 },
        {
          containers: [
            container('nginx', 'nginx:1.27', {
              ports: [{ name: 'http', containerPort: 80 }],
              ...requests('50m', '64Mi'),
            }),
          ],
        },
      ),
    },
    {
      group: '',
      resource: 'services',
      body: {
        metadata: { name: 'web', labels: web },
        spec: { selector: web, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      },
    },
    {
      group: 'apps',
      resource: 'statefulsets',
      body: workload(
        'db',
        db,
        { replicas: 1, serviceName: 'db' },
        {
          containers: [
            container('redis', 'redis:7.4', {
              ports: [{ name: 'redis', containerPort: 6379 }],
              ...requests('100m', '128Mi'),
            }),
          ],
        },
      ),
    },
    {
      group: '',
      resource: 'services',
      body: {
        metadata: { name: 'db', labels: db },
        spec: {
          clusterIP: 'None',
          selector: db,
          ports: [{ name: 'redis', port: 6379, targetPort: 'redis' }],
        },
      },
    },
    {
      group: 'batch',
      resource: 'jobs',
      body: {
        metadata: { name: 'hello' },
        spec: {
          completions: 1,
          backoffLimit: 2,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [
                container('hello', 'busybox:1.36', { command: ['echo', 'hello from the dev cluster'] }),
              ],
            },
          },
        },
      },
    },
  ];
}

/**
 * Demo data for a fresh data directory: `nodeCount` simulated nodes (node1 the tainted control plane), the
 * KubeSphere namespace, kube-system's DNS and proxy workloads and a `demo` namespace with workloads; the
 * controllers, scheduler and simulated kubelets make their pods run.
 */
export function seedDemoData(rest: Rest, registry: Registry, nodeCount = 3): void {
  ensureSystemNamespaces(rest, registry, ['kubesphere-system', 'demo']);
  const nodes = def(registry, '', 'nodes');
  for (let i = 1; i <= Math.min(nodeCount, MAX_NODES); i++)
    rest.create(nodes, '', demoNode(i, i === 1), { fieldManager: 'kubeadm' });
  for (const [ns, objs] of [
    ['kube-system', systemWorkloads()],
    ['demo', demoWorkloads()],
  ] as const)
    for (const { group, resource, body } of objs)
      rest.create(def(registry, group, resource), ns, body, { fieldManager: 'kubectl-create' });
}
