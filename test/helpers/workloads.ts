// Shared by the workload controller tests: a dev cluster without demo data (so no simulated node runs pods) whose
// pods the test itself marks Running and Ready, or Succeeded/Failed, through the status subresource as a kubelet.
import assert from 'node:assert/strict';
import type { ResourceDef } from '../../src/devcluster/resources.ts';
import type { Entry, Obj } from '../../src/devcluster/store.ts';
import type { TestDevCluster } from './devcluster.ts';

export function defOf(dev: TestDevCluster, group: string, resource: string): ResourceDef {
  const d = dev.rest.registry.anyVersion(group, resource);
  if (!d) throw new Error(`${group}/${resource} not served`);
  return d;
}

export const metaOf = (o: Obj) => o.metadata as Obj;
export const specOf = (o: Obj) => o.spec as Obj;
export const statusOf = (o: Obj) => (o.status ?? {}) as Obj;

/** Sets a pod's status as a kubelet would (phase, and a Ready condition for Running). */
export function setPodPhase(
  dev: TestDevCluster,
  pod: Entry,
  phase: 'Running' | 'Succeeded' | 'Failed',
): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const ready = phase === 'Running' ? 'True' : 'False';
  dev.rest.update(
    defOf(dev, '', 'pods'),
    pod.ns,
    pod.name,
    {
      ...pod.obj,
      status: {
        ...statusOf(pod.obj),
        phase,
        conditions: [{ type: 'Ready', status: ready, lastTransitionTime: now }],
      },
    },
    {},
    'status',
  );
}

/** Marks every pending pod of a namespace Running and Ready (until `stop()`), like a kubelet that starts at once. */
export function readyKubelet(dev: TestDevCluster, ns: string): { stop(): void } {
  const markAll = () => {
    for (const p of dev.store.list('/pods', ns)) {
      const st = statusOf(p.obj);
      if (st.phase === 'Pending' && !metaOf(p.obj).deletionTimestamp) setPodPhase(dev, p, 'Running');
    }
  };
  const timer = setInterval(markAll, 20);
  return { stop: () => clearInterval(timer) };
}

/** The objects of a resource in a namespace whose controller is `owner`. */
export function ownedBy(dev: TestDevCluster, res: string, ns: string, owner: Entry): Entry[] {
  const uid = metaOf(owner.obj).uid;
  return dev.store
    .list(res, ns)
    .filter((e) =>
      ((metaOf(e.obj).ownerReferences as Obj[] | undefined) ?? []).some((r) => r.uid === uid && r.controller),
    );
}

export async function until(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(cond(), `timed out waiting for ${what}`);
}

export function createNamespace(dev: TestDevCluster, name: string): void {
  dev.rest.create(defOf(dev, '', 'namespaces'), '', { metadata: { name } });
}

export function deploymentBody(name: string, replicas: number, image = 'nginx:1.25', extra: Obj = {}): Obj {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image }] },
      },
      ...extra,
    },
  };
}
