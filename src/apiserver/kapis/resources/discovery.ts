// Which resources the orchestrator serves, from its discovery documents (/api/v1, /apis/{group}/{version}), kept a
// short while per group-version. Lets resources.kubesphere.io and the /kapis fallback answer 404 for an API the
// cluster does not have, without starting an informer that would poll for it forever.
import { serviceUnavailable } from '../../../k8s/status.ts';
import type { ClusterConnection } from '../../cluster/index.ts';
import { KubeError, KubeRest } from '../../cluster/index.ts';

export interface ApiResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs: readonly string[];
}

interface GroupVersion {
  resources: Map<string, ApiResource>;
  fetchedAt: number;
}

/** How long a group-version's resource list is trusted (a CRD installed meanwhile shows up after this). */
const TTL_MS = 10_000;
/** Group-versions remembered at most (the cluster's own are far fewer; the rest are misses, dropped first). */
const MAX_ENTRIES = 512;

interface ApiResourceList {
  resources?: { name?: string; namespaced?: boolean; kind?: string; verbs?: string[] }[];
}

export class Discovery {
  private readonly rest: KubeRest;
  private readonly cached = new Map<string, GroupVersion>();
  private readonly inflight = new Map<string, Promise<GroupVersion>>();

  constructor(
    cluster: ClusterConnection,
    private readonly now: () => number = Date.now,
  ) {
    this.rest = new KubeRest(cluster);
  }

  /** The top-level resource `resource` of group/version (core: group ''), or undefined when it is not served. */
  async resource(group: string, version: string, resource: string): Promise<ApiResource | undefined> {
    // Subresources (`deployments/scale`) are listed too; they are never a resource of their own.
    if (resource.includes('/')) return undefined;
    return (await this.groupVersion(group, version)).resources.get(resource);
  }

  private async groupVersion(group: string, version: string): Promise<GroupVersion> {
    const key = `${group}/${version}`;
    const hit = this.cached.get(key);
    if (hit && this.now() - hit.fetchedAt < TTL_MS) return hit;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.fetch(group, version).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async fetch(group: string, version: string): Promise<GroupVersion> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    const resources = new Map<string, ApiResource>();
    try {
      const list = await this.rest.get<ApiResourceList>(path);
      for (const r of list?.resources ?? []) {
        if (!r.name || r.name.includes('/')) continue;
        resources.set(r.name, {
          name: r.name,
          namespaced: r.namespaced === true,
          kind: r.kind ?? '',
          verbs: r.verbs ?? [],
        });
      }
    } catch (err) {
      // A group-version the cluster does not serve has no resources; anything else is an outage.
      if (!(err instanceof KubeError && (err.code === 404 || err.code === 403))) {
        throw serviceUnavailable('the cluster API server is unavailable; retry shortly');
      }
    }
    const gv = { resources, fetchedAt: this.now() };
    // Paths may name any version: misses are remembered too, but a flood of them only ever fills a bounded map.
    if (resources.size === 0 && this.cached.size >= MAX_ENTRIES) this.evictMisses();
    if (resources.size > 0 || this.cached.size < MAX_ENTRIES) this.cached.set(`${group}/${version}`, gv);
    return gv;
  }

  private evictMisses(): void {
    for (const [key, gv] of this.cached) if (gv.resources.size === 0) this.cached.delete(key);
  }
}
