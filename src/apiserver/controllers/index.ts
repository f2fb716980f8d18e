// The controllers clients rely on (KubeSphere runs them in ks-controller-manager), embedded: they run only while
// this replica holds the `kapiserver-controllers` Lease, so of several replicas exactly one writes.

import { type Clock, systemClock } from '../clock.ts';
import { KubeRest } from '../cluster/index.ts';
import type { ServerContext } from '../context.ts';
import type { Dependents } from './dependents.ts';
import { groupBindingController } from './groupbindings.ts';
import { groupController, groupDependents } from './groups.ts';
import { jobRevisionController } from './jobs.ts';
import { kubeSphereConfigController } from './kubesphere-config.ts';
import { DEFAULT_LEASE_TIMINGS, LeaderElector, type LeaseTimings } from './leader.ts';
import { loginRecordController } from './loginrecords.ts';
import { namespaceController } from './namespaces.ts';
import { ControllerRunner } from './runner.ts';
import { userController, userDependents } from './users.ts';
import { workspaceTemplateController } from './workspacetemplates.ts';

export const CONTROLLERS_LEASE = { namespace: 'kubesphere-system', name: 'kapiserver-controllers' };

/**
 * Campaigns for the Lease once `ready` resolves (the CRDs are installed, the user cache is up and the admin user
 * exists, its password hashed by the bootstrap itself, so logins never wait for a leader); the controllers start on
 * acquiring it and stop on losing it. Stopped (and the Lease released) on shutdown.
 */
export function startControllers(
  ctx: ServerContext,
  ready: Promise<unknown>,
  { timings = DEFAULT_LEASE_TIMINGS, clock = systemClock }: { timings?: LeaseTimings; clock?: Clock } = {},
): LeaderElector {
  const logger = ctx.logger.child({ component: 'controllers' });
  if (!ctx.cache) throw new Error('startControllers needs the cluster cache (ctx.cache)');
  const cache = ctx.cache;
  const rest = new KubeRest(ctx.cluster);
  const options = () => ctx.oauth.options();
  let runners: ControllerRunner[] = [];
  // Owner deletions are watched by every replica from the start, so a replica that leads later still cascades them.
  let dependents: { users: Dependents; groups: Dependents } | undefined;
  const elector = new LeaderElector(
    rest,
    CONTROLLERS_LEASE,
    {
      onStartedLeading() {
        if (!dependents) return;
        runners = [
          userController(cache, rest, dependents.users, options, clock),
          loginRecordController(cache, rest, options, clock),
          groupController(cache, rest, dependents.groups),
          workspaceTemplateController(cache, rest),
          namespaceController(cache, rest),
          groupBindingController(cache, rest),
          jobRevisionController(cache, rest),
          kubeSphereConfigController(rest, ctx.config, logger),
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
    () => {
      if (closed) return;
      dependents = { users: userDependents(cache, clock), groups: groupDependents(cache, clock) };
      elector.start();
    },
    () => {},
  );
  ctx.onClose(async () => {
    closed = true;
    await elector.stop();
    dependents?.users.close();
    dependents?.groups.close();
  });
  return elector;
}
