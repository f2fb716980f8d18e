// KubeSphere's system components: one per Service with a selector in the system namespaces, with how many of the pods
// it selects are healthy (Running, every container ready); and the cluster's health (components and Ready nodes).
import { labelSelectorFromObject } from '../../../../k8s/selectors.ts';
import { notFoundMessage } from '../../../../k8s/status.ts';
import type { Entry, Informer, KubeObject } from '../../../cluster/index.ts';
import type { ResourceService } from '../service.ts';

/** The namespaces whose Services are components, in KubeSphere's order. */
export const COMPONENT_NAMESPACES = [
  'kubesphere-system',
  'kubesphere-logging-system',
  'kubesphere-monitoring-system',
  'openpitrix-system',
  'kube-system',
  'istio-system',
  'kubesphere-devops-system',
  'porter-system',
] as const;

export interface Component {
  name: string;
  namespace: string;
  selfLink: string;
  label: Record<string, string>;
  startedAt: string;
  totalBackends: number;
  healthyBackends: number;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' ? (v as Rec) : {});

function healthy(pod: KubeObject): boolean {
  const status = rec(pod.status);
  if (status.phase !== 'Running') return false;
  const containers = Array.isArray(status.containerStatuses) ? (status.containerStatuses as Rec[]) : [];
  return containers.every((c) => c.ready === true);
}

function selectorOf(service: KubeObject): Record<string, string> | undefined {
  const sel = rec(service.spec).selector as Record<string, string> | undefined;
  return sel && Object.keys(sel).length > 0 ? sel : undefined;
}

function component(service: Entry, pods: Informer): Component | undefined {
  const obj = service.object();
  const label = selectorOf(obj);
  if (!label) return undefined;
  const selector = labelSelectorFromObject({ matchLabels: label });
  let total = 0;
  let ok = 0;
  for (const key of pods.keysInNamespace(service.namespace)) {
    const pod = pods.getByKey(key);
    if (!pod || !selector.matches(pod.labels as Record<string, string> | undefined)) continue;
    total++;
    if (healthy(pod.object())) ok++;
  }
  return {
    name: service.name,
    namespace: service.namespace,
    selfLink: '',
    label,
    startedAt: obj.metadata?.creationTimestamp ?? '',
    totalBackends: total,
    healthyBackends: ok,
  };
}

export async function listComponents(svc: ResourceService): Promise<Component[]> {
  const [services, pods] = await Promise.all([svc.builtin('services'), svc.builtin('pods')]);
  const out: Component[] = [];
  for (const ns of COMPONENT_NAMESPACES) {
    const entries = [...services.keysInNamespace(ns)]
      .map((k) => services.getByKey(k))
      .filter((e): e is Entry => e !== undefined)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const c = component(e, pods);
      if (c) out.push(c);
    }
  }
  return out;
}

/** The component of that name in the first system namespace holding such a Service; 404 when there is none. */
export async function getComponent(svc: ResourceService, name: string): Promise<Component> {
  const [services, pods] = await Promise.all([svc.builtin('services'), svc.builtin('pods')]);
  for (const ns of COMPONENT_NAMESPACES) {
    const e = services.get(ns, name);
    if (!e) continue;
    const c = component(e, pods);
    if (c) return c;
    break;
  }
  throw notFoundMessage(`component "${name}" not found`);
}

function nodeReady(node: KubeObject): boolean {
  const conditions = rec(node.status).conditions;
  return (Array.isArray(conditions) ? (conditions as Rec[]) : []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );
}

export async function componentHealth(svc: ResourceService) {
  const [components, nodes] = await Promise.all([listComponents(svc), svc.builtin('nodes')]);
  let healthyNodes = 0;
  for (const n of nodes.entries()) if (nodeReady(n.object())) healthyNodes++;
  return { kubesphereStatus: components, nodeStatus: { totalNodes: nodes.size, healthyNodes } };
}
