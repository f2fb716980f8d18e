// Brute-force protection for password providers (/oauth/login/{idp}), with the password grant's rules
// (../authenticator.ts): a source with too many failures is throttled for the window whatever the login, and it
// shares its counter with the password grant, so switching endpoints buys nothing; a login with maxTries failures
// is locked for the window, but only for sources that have been failing, so a locked-out attacker cannot lock the
// real user out too. The provider's own lockout policy still applies upstream.
import type { AuthenticationOptions } from '../../../config/index.ts';
import type { Clock } from '../../clock.ts';
import { DESCRIPTIONS, invalidGrant, type OAuthError } from '../errors.ts';
import { loginSource } from '../login-source.ts';
import type { TokenStore } from '../store/index.ts';

/** As the password grant: a source may fail this many times the per-login limit. */
const SOURCE_FAILURE_FACTOR = 5;

export class ProviderLoginThrottle {
  constructor(
    private readonly store: TokenStore,
    private readonly options: () => AuthenticationOptions,
    private readonly clock: Clock,
  ) {}

  private subjects(provider: string, login: string, sourceIP: string) {
    return { source: `source:${loginSource(sourceIP)}`, login: `idp:${provider}:${login.toLowerCase()}` };
  }

  /** Throws 429 when this source may not try this login now. */
  async check(provider: string, login: string, sourceIP: string): Promise<void> {
    const s = this.subjects(provider, login, sourceIP);
    // Both read at once (one Redis MGET, not two round trips in a row).
    const [sourceLock, loginLock] = await this.store.lockedUntilEach([s.source, s.login]);
    if (sourceLock !== undefined)
      throw this.throttled('too many failed logins from this address', sourceLock);
    const window = this.options().authenticateRateLimiterDuration;
    if (loginLock !== undefined && (await this.store.failureCount(s.source, window)) > 0) {
      throw this.throttled(DESCRIPTIONS.rateLimited, loginLock);
    }
  }

  /** Counts a refused password. */
  async failed(provider: string, login: string, sourceIP: string): Promise<void> {
    const s = this.subjects(provider, login, sourceIP);
    const { authenticateRateLimiterDuration: window, authenticateRateLimiterMaxTries: max } = this.options();
    if ((await this.store.recordFailure(s.source, window)) >= max * SOURCE_FAILURE_FACTOR) {
      await this.store.lock(s.source, window);
    }
    if ((await this.store.recordFailure(s.login, window)) >= max) await this.store.lock(s.login, window);
  }

  private throttled(description: string, until: number): OAuthError {
    const e = invalidGrant(description, 429);
    e.headers['retry-after'] = String(Math.max(1, Math.ceil((until - this.clock.now()) / 1000)));
    return e;
  }
}
