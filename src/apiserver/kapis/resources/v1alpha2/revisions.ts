// Workload revisions: a Deployment's revision is the ReplicaSet it owns with that revision annotation; a DaemonSet's
// or StatefulSet's is the workload as it was, rebuilt from the ControllerRevision it owns with that revision number.
import { badRequest, notFound, notFoundMessage } from '../../../../k8s/status.ts';
import type { Entry, Informer, KubeObject } from '../../../cluster/index.ts';
import { def } from '../defs.ts';
import type { ResourceService } from '../service.ts';

const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

const CONTROLLER_REVISIONS = def('controllerrevisions', 'apps', 'v1', true);

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

function revisionNumber(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`invalid revision "${raw.slice(0, 64)}": expected a number`);
  return Number(raw);
}

async function workload(
  svc: ResourceService,
  resource: string,
  namespace: string,
  name: string,
): Promise<Entry> {
  await svc.checkNamespace(namespace);
  const e = (await svc.builtin(resource)).get(namespace, name);
  if (!e) throw notFound('apps', resource, name);
  return e;
}

function ownedBy(inf: Informer, namespace: string, uid: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const key of inf.keysInNamespace(namespace)) {
    const obj = inf.getByKey(key)?.object();
    if (obj?.metadata?.ownerReferences?.some((o) => o.uid === uid)) out.push(obj);
  }
  return out;
}

export async function deploymentRevision(svc: ResourceService, namespace: string, name: string, raw: string) {
  const revision = revisionNumber(raw);
  const deployment = await workload(svc, 'deployments', namespace, name);
  const rs = ownedBy(await svc.builtin('replicasets'), namespace, deployment.uid).find(
    (r) => r.metadata?.annotations?.[REVISION_ANNOTATION] === String(revision),
  );
  if (!rs) throw notFoundMessage(`deployment "${name}" has no revision ${revision}`);
  return rs;
}

/** Drops strategic-merge directives ($patch, $retainKeys ...) from a revision's stored patch. */
function withoutDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDirectives);
  if (!v || typeof v !== 'object') return v;
  const out: Rec = {};
  for (const [k, val] of Object.entries(v)) if (!k.startsWith('$')) out[k] = withoutDirectives(val);
  return out;
}

/**
 * The workload as it was at `revision`: the ControllerRevision's data holds the pod template it ran (and, for some
 * writers, other spec fields), which replace the current ones.
 */
export async function controllerRevision(
  svc: ResourceService,
  resource: 'daemonsets' | 'statefulsets',
  namespace: string,
  name: string,
  raw: string,
) {
  const revision = revisionNumber(raw);
  const current = await workload(svc, resource, namespace, name);
  const history = ownedBy(await svc.synced(CONTROLLER_REVISIONS), namespace, current.uid).find(
    (r) => Number(r.revision) === revision,
  );
  if (!history) throw notFoundMessage(`${resource} "${name}" has no revision ${revision}`);
  const obj = current.object();
  const spec = rec(obj.spec);
  const stored = rec(withoutDirectives(rec(history.data).spec));
  obj.spec = { ...spec, ...stored };
  return obj;
}
