// The dev cluster's controllers (what kube-controller-manager runs), started over its own API layer.
import type { Logger } from 'pino';
import { notFound } from '../../k8s/status.ts';
import type { Registry } from '../registry.ts';
import type { Rest } from '../rest.ts';
import type { Store } from '../store.ts';
import { cronJobController } from './cronjob.ts';
import { daemonSetController } from './daemonset.ts';
import { deploymentController } from './deployment.ts';
import { type Controller, type ControllerContext, ControllerManager, type IndexReads } from './framework.ts';
import { garbageCollector } from './garbage-collector.ts';
import { jobController } from './job.ts';
import { persistentVolumeControllers } from './persistentvolume.ts';
import { replicaSetController } from './replicaset.ts';
import { resourceQuotaController } from './resourcequota.ts';
import { statefulSetController } from './statefulset.ts';
import { pvcProtectionController, pvProtectionController } from './storage-protection.ts';

export interface ControllersOptions {
  rest: Rest;
  store: Store;
  registry: Registry;
  logger?: Logger;
  /** The clock controllers schedule with (ms); default Date.now. */
  now?: () => number;
  /** Controllers run beside these (the simulated scheduler and kubelets, src/devcluster/simulation). */
  more?: (ctx: ControllerContext) => Controller[];
}

/** Every controller the dev cluster runs. */
function allControllers(ctx: ControllerContext): Controller[] {
  return [
    garbageCollector(ctx),
    replicaSetController,
    deploymentController(ctx),
    jobController,
    statefulSetController,
    daemonSetController(ctx),
    cronJobController,
    resourceQuotaController(ctx),
    ...persistentVolumeControllers(),
    pvcProtectionController,
    pvProtectionController,
  ];
}

export function startControllers(opts: ControllersOptions): ControllerManager {
  const ctx: Omit<ControllerContext, IndexReads> = {
    rest: opts.rest,
    store: opts.store,
    registry: opts.registry,
    logger: opts.logger,
    now: opts.now ?? Date.now,
    def(group, resource) {
      const d = opts.registry.anyVersion(group, resource);
      if (!d) throw notFound(group, resource, '');
      return d;
    },
  };
  const manager = new ControllerManager(ctx);
  manager.add(...allControllers(manager.context), ...(opts.more?.(manager.context) ?? []));
  manager.start();
  return manager;
}
