// What stands in for the machines of a cluster, as kwok simulates them: kube-scheduler, a kubelet per node (node
// registration, heartbeats, pod lifecycles) and the controllers that follow pods (endpoints, root CA publisher).
// The controllers run in the controller manager; the heartbeat is its own timer.

import { endpointsController } from '../controllers/endpoints.ts';
import type { Controller, ControllerContext } from '../controllers/framework.ts';
import { rootCaPublisher } from '../controllers/namespace.ts';
import { kubeletController } from './kubelet.ts';
import { nodeRegistration } from './nodes.ts';
import { schedulerController } from './scheduler.ts';

export interface SimulationOptions {
  /** How long a pod shows ContainerCreating (ms); default 300. */
  podStartMs?: number;
  /** How long run-to-completion containers run (ms); default 3000. */
  podRunMs?: number;
  /** How often every node's Lease is renewed (ms); default 10 s, the kubelet's. */
  leaseRenewMs?: number;
}

export const DEFAULT_SIMULATION = { podStartMs: 300, podRunMs: 3000, leaseRenewMs: 10_000 };

export function simulationControllers(
  ctx: ControllerContext,
  opts: SimulationOptions,
  caPem: string,
): Controller[] {
  return [
    nodeRegistration,
    schedulerController(),
    kubeletController({
      podStartMs: opts.podStartMs ?? DEFAULT_SIMULATION.podStartMs,
      podRunMs: opts.podRunMs ?? DEFAULT_SIMULATION.podRunMs,
    }),
    endpointsController(ctx),
    rootCaPublisher(caPem),
  ];
}

export { NodeHeartbeat } from './nodes.ts';
