// In-memory token store: the default for a single replica. Expired entries are swept periodically.
import { type TokenStore, tokenKey } from './types.ts';

const SWEEP_INTERVAL_MS = 60_000;

export class MemoryTokenStore implements TokenStore {
  readonly kind = 'memory' as const;
  private readonly tokens = new Map<string, Map<string, number>>();
  private readonly failures = new Map<string, number[]>();
  private readonly locks = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async add(username: string, token: string, ttlMs: number): Promise<void> {
    let m = this.tokens.get(username);
    if (!m) {
      m = new Map();
      this.tokens.set(username, m);
    }
    m.set(tokenKey(token), ttlMs > 0 ? Date.now() + ttlMs : Number.POSITIVE_INFINITY);
  }

  async isActive(username: string, token: string): Promise<boolean> {
    const exp = this.tokens.get(username)?.get(tokenKey(token));
    return exp !== undefined && exp > Date.now();
  }

  async consume(username: string, token: string): Promise<boolean> {
    const m = this.tokens.get(username);
    const key = tokenKey(token);
    const exp = m?.get(key);
    if (exp === undefined) return false;
    m!.delete(key);
    return exp > Date.now();
  }

  async revoke(username: string, token: string): Promise<void> {
    this.tokens.get(username)?.delete(tokenKey(token));
  }

  async revokeAll(username: string): Promise<void> {
    this.tokens.delete(username);
  }

  async recordFailure(username: string, windowMs: number): Promise<number> {
    const now = Date.now();
    const list = (this.failures.get(username) ?? []).filter((t) => t > now - windowMs);
    list.push(now);
    this.failures.set(username, list);
    return list.length;
  }

  async lock(username: string, durationMs: number): Promise<void> {
    this.locks.set(username, Date.now() + durationMs);
    this.failures.delete(username);
  }

  async lockedUntil(username: string): Promise<number | undefined> {
    const until = this.locks.get(username);
    if (until === undefined) return undefined;
    if (until <= Date.now()) {
      this.locks.delete(username);
      return undefined;
    }
    return until;
  }

  async healthy(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [user, m] of this.tokens) {
      for (const [k, exp] of m) if (exp <= now) m.delete(k);
      if (m.size === 0) this.tokens.delete(user);
    }
    for (const [user, until] of this.locks) if (until <= now) this.locks.delete(user);
    // Failure lists are pruned on each new failure; drop the ones idle for a day so they cannot pile up.
    for (const [user, list] of this.failures) {
      if (list[list.length - 1] < now - 86_400_000) this.failures.delete(user);
    }
  }
}
