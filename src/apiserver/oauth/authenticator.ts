// Password authentication with brute-force protection. KubeSphere's rules (reference "POST /oauth/token" step 5):
// unknown user and wrong password are the same answer after the same work (one bcrypt comparison, one failure
// counted); past authenticateRateLimiterMaxTries failures within authenticateRateLimiterDuration the login name is
// locked for that duration (429, user state AuthLimitExceeded). A disabled account is only revealed to someone who
// knows its password.
// kapiserver adds per-source throttling, so that the lockout is no denial-of-service weapon (anyone could lock
// `admin` with ten wrong passwords) and one address cannot guess across many users:
//  - a source (./login-source.ts) with SOURCE_FAILURE_FACTOR x maxTries failures within the window is throttled
//    for the window: every password login from it gets 429 with Retry-After, whatever the user;
//  - while a user is locked, a source that has failed within the window gets 429 with Retry-After; a source that has
//    not been failing still gets its password checked: the right one logs in, a wrong one answers 429 (and makes
//    that source a failing one). So an attacker who locked a user keeps themselves out, not the user.
import type { Logger } from 'pino';
import type { AuthenticationOptions } from '../../config/index.ts';
import { type Clock, systemClock } from '../clock.ts';
import type { LoginRecorder } from '../iam/loginrecords.ts';
import { verifyPassword } from '../iam/password.ts';
import { kubeTime, type UserObject, type Users } from '../iam/users.ts';
import { DESCRIPTIONS, invalidGrant } from './errors.ts';
import { loginSource } from './login-source.ts';
import type { TokenStore } from './store/index.ts';

export interface ClientInfo {
  sourceIP: string;
  userAgent: string;
}

/**
 * Which way a password came, as KubeSphere records it: the password grant records every attempt (LoginRecord type
 * `Token`) and stamps lastLoginTime; HTTP Basic on an API call records only its failures (type `Password`), since a
 * Basic client sends its password with every call.
 */
export type PasswordLogin = 'grant' | 'basic';

/** Longest login name looked up (Kubernetes object names are at most 253 characters; e-mail addresses 254). */
const MAX_LOGIN_LENGTH = 254;
const LAST_LOGIN_MIN_INTERVAL_MS = 5000;
/** Users whose last lastLoginTime write is remembered; past it, those older than the interval are forgotten. */
const MAX_LAST_LOGINS_KEPT = 1024;
/** A source may fail this many times the per-user limit (several users may share one address, e.g. behind NAT). */
const SOURCE_FAILURE_FACTOR = 5;

/** The token store subject a login name's failures and lock are kept under: the user's name, or the name as typed. */
function userSubject(login: string, user: UserObject | undefined): string {
  return `user:${user?.metadata.name ?? login}`;
}

export class PasswordAuthenticator {
  /** When each user's lastLoginTime write was last queued (epoch ms). */
  private readonly lastLoginQueued = new Map<string, number>();

