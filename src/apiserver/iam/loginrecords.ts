// LoginRecords (iam.kubesphere.io/v1alpha2, cluster-scoped): one per password login attempt of an existing user,
// named <user>-<random>, labelled with the user, owned by the user. Pruned per user after each record (coalesced)
// and hourly across users: older than loginHistoryRetentionPeriod, or beyond loginHistoryMaximumEntries.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeObject, KubeRest, ObjectMeta } from '../cluster/index.ts';
import { IAM_GROUP, IAM_VERSION } from '../crds/index.ts';
import { kubeTime, type UserObject } from './users.ts';

export const LOGIN_RECORDS_PATH = `/apis/${IAM_GROUP}/${IAM_VERSION}/loginrecords`;
export const USER_REF_LABEL = 'iam.kubesphere.io/user-ref';

export interface LoginAttempt {
  success: boolean;
  reason: string;
  sourceIP: string;
  userAgent: string;
  type?: 'Token' | 'Password' | 'OAuth';
  provider?: string;
}

export interface LoginRecordObject extends KubeObject {
  metadata: ObjectMeta & { name: string };
  spec: {
    type: string;
    provider: string;
    sourceIP: string;
    userAgent: string;
    success: boolean;
    reason: string;
  };
}

const PRUNE_INTERVAL_MS = 3_600_000;
/** A user's records are pruned at most this often (a login storm lists them once a second, not once a login). */
const PRUNE_DELAY_MS = 1000;
const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';

function suffix(): string {
  return [...randomBytes(5)].map((b) => LOWER[b % LOWER.length]).join('');
}

export class LoginRecorder {
  private readonly pruning = new Map<string, { again: boolean }>();
  private readonly scheduled = new Map<string, NodeJS.Timeout>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly rest: KubeRest,
    private readonly limits: () => { retentionMs: number; maxEntries: number },
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => this.track(this.pruneAll()), PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  /** Writes the record and the user's lastLoginTime in the background (a login never waits on them). */
  record(user: UserObject, attempt: LoginAttempt, onLoggedIn?: () => Promise<unknown>): void {
    this.track(this.write(user, attempt, onLoggedIn));
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async write(user: UserObject, a: LoginAttempt, onLoggedIn?: () => Promise<unknown>): Promise<void> {
    const name = user.metadata.name;
    const record = {
      apiVersion: `${IAM_GROUP}/${IAM_VERSION}`,
      kind: 'LoginRecord',
      metadata: {
        name: `${name}-${suffix()}`,
        labels: { [USER_REF_LABEL]: name },
        ownerReferences: user.metadata.uid
          ? [{ apiVersion: `${IAM_GROUP}/${IAM_VERSION}`, kind: 'User', name, uid: user.metadata.uid }]
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
    try {
      await this.rest.create(LOGIN_RECORDS_PATH, record);
      if (a.success && onLoggedIn) await onLoggedIn();
    } catch (err) {
      this.logger.warn({ user: name, err: (err as Error).message }, 'could not write login record');
    }
    this.schedulePrune(name);
  }

  private schedulePrune(username: string): void {
    if (this.scheduled.has(username)) return;
    const timer = setTimeout(() => {
      this.scheduled.delete(username);
      this.track(this.prune(username));
    }, PRUNE_DELAY_MS);
    timer.unref();
    this.scheduled.set(username, timer);
  }

  /** Prunes one user's records; concurrent calls for the same user coalesce into at most one more run. */
  async prune(username: string): Promise<void> {
    const running = this.pruning.get(username);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: true };
    this.pruning.set(username, state);
    try {
      while (state.again) {
        state.again = false;
        const list = await this.rest.list<LoginRecordObject>(
          `${LOGIN_RECORDS_PATH}?labelSelector=${encodeURIComponent(`${USER_REF_LABEL}=${username}`)}`,
        );
        await this.deleteExcess(list.items);
      }
    } catch (err) {
      this.logger.warn({ user: username, err: (err as Error).message }, 'could not prune login records');
    } finally {
      this.pruning.delete(username);
    }
  }

  private async pruneAll(): Promise<void> {
    try {
      const list = await this.rest.list<LoginRecordObject>(LOGIN_RECORDS_PATH);
      const byUser = new Map<string, LoginRecordObject[]>();
      for (const r of list.items) {
        const u = r.metadata.labels?.[USER_REF_LABEL] ?? '';
        byUser.set(u, [...(byUser.get(u) ?? []), r]);
      }
      for (const items of byUser.values()) await this.deleteExcess(items);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not prune login records');
    }
  }

  private async deleteExcess(items: LoginRecordObject[]): Promise<void> {
    const { retentionMs, maxEntries } = this.limits();
    const cutoff = Date.now() - retentionMs;
    // Newest first: creation time, then resourceVersion (creation times have one-second precision).
    const sorted = [...items].sort((a, b) => {
      const t =
        Date.parse(b.metadata.creationTimestamp ?? '') - Date.parse(a.metadata.creationTimestamp ?? '');
      if (t !== 0) return t;
      const ra = a.metadata.resourceVersion ?? '';
      const rb = b.metadata.resourceVersion ?? '';
      return rb.length - ra.length || (rb > ra ? 1 : rb < ra ? -1 : 0);
    });
    const doomed = sorted.filter(
      (r, i) => i >= maxEntries || Date.parse(r.metadata.creationTimestamp ?? '') < cutoff,
    );
    for (const r of doomed) {
      try {
        await this.rest.delete(`${LOGIN_RECORDS_PATH}/${encodeURIComponent(r.metadata.name)}`);
      } catch {
        // Already gone (another replica pruned it).
      }
    }
  }

  /** Waits for background writes (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  close(): void {
    clearInterval(this.timer);
    for (const t of this.scheduled.values()) clearTimeout(t);
    this.scheduled.clear();
  }
}

export { kubeTime };
