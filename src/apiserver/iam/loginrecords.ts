// LoginRecords (iam.kubesphere.io/v1alpha2, cluster-scoped): one per password login attempt of an existing user,
// named <user>-<random>, labelled with the user, owned by the user. Written by whichever replica served the login;
// pruned by the leader's login-record controller (controllers/loginrecords.ts).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeRest } from '../cluster/index.ts';
import { IAM_GROUP, IAM_VERSION } from '../crds/index.ts';
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

const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';

function suffix(): string {
  return [...randomBytes(5)].map((b) => LOWER[b % LOWER.length]).join('');
}

export class LoginRecorder {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly rest: KubeRest,
    private readonly logger: Logger,
  ) {}

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
  }

  /** Waits for background writes (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}

export { kubeTime };
