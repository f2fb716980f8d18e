// Leader election on a coordination.k8s.io/v1 Lease, shaped like client-go's leaderelection: one holder at a time,
// taken over only after the holder has not renewed for a whole lease duration (measured on this replica's clock
// from when it last saw the record change, so clocks need not agree), every write guarded by the Lease's
// resourceVersion (a 409 means another replica won the race). The leader stops acting once it has failed to renew
// for `renewDeadlineMs`, which is shorter than the lease duration: it has stopped before anyone else may start.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { isConflict, isNotFound, type KubeObject, type KubeRest } from '../cluster/index.ts';

export interface LeaseTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

export interface LeaderCallbacks {
  /** Called on acquiring the lease; leadership lasts until `onStoppedLeading`. */
  onStartedLeading(): void;
  /** Called when leadership ends (renewal failed past the deadline, or release on shutdown). May return a promise. */
  onStoppedLeading(): Promise<void> | void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface LeaseObject extends KubeObject {
  spec?: LeaseSpec;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
const microTime = (d = new Date()) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export class LeaderElector {
  /** Unique per process (and per elector): a restarted replica is a new candidate. */
  readonly identity = `${hostname()}_${randomUUID()}`;
  private leading = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;
  private lastRenewal = 0;
  /** The last record seen and when (this clock) it was first seen: the takeover rule measures from there. */
  private observed?: { record: string; at: number };
  private readonly path: string;

  constructor(
    private readonly rest: KubeRest,
    private readonly lease: { namespace: string; name: string },
    private readonly callbacks: LeaderCallbacks,
    private readonly logger: Logger,
    private readonly timings: LeaseTimings = DEFAULT_LEASE_TIMINGS,
  ) {
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${lease.namespace}/leases`;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Starts campaigning in the background. */
  start(): void {
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    // Jitter, as client-go's wait.JitterUntil: candidates that started together do not retry in lockstep.
    const jitter = this.leading ? 0 : Math.random() * ms * 0.2;
    this.timer = setTimeout(() => {
      this.round = this.tick();
    }, ms + jitter);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let held = false;
    try {
      held = await this.tryAcquireOrRenew();
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'lease request failed');
    }
    const now = Date.now();
    if (held) this.lastRenewal = now;
    if (this.stopped) return;
    if (held) {
      if (!this.leading) {
        this.leading = true;
        this.logger.info(
          { lease: this.lease.name, identity: this.identity },
          'acquired the controllers lease',
        );
        this.callbacks.onStartedLeading();
      }
    } else if (this.leading && now - this.lastRenewal >= this.timings.renewDeadlineMs) {
      this.leading = false;
      this.logger.warn(
        { lease: this.lease.name },
        'lost the controllers lease (renewal failed); controllers stop',
      );
      await this.callbacks.onStoppedLeading();
    }
    this.schedule(this.timings.retryPeriodMs);
  }

  /** One round: create the Lease, renew ours, or take over one whose holder let it expire. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    let current: LeaseObject;
    try {
      current = await this.rest.get<LeaseObject>(`${this.path}/${this.lease.name}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await this.rest.create(this.path, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.lease.name, namespace: this.lease.namespace },
          spec: this.spec(now, { leaseTransitions: 0, acquireTime: microTime(now) }),
        });
        return true;
      } catch (createErr) {
        if (isConflict(createErr)) return false;
        throw createErr;
      }
    }
    const spec = current.spec ?? {};
    const record = JSON.stringify(spec);
    if (this.observed?.record !== record) this.observed = { record, at: now.getTime() };
    const mine = spec.holderIdentity === this.identity;
    const heldByOther = !mine && !!spec.holderIdentity;
    const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
    if (heldByOther && this.observed.at + durationMs > now.getTime()) return false;
    const next: LeaseObject = {
      ...current,
      spec: this.spec(now, {
        acquireTime: mine ? spec.acquireTime : microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
      }),
    };
    try {
      const written = await this.rest.replace<LeaseObject>(`${this.path}/${this.lease.name}`, next);
      this.observed = { record: JSON.stringify(written.spec ?? {}), at: now.getTime() };
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  private spec(now: Date, fields: Pick<LeaseSpec, 'acquireTime' | 'leaseTransitions'>): LeaseSpec {
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.timings.leaseDurationMs / 1000),
      renewTime: microTime(now),
      ...fields,
    };
  }

  /** Stops campaigning; a leader stops its controllers, then hands the Lease back so a peer takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
    if (this.leading) {
      this.leading = false;
      await this.callbacks.onStoppedLeading();
    }
    if (this.lastRenewal === 0) return; // never held it
    try {
      const current = await this.rest.get<LeaseObject>(`${this.path}/${this.lease.name}`);
      if (current.spec?.holderIdentity !== this.identity) return;
      await this.rest.replace(`${this.path}/${this.lease.name}`, {
        ...current,
        spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime() },
      });
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'could not release the controllers lease');
    }
  }
}
