// Password authentication with brute-force protection, KubeSphere's rules (reference "POST /oauth/token" step 5):
// unknown user and wrong password are the same answer after the same work (one bcrypt comparison, one failure
// counted); past authenticateRateLimiterMaxTries failures within authenticateRateLimiterDuration the login name is
// locked for that duration (429) and a correct password does not get through. A disabled account is only revealed
// to someone who knows its password.
import type { Logger } from 'pino';
import type { AuthenticationOptions } from '../../config/index.ts';
import type { LoginRecorder } from '../iam/loginrecords.ts';
import { verifyPassword } from '../iam/password.ts';
import { kubeTime, type UserObject, type Users } from '../iam/users.ts';
import { DESCRIPTIONS, invalidGrant } from './errors.ts';
import type { TokenStore } from './store/index.ts';

export interface ClientInfo {
  sourceIP: string;
  userAgent: string;
}

/** Longest login name looked up (Kubernetes object names are at most 253 characters; e-mail addresses 254). */
const MAX_LOGIN_LENGTH = 254;
const LAST_LOGIN_MIN_INTERVAL_MS = 5000;

export class PasswordAuthenticator {
  constructor(
    private readonly users: Users,
    private readonly store: TokenStore,
    private readonly recorder: LoginRecorder,
    private readonly options: () => AuthenticationOptions,
    private readonly logger: Logger,
  ) {}

  /** True while the login name is locked out (store lock, or a user whose status says so within the window). */
  async isLocked(login: string, user: UserObject | undefined): Promise<boolean> {
    if ((await this.store.lockedUntil(user?.metadata.name ?? login)) !== undefined) return true;
    if (user?.status?.state === 'AuthLimitExceeded') {
      const since = Date.parse(user.status.lastTransitionTime ?? '') || 0;
      return since + this.options().authenticateRateLimiterDuration > Date.now();
    }
    return false;
  }

  /** The user when `password` is theirs and they may log in; otherwise throws the RFC 6749 error to answer. */
  async authenticate(login: string, password: string, client: ClientInfo): Promise<UserObject> {
    if (!login || !password || login.length > MAX_LOGIN_LENGTH) {
      throw invalidGrant(DESCRIPTIONS.incorrectPassword);
    }
    const user = this.users.lookup(login);
    const key = user?.metadata.name ?? login;
    if (await this.isLocked(login, user)) throw invalidGrant(DESCRIPTIONS.rateLimited, 429);

    if (!(await verifyPassword(password, user?.spec?.password))) {
      const opts = this.options();
      const failures = await this.store.recordFailure(key, opts.authenticateRateLimiterDuration);
      if (failures >= opts.authenticateRateLimiterMaxTries) {
        await this.store.lock(key, opts.authenticateRateLimiterDuration);
        if (user) {
          this.logger.warn({ user: key }, 'too many failed logins: user locked');
          this.users
            .patchStatus(key, {
              state: 'AuthLimitExceeded',
              reason: 'too many failed login attempts',
              lastTransitionTime: kubeTime(),
            })
            .catch((err: Error) =>
              this.logger.warn({ user: key, err: err.message }, 'could not mark user locked'),
            );
        }
      }
      if (user)
        this.recorder.record(user, { success: false, reason: DESCRIPTIONS.incorrectPassword, ...client });
      throw invalidGrant(DESCRIPTIONS.incorrectPassword);
    }
    const state = user?.status?.state;
    if (!user || (state !== undefined && state !== 'Active' && state !== 'AuthLimitExceeded')) {
      throw invalidGrant(DESCRIPTIONS.notActive);
    }
    // lastLoginTime has one-second precision; during a burst of logins it is written at most every few seconds.
    const last = Date.parse(user.status?.lastLoginTime ?? '') || 0;
    const touch = state === 'AuthLimitExceeded' || Date.now() - last > LAST_LOGIN_MIN_INTERVAL_MS;
    this.recorder.record(user, { success: true, reason: '', ...client }, async () => {
      if (!touch) return;
      await this.users.patchStatus(user.metadata.name, {
        lastLoginTime: kubeTime(),
        // A lockout that has passed ends with the first successful login.
        ...(state === 'AuthLimitExceeded'
          ? { state: 'Active' as const, reason: '', lastTransitionTime: kubeTime() }
          : {}),
      });
    });
    return user;
  }
}
