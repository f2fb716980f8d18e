// The user controller (KubeSphere runs it in ks-controller-manager): hashes plaintext spec.password, gives new users
// state Active, and returns AuthLimitExceeded users to Active once the lockout window has passed. Every replica
// runs it; conflicting writes lose with 409 and are retried from the next watch event.
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../cluster/index.ts';
import { hashPassword, isPasswordHashed } from './password.ts';
import { kubeTime, type UserObject, type Users } from './users.ts';

export class UserController {
  private readonly inFlight = new Set<string>();
  private readonly unlockTimers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly users: Users,
    private readonly lockoutMs: () => number,
    private readonly logger: Logger,
  ) {
    users.onChange((type, u) => {
      if (type === 'DELETED') this.clearTimer(u.metadata.name);
      else this.reconcile(u);
    });
  }

  private reconcile(u: UserObject): void {
    if (this.closed) return;
    const name = u.metadata.name;
    const needsHash =
      typeof u.spec?.password === 'string' && u.spec.password !== '' && !isPasswordHashed(u.spec.password);
    const needsState = !u.status?.state;
    if (needsHash || needsState) {
      const key = `${name}@${u.metadata.resourceVersion}`;
      if (this.inFlight.has(key)) return;
      this.inFlight.add(key);
      void this.update(u, needsHash).finally(() => this.inFlight.delete(key));
    }
    if (u.status?.state === 'AuthLimitExceeded') this.scheduleUnlock(u);
    else this.clearTimer(name);
  }

  private async update(u: UserObject, needsHash: boolean): Promise<void> {
    const next: UserObject = structuredClone(u);
    if (needsHash) next.spec = { ...next.spec, password: await hashPassword(String(u.spec?.password)) };
    if (!next.status?.state)
      next.status = { ...next.status, state: 'Active', lastTransitionTime: kubeTime() };
    try {
      await this.users.replace(next);
      if (needsHash) this.logger.info({ user: u.metadata.name }, 'hashed the plaintext password of a user');
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return; // a newer version arrives through the watch
      this.logger.warn({ user: u.metadata.name, err: (err as Error).message }, 'could not update user');
    }
  }

  private scheduleUnlock(u: UserObject): void {
    const name = u.metadata.name;
    this.clearTimer(name);
    const since = Date.parse(u.status?.lastTransitionTime ?? '') || 0;
    const wait = Math.max(0, since + this.lockoutMs() - Date.now());
    const timer = setTimeout(() => {
      this.unlockTimers.delete(name);
      const cur = this.users.get(name);
      if (cur?.status?.state !== 'AuthLimitExceeded') return;
      this.users
        .patchStatus(name, { state: 'Active', reason: '', lastTransitionTime: kubeTime() })
        .catch((err: Error) => this.logger.warn({ user: name, err: err.message }, 'could not unlock user'));
    }, wait);
    timer.unref();
    this.unlockTimers.set(name, timer);
  }

  private clearTimer(name: string): void {
    const t = this.unlockTimers.get(name);
    if (t) clearTimeout(t);
    this.unlockTimers.delete(name);
  }

  close(): void {
    this.closed = true;
    for (const t of this.unlockTimers.values()) clearTimeout(t);
    this.unlockTimers.clear();
  }
}
