// The token store of a single replica: SQLite in the data directory, so issued tokens and lockouts survive a
// restart (the JWT key does too, and a valid token that the store forgot would be refused). `:memory:` keeps it in
// memory only. WAL with synchronous=NORMAL: a revocation that returned survives a crash of the process.
// Every authenticated request asks isActive, and every password login lockedUntil (twice), so the active tokens and
// the locks are also held in memory (loaded at start, written through): this process is the file's only writer, so
// the copies are always exact and reads never touch SQLite.
import Database from 'better-sqlite3';
import { type Clock, systemClock } from '../../clock.ts';
import {
  activeTokenKey,
  type IssuedToken,
  recordKey,
  SOLE_TOKEN_RECORD,
  type TokenStore,
  tokenKey,
} from './types.ts';

const SWEEP_INTERVAL_MS = 60_000;
/** Failure rows idle this long are dropped; no configured window is longer. */
const FAILURE_RETENTION_MS = 86_400_000;

export class LocalTokenStore implements TokenStore {
  readonly kind = 'local' as const;
  private readonly db: Database.Database;
  private readonly stmts;
  /** One transaction: the user's other tokens revoked (when asked), then each [digest, expiry] added. */
  private readonly addAll: (user: string, entries: [string, number][], revokeOthers: boolean) => void;
  private readonly timer: NodeJS.Timeout;
  /** user -> token digest -> expiry (epoch ms; Infinity = until revoked). */
  private readonly active = new Map<string, Map<string, number>>();
  /** subject -> locked until (epoch ms). */
  private readonly locks = new Map<string, number>();