  constructor(
    private readonly users: Users,
    private readonly store: TokenStore,
    private readonly recorder: LoginRecorder,
    private readonly options: () => AuthenticationOptions,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Epoch ms until which the login name is locked out (store lock, or a user whose status says so), or undefined. */
  async lockedUntil(login: string, user: UserObject | undefined): Promise<number | undefined> {
    return (await this.store.lockedUntil(userSubject(login, user))) ?? this.statusLock(user);
  }

  /** Until when the user's status says its lockout lasts (AuthLimitExceeded), or undefined. */
  private statusLock(user: UserObject | undefined): number | undefined {
    if (user?.status?.state === 'AuthLimitExceeded') {
      const since = Date.parse(user.status.lastTransitionTime ?? '') || 0;
      const until = since + this.options().authenticateRateLimiterDuration;
      if (until > this.clock.now()) return until;
    }
    return undefined;
  }

  /** The user when `password` is theirs and they may log in; otherwise throws the RFC 6749 error to answer. */
  async authenticate(
    login: string,
    password: string,
    client: ClientInfo,
    via: PasswordLogin = 'grant',
  ): Promise<UserObject> {
    if (!login || !password || login.length > MAX_LOGIN_LENGTH) {
      throw invalidGrant(DESCRIPTIONS.incorrectPassword);
    }
    const opts = this.options();
    const window = opts.authenticateRateLimiterDuration;
    const sourceAddress = loginSource(client.sourceIP);
    const source = `source:${sourceAddress}`;
    const user = this.users.lookup(login);
    const key = user?.metadata.name ?? login;
    const subject = userSubject(login, user);
    // Both locks read at once (one Redis MGET); the failure counters are touched only on a failure.
    const [sourceLock, storedUserLock] = await this.store.lockedUntilEach([source, subject]);
    const userLock = storedUserLock ?? this.statusLock(user);
    if (sourceLock !== undefined)
      throw this.throttled('too many failed logins from this address', sourceLock);
    if (userLock !== undefined && (await this.store.failureCount(source, window)) > 0) {
      throw this.throttled(DESCRIPTIONS.rateLimited, userLock);
    }

    if (!(await verifyPassword(password, user?.spec?.password))) {
      const sourceFailures = await this.store.recordFailure(source, window);
      if (sourceFailures >= opts.authenticateRateLimiterMaxTries * SOURCE_FAILURE_FACTOR) {
        await this.store.lock(source, window);
        this.logger.warn({ source: sourceAddress }, 'too many failed logins: source throttled');
      }
      const failures = await this.store.recordFailure(subject, window);
      if (failures >= opts.authenticateRateLimiterMaxTries) {
        await this.store.lock(subject, window);
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
      if (user) {
        const type = via === 'basic' ? 'Password' : 'Token';
        this.recorder.record(user, {
          success: false,
          reason: DESCRIPTIONS.incorrectPassword,
          type,
          ...client,
        });
      }
      if (userLock !== undefined) throw this.throttled(DESCRIPTIONS.rateLimited, userLock);
      throw invalidGrant(DESCRIPTIONS.incorrectPassword);
    }
    const state = user?.status?.state;
    if (!user || (state !== undefined && state !== 'Active' && state !== 'AuthLimitExceeded')) {
      throw invalidGrant(DESCRIPTIONS.notActive);
    }
    if (via === 'basic') return user;
    this.recorder.record(user, { success: true, reason: '', ...client }, this.lastLoginUpdate(user));
    return user;
  }

  /**
   * The write of the user's lastLoginTime after a successful login, or none: it has one-second precision, so during
   * a burst of logins it is written at most every few seconds, counted from the cached time or from the last write
   * queued here (the cache shows a write only once its event is back). A lockout that has passed always ends.
   */
  private lastLoginUpdate(user: UserObject): (() => Promise<unknown>) | undefined {
    const name = user.metadata.name;
    const state = user.status?.state;
    const now = this.clock.now();
    const last = Math.max(
      Date.parse(user.status?.lastLoginTime ?? '') || 0,
      this.lastLoginQueued.get(name) ?? 0,
    );
    if (state !== 'AuthLimitExceeded' && now - last <= LAST_LOGIN_MIN_INTERVAL_MS) return undefined;
    if (this.lastLoginQueued.size >= MAX_LAST_LOGINS_KEPT) {
      for (const [n, at] of this.lastLoginQueued)
        if (now - at > LAST_LOGIN_MIN_INTERVAL_MS) this.lastLoginQueued.delete(n);
    }
    this.lastLoginQueued.set(name, now);
    return () =>
      this.users.patchStatus(name, {
        lastLoginTime: kubeTime(),
        // A lockout that has passed ends with the first successful login.
        ...(state === 'AuthLimitExceeded'
          ? { state: 'Active' as const, reason: '', lastTransitionTime: kubeTime() }
          : {}),
      });
  }

  /** 429 with Retry-After (whole seconds until `until`, epoch ms). */
  private throttled(description: string, until: number) {
    const e = invalidGrant(description, 429);
    e.headers['retry-after'] = String(Math.max(1, Math.ceil((until - this.clock.now()) / 1000)));
    return e;
  }
}
