// The objects that name an owner (a User, a Group) and go when it goes (reference 4.1, 4.6): bindings and login
// records labelled `iam.kubesphere.io/user-ref=<user>` or `iam.kubesphere.io/group-ref=<group>`.
// Unlike KubeSphere, no finalizer holds the owner back (a deleted user must not log in while Terminating, nor stay
// undeletable while kapiserver is down): the owner's delete event, seen by every replica whether it leads or not,
// cascades to the dependents created up to then (a namesake created since keeps its own). An owner deleted while no
// replica runs leaves its dependents (README, Tenancy). Objects that merely name an absent owner are left alone: a
// binding may name a group or user that has no object (`system:authenticated`, a user yet to come).

import type { Clock } from '../clock.ts';
import {
  type Informer,
  isNotFound,
  type KubeObject,
  type KubeRest,
  type ResourceRef,
} from '../cluster/index.ts';
import { objectPath } from './resources.ts';
import { enqueueKeys } from './runner.ts';

/** How long a seen deletion is remembered (a replica that takes the Lease later still cascades it). */
const REMEMBER_MS = 3_600_000;

export interface DependentKind {
  ref: ResourceRef;
  informer: Informer;
  /** The owners an object depends on; the owner label's value when not given. */
  ownersOf?: (obj: KubeObject) => string[];
}

const ownersByLabel = (label: string) => (o: KubeObject) =>
  [o.metadata?.labels?.[label] ?? ''].filter(Boolean);

export class Dependents {
  private readonly index: string;
  private readonly ownersOf: ((o: KubeObject) => string[])[];
  /** Owners whose delete event was seen, with when (epoch ms): their dependents from before then go. */
  private readonly deleted = new Map<string, number>();
  private readonly unsubscribe: () => void;
  private enqueue?: (owner: string) => void;

  constructor(
    label: string,
    owners: Informer,
    private readonly kinds: DependentKind[],
    private readonly clock: Clock,
  ) {
    this.index = `controllers.dependents.${label}`;
    this.ownersOf = kinds.map((k) => k.ownersOf ?? ownersByLabel(label));
    kinds.forEach((k, i) => {
      k.informer.addIndex(this.index, this.ownersOf[i]);
    });
    this.unsubscribe = owners.addEventHandler({
      onDelete: (o) => this.ownerDeleted(String(o.metadata?.name)),
    });
  }

  get informers(): Informer[] {
    return this.kinds.map((k) => k.informer);
  }

  private ownerDeleted(owner: string): void {
    const now = this.clock.now();
    for (const [name, at] of this.deleted) if (now - at > REMEMBER_MS) this.deleted.delete(name);
    this.deleted.set(owner, now);
    this.enqueue?.(owner);
  }

  /**
   * While a controller runs: enqueues the deleted owners remembered, each one deleted from now on, and the deleted
   * owner of a dependent that shows up late in the cache.
   */
  watch(enqueue: (owner: string) => void): (() => void)[] {
    this.enqueue = enqueue;
    for (const owner of this.deleted.keys()) enqueue(owner);
    const ofDeleted = (i: number) => (o: KubeObject) =>
      this.ownersOf[i](o).filter((n) => this.deleted.has(n));
    return [
      () => {
        this.enqueue = undefined;
      },
      ...this.kinds.map((k, i) => k.informer.addEventHandler(enqueueKeys(enqueue, ofDeleted(i)))),
    ];
  }

  /** Deletes the dependents of `owner` created up to its deletion, if one was seen (a 404 is fine). */
  async reconcile(rest: KubeRest, owner: string): Promise<void> {
    const deletedAt = this.deleted.get(owner);
    if (deletedAt === undefined) return;
    for (const { ref, informer } of this.kinds) {
      for (const key of [...informer.keysByIndex(this.index, owner)]) {
        const obj = informer.getByKey(key)?.object();
        // Creation times have one-second precision: one from the second of the deletion counts as before it.
        if (!obj?.metadata?.name || Date.parse(obj.metadata.creationTimestamp ?? '') > deletedAt) continue;
        try {
          await rest.delete(objectPath(ref, obj.metadata.name, obj.metadata.namespace));
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    }
  }

  /** Stops remembering deletions (shutdown). */
  close(): void {
    this.unsubscribe();
  }
}
