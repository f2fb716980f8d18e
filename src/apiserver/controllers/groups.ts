// Group deletion (reference 4.6): a deleted Group's GroupBindings (labelled `iam.kubesphere.io/group-ref=<group>` or
// naming it in groupRef) and its role bindings of every kind labelled with it go (dependents.ts). Deleting a
// GroupBinding passes through the groupbinding controller's finalizer, which takes the group out of its users'
// spec.groups.

import type { Clock } from '../clock.ts';
import type { ClusterCache, KubeObject, KubeRest } from '../cluster/index.ts';
import { GROUP_REF_LABEL } from '../iam/labels.ts';
import { Dependents } from './dependents.ts';
import { BINDING_KINDS, GROUP_BINDINGS, GROUPS } from './resources.ts';
import type { Controller } from './runner.ts';

const groupsOfBinding = (o: KubeObject) => {
  const named = (o as { groupRef?: { name?: unknown } }).groupRef?.name;
  const labelled = o.metadata?.labels?.[GROUP_REF_LABEL];
  return [...new Set([named, labelled].filter((g): g is string => typeof g === 'string' && g !== ''))];
};

/** What a deleted group leaves behind; watches group deletions for the life of the process. */
export function groupDependents(cache: ClusterCache, clock: Clock): Dependents {
  return new Dependents(
    GROUP_REF_LABEL,
    cache.informer(GROUPS),
    [
      { ref: GROUP_BINDINGS, informer: cache.informer(GROUP_BINDINGS), ownersOf: groupsOfBinding },
      ...BINDING_KINDS.map((ref) => ({ ref, informer: cache.informer(ref) })),
    ],
    clock,
  );
}

export function groupController(cache: ClusterCache, rest: KubeRest, dependents: Dependents): Controller {
  return {
    name: 'group',
    informers: [cache.informer(GROUPS), ...dependents.informers],
    watch: (enqueue) => dependents.watch(enqueue),
    async reconcile(name) {
      await dependents.reconcile(rest, name);
      return undefined;
    },
  };
}
