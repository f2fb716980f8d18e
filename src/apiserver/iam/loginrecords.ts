// LoginRecords (iam.kubesphere.io/v1alpha2, cluster-scoped): one per password login attempt of an existing user,
// named <user>-<random> by the cluster (generateName), labelled with the user, owned by the user. Written by
// whichever replica served the login; pruned by the leader's login-record controller (controllers/loginrecords.ts).
// Off the response path: a login only queues its record. A record that finds no write under way waits up to
// lingerMs for others, so a storm's records reach the cluster together. A few writers drain the queue; while the
// cluster fails they back off and retry, and a record that keeps failing is dropped. The queue is bounded: past it,
// new records are dropped. Every outcome is counted (kapiserver_login_records_total), so a login never waits on the
// cluster and memory never grows with an outage.
import type { Logger } from 'pino';
import { KubeError } from '../cluster/index.ts';
import { IAM_GROUP, IAM_VERSION } from '../crds/index.ts';
import type { LoginRecordOutcome } from '../metrics/index.ts';
import { USER_REF_LABEL } from './labels.ts';
import { kubeTime, type UserObject } from './users.ts';

export const LOGIN_RECORDS_PATH = `/apis/${IAM_GROUP}/${IAM_VERSION}/loginrecords`;

export interface LoginAttempt {
  success: boolean;
  reason: string;
  sourceIP: string;
  userAgent: string;
  type?: 'Token' | 'Password' | 'OAuth';
  provider?: string;
}

/** Where records are written: the orchestrator's REST client (KubeRest). */
export interface RecordWriter {
  createUnread(path: string, obj: unknown): Promise<void>;
}

export interface RecorderLimits {
  /** Records queued or being written; a record past this is dropped. */
  maxQueued: number;
  /**
   * Writes in flight at once. Four keep up with what bcrypt allows on 8 cores (about 20 logins/s a core) over a
   * 20 ms round trip to the cluster.
   */
  writers: number;
  /** Tries per record before it is dropped as failed. */
  maxAttempts: number;
  /** First and longest pause after a failed write. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Longest close() waits for queued records before dropping them. */
  closeTimeoutMs: number;
  /**
   * Longest a record waits for others to be written with it, when no write is under way: in a login storm records
   * then reach the cluster together, which costs it and kapiserver less per record than one at a time (bench/oauth).
   */
  lingerMs: number;
}

const DEFAULT_LIMITS: RecorderLimits = {
  maxQueued: 1000,
  writers: 4,
  maxAttempts: 6,
  backoffMs: 250,
  maxBackoffMs: 10_000,
  closeTimeoutMs: 5000,
  lingerMs: 200,
};

interface QueuedRecord {
  user: string;
  uid?: string;
  attempt: LoginAttempt;
  onLoggedIn?: () => Promise<unknown>;
  tries: number;
}

/**
 * A refusal that a retry cannot change (invalid object, forbidden); a name collision (409, or the ServerTimeout a
 * kube-apiserver answers when a generated name was taken) is retried.
 */
function isPermanent(err: unknown): boolean {
  return (
    err instanceof KubeError && err.code >= 400 && err.code < 500 && err.code !== 409 && err.code !== 429
  );
}

export class LoginRecorder {
  private readonly queue: QueuedRecord[] = [];
  private readonly limits: RecorderLimits;
  private inFlight = 0;
  /** Epoch ms before which no write starts (after a failure); 0 = none. */
  private pausedUntil = 0;
  private backoff: number;
  private timer: NodeJS.Timeout | undefined;
  /** Set while the first record of a batch waits for others (lingerMs). */
  private lingerTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private overflowing = false;
  private idleWaiters: (() => void)[] = [];
  /** Users whose lastLoginTime is being written, with the update waiting to follow (the latest one). */
  private readonly loggingIn = new Map<string, { next?: () => Promise<unknown> }>();

  constructor(
    private readonly rest: RecordWriter,
    private readonly logger: Logger,
    private readonly count: (outcome: LoginRecordOutcome, n?: number) => void = () => {},
    limits: Partial<RecorderLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.backoff = this.limits.backoffMs;
  }