  /** `path`: a file (created when missing) or `:memory:`. */
  constructor(
    path = ':memory:',
    private readonly clock: Clock = systemClock,
  ) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS tokens (user TEXT NOT NULL, key TEXT NOT NULL, expires REAL NOT NULL,
        PRIMARY KEY (user, key)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS failures (user TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS failures_user ON failures (user, at);
      CREATE TABLE IF NOT EXISTS locks (user TEXT PRIMARY KEY, until INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER NOT NULL)
        WITHOUT ROWID;
    `);
    const db = this.db;
    this.stmts = {
      add: db.prepare('INSERT OR REPLACE INTO tokens (user, key, expires) VALUES (?, ?, ?)'),
      load: db.prepare('SELECT user, key, expires FROM tokens WHERE expires > ?'),
      revoke: db.prepare('DELETE FROM tokens WHERE user = ? AND key = ?'),
      revokeAll: db.prepare('DELETE FROM tokens WHERE user = ?'),
      addFailure: db.prepare('INSERT INTO failures (user, at) VALUES (?, ?)'),
      pruneFailures: db.prepare('DELETE FROM failures WHERE user = ? AND at <= ?'),
      countFailures: db.prepare('SELECT count(*) FROM failures WHERE user = ?').pluck(),
      countRecentFailures: db.prepare('SELECT count(*) FROM failures WHERE user = ? AND at > ?').pluck(),
      clearFailures: db.prepare('DELETE FROM failures WHERE user = ?'),
      lock: db.prepare('INSERT OR REPLACE INTO locks (user, until) VALUES (?, ?)'),
      loadLocks: db.prepare('SELECT user, until FROM locks WHERE until > ?'),
      sweepTokens: db.prepare('DELETE FROM tokens WHERE expires <= ?'),
      sweepLocks: db.prepare('DELETE FROM locks WHERE until <= ?'),
      sweepFailures: db.prepare('DELETE FROM failures WHERE at <= ?'),
      putRecord: db.prepare('INSERT OR REPLACE INTO records (key, value, expires) VALUES (?, ?, ?)'),
      getRecord: db.prepare('SELECT value FROM records WHERE key = ? AND expires > ?').pluck(),
      deleteRecord: db.prepare('DELETE FROM records WHERE key = ?'),
      // One statement: the row is read and removed together, so no second caller (or process) can read it too.
      takeRecord: db.prepare('DELETE FROM records WHERE key = ? RETURNING value, expires'),
      sweepRecords: db.prepare('DELETE FROM records WHERE expires <= ?'),
    };
    this.addAll = db.transaction((user: string, entries: [string, number][], revokeOthers: boolean) => {
      if (revokeOthers) this.stmts.revokeAll.run(user);
      for (const [key, expires] of entries) this.stmts.add.run(user, key, expires);
    });
    for (const row of this.stmts.load.all(this.clock.now()) as {
      user: string;
      key: string;
      expires: number;
    }[]) {
      this.tokensOf(row.user).set(row.key, row.expires);
    }
    for (const row of this.stmts.loadLocks.all(this.clock.now()) as { user: string; until: number }[]) {
      this.locks.set(row.user, row.until);
    }
    this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  add(username: string, token: string, ttlMs: number): Promise<void> {
    return this.addTokens(username, [{ token, ttlMs }]);
  }

  async addTokens(username: string, tokens: readonly IssuedToken[], revokeOthers = false): Promise<void> {
    const now = this.clock.now();
    // SQLite REAL holds Infinity: "until revoked".
    const entries = tokens.map(({ token, ttlMs }): [string, number] => [
      tokenKey(token),
      ttlMs > 0 ? now + ttlMs : Number.POSITIVE_INFINITY,
    ]);
    this.addAll(username, entries, revokeOthers);
    if (revokeOthers) this.active.delete(username);
    const m = this.tokensOf(username);
    for (const [key, expires] of entries) m.set(key, expires);
  }

  async isActive(username: string, token: string): Promise<boolean> {
    return (this.active.get(username)?.get(activeTokenKey(token)) ?? 0) > this.clock.now();
  }

  async consume(username: string, token: string): Promise<boolean> {
    // Checked and removed synchronously: a second caller finds it gone.
    const key = tokenKey(token);
    const expires = this.active.get(username)?.get(key);
    if (expires === undefined) return false;
    this.forget(username, key);
    return expires > this.clock.now();
  }

  async revoke(username: string, token: string): Promise<void> {
    this.forget(username, tokenKey(token));
  }

  async revokeAll(username: string): Promise<void> {
    this.stmts.revokeAll.run(username);
    this.active.delete(username);
  }

  async recordFailure(username: string, windowMs: number): Promise<number> {
    const now = this.clock.now();
    this.stmts.pruneFailures.run(username, now - windowMs);
    this.stmts.addFailure.run(username, now);
    return this.stmts.countFailures.get(username) as number;
  }

  async failureCount(subject: string, windowMs: number): Promise<number> {
    return this.stmts.countRecentFailures.get(subject, this.clock.now() - windowMs) as number;
  }

  async lock(username: string, durationMs: number): Promise<void> {
    const until = this.clock.now() + durationMs;
    this.db.transaction(() => {
      this.stmts.lock.run(username, until);
      this.stmts.clearFailures.run(username);
    })();
    this.locks.set(username, until);
  }

  async lockedUntil(subject: string): Promise<number | undefined> {
    return (await this.lockedUntilEach([subject]))[0];
  }

  async lockedUntilEach(subjects: readonly string[]): Promise<(number | undefined)[]> {
    const now = this.clock.now();
    return subjects.map((subject) => {
      const until = this.locks.get(subject);
      return until !== undefined && until > now ? until : undefined;
    });
  }

  async putRecord(kind: string, id: string, value: string, ttlMs: number): Promise<void> {
    this.stmts.putRecord.run(recordKey(kind, id), value, this.clock.now() + ttlMs);
  }

  async getRecord(kind: string, id: string): Promise<string | undefined> {
    return this.stmts.getRecord.get(recordKey(kind, id), this.clock.now()) as string | undefined;
  }

  async deleteRecord(kind: string, id: string): Promise<void> {
    this.stmts.deleteRecord.run(recordKey(kind, id));
  }

  async takeRecord(kind: string, id: string): Promise<string | undefined> {
    const row = this.stmts.takeRecord.get(recordKey(kind, id)) as
      | { value: string; expires: number }
      | undefined;
    return row && row.expires > this.clock.now() ? row.value : undefined;
  }

  async soleTokenState(owner: string): Promise<string | undefined> {
    return this.getRecord(SOLE_TOKEN_RECORD, owner);
  }

  async replaceSoleToken(
    owner: string,
    expected: string | undefined,
    state: string,
    token: string,
    ttlMs: number,
  ): Promise<boolean> {
    const now = this.clock.now();
    const stateKey = recordKey(SOLE_TOKEN_RECORD, owner);
    const key = tokenKey(token);
    const expires = now + ttlMs;
    // Compared and written in one synchronous transaction: no other caller runs in between.
    const replaced = this.db.transaction(() => {
      const current = this.stmts.getRecord.get(stateKey, now) as string | undefined;
      if (current !== expected) return false;
      this.stmts.putRecord.run(stateKey, state, expires);
      this.stmts.revokeAll.run(owner);
      this.stmts.add.run(owner, key, expires);
      return true;
    })();
    if (replaced) this.active.set(owner, new Map([[key, expires]]));
    return replaced;
  }

  async healthy(): Promise<boolean> {
    return this.db.open;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.db.open) this.db.close();
  }

  private tokensOf(username: string): Map<string, number> {
    let m = this.active.get(username);
    if (!m) {
      m = new Map();
      this.active.set(username, m);
    }
    return m;
  }

  /** Removes one token, on disk first: a removal that returned is never undone by a crash. */
  private forget(username: string, key: string): void {
    this.stmts.revoke.run(username, key);
    const m = this.active.get(username);
    m?.delete(key);
    if (m?.size === 0) this.active.delete(username);
  }

  private sweep(): void {
    const now = this.clock.now();
    this.stmts.sweepTokens.run(now);
    for (const [user, m] of this.active) {
      for (const [key, expires] of m) if (expires <= now) m.delete(key);
      if (m.size === 0) this.active.delete(user);
    }
    this.stmts.sweepLocks.run(now);
    for (const [subject, until] of this.locks) if (until <= now) this.locks.delete(subject);
    this.stmts.sweepRecords.run(now);
    this.stmts.sweepFailures.run(now - FAILURE_RETENTION_MS);
  }
}
