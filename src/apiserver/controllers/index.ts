// The controllers clients rely on (KubeSphere runs them in ks-controller-manager), embedded: they run only while
// this replica holds the `kapiserver-controllers` Lease, so of several replicas exactly one writes.
import { KubeRest } from '../cluster/index.ts';
import type { ServerContext } from '../context.ts';
import { groupBindingController } from './groupbindings.ts';
import { DEFAULT_LEASE_TIMINGS, LeaderElector, type LeaseTimings } from './leader.ts';
import { namespaceController } from './namespaces.ts';
import { ControllerRunner } from './runner.ts';
import { workspaceTemplateController } from './workspacetemplates.ts';

export const CONTROLLERS_LEASE = { namespace: 'kubesphere-system', name: 'kapiserver-controllers' };

/**
 * Campaigns for the Lease once `ready` resolves (the CRDs are installed and the user cache is up); the controllers
 * start on acquiring it and stop on losing it. Stopped (and the Lease released) on shutdown.
 */
export function startControllers(
  ctx: ServerContext,
  ready: Promise<unknown>,
  timings: LeaseTimings = DEFAULT_LEASE_TIMINGS,
): LeaderElector {
  const logger = ctx.logger.child({ component: 'controllers' });
  if (!ctx.cache) throw new Error('startControllers needs the cluster cache (ctx.cache)');
  const cache = ctx.cache;
  const rest = new KubeRest(ctx.cluster);
  let runners: ControllerRunner[] = [];
  const elector = new LeaderElector(
    rest,
    CONTROLLERS_LEASE,
    {
      onStartedLeading() {
        runners = [
          workspaceTemplateController(cache, rest),
          namespaceController(cache, rest),
          groupBindingController(cache, rest),
        ].map((c) => new ControllerRunner(c, logger));
        for (const r of runners) r.start();
      },
      async onStoppedLeading() {
        await Promise.all(runners.splice(0).map((r) => r.stop()));
      },
    },
    logger,
    timings,
  );
  let closed = false;
  ready.then(
    () => closed || elector.start(),
    () => {},
  );
  ctx.onClose(() => {
    closed = true;
    return elector.stop();
  });
  return elector;
}
