// KubeSphere's job-revision controller (ks-controller-manager, pkg/controller/job): every Job carries the annotation
// `revisions`, a JSON map from run number to how that run went, which the console's Job page lists as its Run Records.
// A run is a Job uid: the console's Rerun re-creates the Job with its annotations, so the new uid adds run n+1.
import type { ClusterCache, KubeRest, ResourceRef } from '../cluster/index.ts';
import { type Obj, objectPath } from './resources.ts';
import { type Controller, enqueueKeys } from './runner.ts';

export const JOBS: ResourceRef = { group: 'batch', version: 'v1', resource: 'jobs' };
export const REVISIONS_ANNOTATION = 'revisions';

interface Job extends Obj {
  spec?: { completions?: number };
  status?: {
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
    succeeded?: number;
    failed?: number;
    completionTime?: string;
  };
}

type Revision = Record<string, unknown>;

/** Go's zero time.Time, which KubeSphere writes for a run not yet finished. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** The run as KubeSphere records it (its JobRevision's fields, in its order, zero counts left out). */
export function currentRevision(job: Job): Revision {
  let status = '';
  const reasons: string[] = [];
  const messages: string[] = [];
  for (const c of job.status?.conditions ?? []) {
    if (c.status !== 'True') continue;
    if (c.type === 'Failed') {
      status = 'failed';
      reasons.push(c.reason ?? '');
      messages.push(c.message ?? '');
    } else if (c.type === 'Complete') status = 'completed';
  }
  const count = (n: number | undefined) => (n ? n : undefined);
  return {
    status: status || 'running',
    reasons: reasons.length > 0 ? reasons : undefined,
    messages: messages.length > 0 ? messages : undefined,
    succeed: count(job.status?.succeeded),
    desire: count(job.spec?.completions),
    failed: count(job.status?.failed),
    uid: String(job.metadata.uid ?? ''),
    'start-time': job.metadata.creationTimestamp ?? ZERO_TIME,
    'completion-time': job.status?.completionTime ?? ZERO_TIME,
  };
}

/** The annotation with this run recorded, or undefined when it already is (or the annotation is not KubeSphere's). */
export function revisionsWith(job: Job): string | undefined {
  const stored = job.metadata.annotations?.[REVISIONS_ANNOTATION];
  let revisions: Record<string, Revision>;
  try {
    revisions = stored ? JSON.parse(stored) : {};
  } catch {
    return undefined; // KubeSphere leaves an annotation it cannot read alone
  }
  if (!revisions || typeof revisions !== 'object' || Array.isArray(revisions)) return undefined;
  const current = currentRevision(job);
  const run =
    Object.keys(revisions).find((k) => revisions[k]?.uid === current.uid) ??
    String(Object.keys(revisions).length + 1);
  if (JSON.stringify(revisions[run]) === JSON.stringify(current)) return undefined;
  revisions[run] = current;
  // Go's encoding/json writes map keys sorted as strings.
  const sorted = Object.keys(revisions)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(revisions[k])}`);
  return `{${sorted.join(',')}}`;
}

export function jobRevisionController(cache: ClusterCache, rest: KubeRest): Controller {
  const jobs = cache.informer(JOBS);
  const keyOf = (o: { metadata?: { namespace?: string; name?: string } }) =>
    `${o.metadata?.namespace}/${o.metadata?.name}`;
  return {
    name: 'job-revision',
    informers: [jobs],
    watch(enqueue) {
      return [jobs.addEventHandler(enqueueKeys(enqueue, (o) => [keyOf(o)]))];
    },
    async reconcile(key) {
      const [namespace, name] = key.split('/');
      const job = jobs.get(namespace, name)?.object() as Job | undefined;
      if (!job || job.metadata.deletionTimestamp) return undefined;
      const revisions = revisionsWith(job);
      if (revisions === undefined) return undefined;
      await rest.mergePatch(objectPath(JOBS, name, namespace), {
        metadata: {
          resourceVersion: job.metadata.resourceVersion,
          annotations: { [REVISIONS_ANNOTATION]: revisions },
        },
      });
      return undefined;
    },
  };
}