  /**
   * Queues the record; `onLoggedIn` (the user's lastLoginTime) runs once a successful attempt's record is written,
   * at most one per user at a time: one arriving meanwhile waits, replacing any other waiting (the latest wins).
   * Never waits and never throws.
   */
  record(user: UserObject, attempt: LoginAttempt, onLoggedIn?: () => Promise<unknown>): void {
    if (this.closed || this.pending >= this.limits.maxQueued) {
      this.count('dropped');
      if (!this.overflowing && !this.closed) {
        this.logger.warn({ queued: this.queue.length }, 'login records queue full: records are dropped');
      }
      this.overflowing = true;
      return;
    }
    this.overflowing = false;
    const { name, uid } = user.metadata;
    this.queue.push({ user: name, uid, attempt, onLoggedIn, tries: 0 });
    if (this.lingerTimer) return; // written with the batch it joins
    if (this.inFlight > 0 || this.limits.lingerMs <= 0) {
      this.pump();
      return;
    }
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      this.pump();
    }, this.limits.lingerMs).unref();
  }

  /** Records queued or being written. */
  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  /** Waits until every queued record is written or dropped (tests; close). */
  flush(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking records and waits for the queued ones, at most closeTimeoutMs; what is left is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.pump();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      this.flush(),
      new Promise<void>((r) => {
        timeout = setTimeout(r, this.limits.closeTimeoutMs);
      }),
    ]);
    clearTimeout(timeout);
    clearTimeout(this.timer);
    if (this.queue.length > 0) {
      this.logger.warn({ records: this.queue.length }, 'login records not written before shutdown: dropped');
      this.count('dropped', this.queue.length);
      this.queue.length = 0;
    }
    this.settleIfIdle();
  }

  private pump(): void {
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait).unref();
      return;
    }
    while (this.inFlight < this.limits.writers && this.queue.length > 0) {
      const next = this.queue.shift() as QueuedRecord;
      this.inFlight++;
      void this.write(next).finally(() => {
        this.inFlight--;
        this.pump();
        this.settleIfIdle();
      });
    }
  }

  private settleIfIdle(): void {
    if (this.pending > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async write(r: QueuedRecord): Promise<void> {
    r.tries++;
    try {
      await this.rest.createUnread(LOGIN_RECORDS_PATH, loginRecord(r));
    } catch (err) {
      const message = (err as Error).message;
      if (isPermanent(err) || r.tries >= this.limits.maxAttempts) {
        this.count('failed');
        this.logger.warn({ user: r.user, tries: r.tries, err: message }, 'could not write login record');
        return;
      }
      if (this.closed) {
        this.count('dropped');
        return;
      }
      // Back at the front, and every writer pauses (the cluster is likely down for all); the writes that fail
      // together, in flight at once, count as one failure for the backoff.
      this.queue.unshift(r);
      const now = Date.now();
      if (this.pausedUntil <= now) {
        this.pausedUntil = now + this.backoff;
        this.backoff = Math.min(this.backoff * 2, this.limits.maxBackoffMs);
      }
      this.logger.debug({ user: r.user, err: message }, 'login record write failed; retrying');
      return;
    }
    this.backoff = this.limits.backoffMs;
    this.count('written');
    if (r.attempt.success && r.onLoggedIn) await this.loggedIn(r.user, r.onLoggedIn);
  }

  /** Runs `update` unless one of the user's is running, which then runs the latest waiting after itself. */
  private async loggedIn(user: string, update: () => Promise<unknown>): Promise<void> {
    const running = this.loggingIn.get(user);
    if (running) {
      running.next = update;
      return;
    }
    const slot: { next?: () => Promise<unknown> } = { next: update };
    this.loggingIn.set(user, slot);
    try {
      for (let run = slot.next; run; run = slot.next) {
        slot.next = undefined;
        try {
          await run();
        } catch (err) {
          this.logger.warn({ user, err: (err as Error).message }, 'could not update last login time');
        }
      }
    } finally {
      this.loggingIn.delete(user);
    }
  }
}

function loginRecord(r: QueuedRecord) {
  const { user: name, uid, attempt: a } = r;
  return {
    apiVersion: `${IAM_GROUP}/${IAM_VERSION}`,
    kind: 'LoginRecord',
    metadata: {
      // Named by the cluster, as KubeSphere's are (<user>-<5 random characters>): a fresh name per try.
      generateName: `${name}-`,
      labels: { [USER_REF_LABEL]: name },
      ownerReferences: uid
        ? [{ apiVersion: `${IAM_GROUP}/${IAM_VERSION}`, kind: 'User', name, uid }]
        : undefined,
    },
    spec: {
      type: a.type ?? 'Token',
      provider: a.provider ?? '',
      sourceIP: a.sourceIP,
      userAgent: a.userAgent.slice(0, 1024),
      success: a.success,
      reason: a.reason,
    },
  };
}

export { kubeTime };
