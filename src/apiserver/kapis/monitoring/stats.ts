// Counts KubeSphere answers from its informer cache, not from Prometheus (pkg/models/monitoring/monitoring.go): the
// platform's (`/kubesphere`: clusters, workspaces, users, app templates) and a workspace's (`/workspaces/{ws}?type=
// statistics`: projects, DevOps projects, members, roles). Each is one sample at the current time.
import { serviceUnavailable } from '../../../k8s/status.ts';
import type { ClusterCache } from '../../cluster/cache.ts';
import type { Informer, ResourceRef } from '../../cluster/informer.ts';
import {
  NAMESPACES,
  WORKSPACE_ROLE_BINDINGS,
  WORKSPACE_ROLES,
  WORKSPACE_TEMPLATES,
} from '../../controllers/resources.ts';
import { USER_REF_LABEL, WORKSPACE_LABEL } from '../../iam/labels.ts';
import { USERS_REF } from '../../iam/users.ts';
import { type Metrics, sampleMetric } from './results.ts';

const SYNC_WAIT_MS = 15_000;

async function synced(cache: ClusterCache, ref: ResourceRef): Promise<Informer> {
  const inf = cache.informer(ref);
  if (!(await inf.waitForSync(SYNC_WAIT_MS))) {
    throw serviceUnavailable(`the cache of ${ref.resource} has not synced yet; retry shortly`);
  }
  return inf;
}

const count = (inf: Informer) => [...inf.entries()].length;

/** The platform counts. kapiserver serves one cluster and no app store, so those are 1 and 0. */
export async function platformStats(cache: ClusterCache, now: number): Promise<Metrics> {
  const [workspaces, users] = await Promise.all([
    synced(cache, WORKSPACE_TEMPLATES),
    synced(cache, USERS_REF),
  ]);
  return {
    results: [
      // KubeSphere's spelling, which its console reads.
      sampleMetric('kubesphere_cluser_count', now, 1),
      sampleMetric('kubesphere_workspace_count', now, count(workspaces)),
      sampleMetric('kubesphere_user_count', now, count(users)),
      sampleMetric('kubesphere_app_template_count', now, 0),
    ],
  };
}

/** A workspace's counts; DevOps is not served, so it has none. */
export async function workspaceStats(cache: ClusterCache, workspace: string, now: number): Promise<Metrics> {
  const [namespaces, bindings, roles] = await Promise.all([
    synced(cache, NAMESPACES),
    synced(cache, WORKSPACE_ROLE_BINDINGS),
    synced(cache, WORKSPACE_ROLES),
  ]);
  const inWorkspace = (inf: Informer) => inf.keysWithLabel(WORKSPACE_LABEL, workspace);
  const members = [...inWorkspace(bindings)].filter((key) => {
    const labels = bindings.getByKey(key)?.labels ?? {};
    return USER_REF_LABEL in labels;
  });
  return {
    results: [
      sampleMetric('workspace_namespace_count', now, inWorkspace(namespaces).size),
      sampleMetric('workspace_devops_project_count', now, 0),
      sampleMetric('workspace_member_count', now, members.length),
      sampleMetric('workspace_role_count', now, inWorkspace(roles).size),
    ],
  };
}
