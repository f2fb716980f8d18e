// Access to the resource types resources.kubesphere.io serves (both versions): their informers, whether the
// orchestrator serves an optional type at all, namespace checks, and how an object is presented (node usage
// annotations, a StorageClass's claim count, no Secret values, no User credentials).
import { notFound, notFoundMessage, serviceUnavailable } from '../../../k8s/status.ts';
import type { ClusterCache, ClusterConnection, Entry, Informer, KubeObject } from '../../cluster/index.ts';
import { claimCounter } from './claimcount.ts';
import { RESOURCE_BY_NAME, RESOURCES, type ResourceDef } from './defs.ts';
import { Discovery } from './discovery.ts';
import { annotateNode, NodeUsage } from './nodeusage.ts';

const SYNC_WAIT_MS = 15_000;

export class ResourceService {
  readonly discovery: Discovery;
  private usage?: NodeUsage;
  private claimCount?: (storageClass: KubeObject) => KubeObject;
  /** The always-served types' informers once synced (they stay synced): a request asks for them with one lookup. */
  private readonly ready = new Map<ResourceDef, Informer>();

  constructor(
    private readonly cache: ClusterCache,
    cluster: ClusterConnection,
  ) {
    this.discovery = new Discovery(cluster);
  }

  /**
   * Starts the informers of the types every cluster serves (boot) but the on-demand ones, and the node usage tracker
   * on the pods.
   */
  start(): void {
    for (const def of RESOURCES) if (!def.optional && !def.onDemand) this.cache.informer(def.ref);
    this.usage = new NodeUsage(this.cache.informer({ group: '', version: 'v1', resource: 'pods' }));
    this.claimCount = claimCounter(
      this.cache.informer({ group: '', version: 'v1', resource: 'persistentvolumeclaims' }),
    );
  }

  /** Whether the orchestrator serves the type (always, for the non-optional ones). */
  async served(def: ResourceDef): Promise<boolean> {
    if (!def.optional) return true;
    const { group, version, resource } = def.ref;
    return (await this.discovery.resource(group, version, resource)) !== undefined;
  }

  /** The type's informer once synced; a 404 Status when the orchestrator does not serve it. */
  async synced(def: ResourceDef): Promise<Informer> {
    const ready = this.ready.get(def);
    if (ready) return ready;
    if (!(await this.served(def))) {
      throw notFoundMessage(
        `the cluster does not serve ${def.name} (${def.ref.group || 'core'}/${def.ref.version})`,
      );
    }
    // Started here when it was not at boot: this request waits for it, /readyz does not.
    const inf = this.cache.informer(def.ref, { onDemand: def.optional || def.onDemand });
    if (!(await inf.waitForSync(SYNC_WAIT_MS))) {
      throw serviceUnavailable(`the cache of ${def.name} has not synced yet; retry shortly`);
    }
    if (!def.optional) this.ready.set(def, inf);
    return inf;
  }

  /** The informer of one of the always-served types, by name (pods, services, nodes ...). */
  builtin(name: string): Promise<Informer> {
    const def = RESOURCE_BY_NAME.get(name);
    if (!def || def.optional) throw new Error(`${name} is not an always-served type`);
    return this.synced(def);
  }

  async checkNamespace(namespace: string): Promise<void> {
    const ns = await this.builtin('namespaces');
    if (!ns.get('', namespace)) throw notFound('', 'namespaces', namespace);
  }

  presenter(def: ResourceDef): ((obj: KubeObject) => KubeObject) | undefined {
    if (def.name === 'nodes') {
      const usage = this.usage;
      return usage ? (obj) => annotateNode(obj, usage) : undefined;
    }
    if (def.name === 'storageclasses') return this.claimCount;
    return def.redact;
  }

  present(def: ResourceDef, e: Entry): string {
    const p = this.presenter(def);
    return p ? JSON.stringify(p(e.object())) : e.json;
  }
}
