// The token store of a single replica: SQLite in the data directory, so issued tokens and lockouts survive a
// restart (the JWT key does too, and a valid token that the store forgot would be refused). `:memory:` keeps it in
// memory only. WAL with synchronous=NORMAL: a revocation that returned survives a crash of the process.
// Reads are indexed point lookups (a few microseconds), so every authenticated request can afford one.
import Database from 'better-sqlite3';
import { type TokenStore, tokenKey } from './types.ts';

const SWEEP_INTERVAL_MS = 60_000;
/** Failure rows idle this long are dropped; no configured window is longer. */
const FAILURE_RETENTION_MS = 86_400_000;

export class LocalTokenStore implements TokenStore {
  readonly kind = 'local' as const;
  private readonly db: Database.Database;
  private readonly stmts;
  private readonly timer: NodeJS.Timeout;

  /** `path`: a file (created when missing) or `:memory:`. */
  constructor(path = ':memory:') {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS tokens (user TEXT NOT NULL, key TEXT NOT NULL, expires REAL NOT NULL,
        PRIMARY KEY (user, key)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS failures (user TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS failures_user ON failures (user, at);
      CREATE TABLE IF NOT EXISTS locks (user TEXT PRIMARY KEY, until INTEGER NOT NULL) WITHOUT ROWID;
    `);
    const db = this.db;
    this.stmts = {
      add: db.prepare('INSERT OR REPLACE INTO tokens (user, key, expires) VALUES (?, ?, ?)'),
      active: db.prepare('SELECT 1 FROM tokens WHERE user = ? AND key = ? AND expires > ?').pluck(),
      consume: db.prepare('DELETE FROM tokens WHERE user = ? AND key = ? RETURNING expires').pluck(),
      revoke: db.prepare('DELETE FROM tokens WHERE user = ? AND key = ?'),
      revokeAll: db.prepare('DELETE FROM tokens WHERE user = ?'),
      addFailure: db.prepare('INSERT INTO failures (user, at) VALUES (?, ?)'),
      pruneFailures: db.prepare('DELETE FROM failures WHERE user = ? AND at <= ?'),
      countFailures: db.prepare('SELECT count(*) FROM failures WHERE user = ?').pluck(),
      clearFailures: db.prepare('DELETE FROM failures WHERE user = ?'),
      lock: db.prepare('INSERT OR REPLACE INTO locks (user, until) VALUES (?, ?)'),
      lockedUntil: db.prepare('SELECT until FROM locks WHERE user = ? AND until > ?').pluck(),
      sweepTokens: db.prepare('DELETE FROM tokens WHERE expires <= ?'),
      sweepLocks: db.prepare('DELETE FROM locks WHERE until <= ?'),
      sweepFailures: db.prepare('DELETE FROM failures WHERE at <= ?'),
    };
    this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async add(username: string, token: string, ttlMs: number): Promise<void> {
    // SQLite REAL holds Infinity: "until revoked".
    this.stmts.add.run(username, tokenKey(token), ttlMs > 0 ? Date.now() + ttlMs : Number.POSITIVE_INFINITY);
  }

  async isActive(username: string, token: string): Promise<boolean> {
    return this.stmts.active.get(username, tokenKey(token), Date.now()) !== undefined;
  }

  async consume(username: string, token: string): Promise<boolean> {
    // One statement: a second caller finds the row gone (better-sqlite3 runs statements one at a time).
    const expires = this.stmts.consume.get(username, tokenKey(token)) as number | undefined;
    return expires !== undefined && expires > Date.now();
  }

  async revoke(username: string, token: string): Promise<void> {
    this.stmts.revoke.run(username, tokenKey(token));
  }

  async revokeAll(username: string): Promise<void> {
    this.stmts.revokeAll.run(username);
  }

  async recordFailure(username: string, windowMs: number): Promise<number> {
    const now = Date.now();
    this.stmts.pruneFailures.run(username, now - windowMs);
    this.stmts.addFailure.run(username, now);
    return this.stmts.countFailures.get(username) as number;
  }

  async lock(username: string, durationMs: number): Promise<void> {
    this.db.transaction(() => {
      this.stmts.lock.run(username, Date.now() + durationMs);
      this.stmts.clearFailures.run(username);
    })();
  }

  async lockedUntil(username: string): Promise<number | undefined> {
    return this.stmts.lockedUntil.get(username, Date.now()) as number | undefined;
  }

  async healthy(): Promise<boolean> {
    return this.db.open;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.db.open) this.db.close();
  }

  private sweep(): void {
    const now = Date.now();
    this.stmts.sweepTokens.run(now);
    this.stmts.sweepLocks.run(now);
    this.stmts.sweepFailures.run(now - FAILURE_RETENTION_MS);
  }
}
