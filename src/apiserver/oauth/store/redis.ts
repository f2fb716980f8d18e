// Redis token store (kubesphere.yaml `redis` section) for several replicas. Per user name:
//   kubesphere:user:<name>:tokens          sorted set: token digest -> expiry (ms; +inf = until revoked)
// and per login subject (`user:<name>`, `source:<address>`):
//   kapiserver:login-failures:<subject>    sorted set: failure id -> time (ms), expires with the window
//   kapiserver:login-lock:<subject>        string: locked-until (ms), expires with the lock
// and per authorization-flow record (./types.ts recordKey):
//   kapiserver:oauth-record:<kind>:<digest> string: "<expiry ms> <value>", expires with the record
// (a sole token's state is the record of kind `sole-token` whose id is its owner).
// Multi-step updates are Lua scripts, so two replicas never interleave inside one.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisOptions } from '../../../config/index.ts';
import { type Clock, systemClock } from '../../clock.ts';
import {
  activeTokenKey,
  type IssuedToken,
  recordKey,
  SOLE_TOKEN_RECORD,
  type TokenStore,
  TokenStoreUnavailableError,
  tokenKey,
} from './types.ts';

// ARGV: now (ms), '1' to revoke the user's other tokens, then each token's digest and expiry (ms or 'inf').
const ADD = `
if ARGV[2] == '1' then redis.call('DEL', KEYS[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
for i = 3, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i]) end
local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if top[2] == 'inf' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIREAT', KEYS[1], math.ceil(tonumber(top[2]))) end
return 1`;

const CONSUME = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
if score == 'inf' or tonumber(score) > tonumber(ARGV[2]) then return 1 end
return 0`;

const TAKE = `
local v = redis.call('GET', KEYS[1])
if v then redis.call('DEL', KEYS[1]) end
return v`;

// KEYS: the state record, the owner's tokens. ARGV: expected state ('' = none), "<expiry> <state>", token digest,
// expiry (ms), now (ms). The current state counts only while unexpired by the store's clock, as in getRecord.
const REPLACE_SOLE = `
local cur = redis.call('GET', KEYS[1])
local live = ''
if cur then
  local space = string.find(cur, ' ', 1, true)
  if tonumber(string.sub(cur, 1, space - 1)) > tonumber(ARGV[5]) then live = string.sub(cur, space + 1) end
end
if live ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('DEL', KEYS[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
return 1`;

const FAIL = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])`;

/**
 * Longest a store call waits for Redis (queued while reconnecting, or sent to a Redis that does not answer): a login
 * or a bearer check then answers 503 well within a client's patience instead of hanging.
 */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** ioredis (~170 modules, ~19 MB resident) is loaded only when a `redis` section configures this store. */
const loadIoredis = () => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

const tokensKey = (u: string) => `kubesphere:user:${u}:tokens`;
const failuresKey = (subject: string) => `kapiserver:login-failures:${subject}`;
const lockKey = (subject: string) => `kapiserver:login-lock:${subject}`;
const oauthRecordKey = (kind: string, id: string) => `kapiserver:oauth-record:${recordKey(kind, id)}`;

export class RedisTokenStore implements TokenStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;

  constructor(
    opts: RedisOptions,
    logger?: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    const { Redis } = loadIoredis();
    this.redis = new Redis({
      host: opts.host,
      port: opts.port,
      password: opts.password || undefined,
      db: opts.db,
      lazyConnect: false,
      // Commands wait (queued while reconnecting) at most REDIS_COMMAND_TIMEOUT_MS, then fail: requests answer 503
      // fast while Redis is down or hung, and a reconnect shorter than that goes unnoticed.
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      connectTimeout: 2000,
    });
    let lastError = '';
    this.redis.on('error', (err: Error) => {
      // Log each distinct connection problem once, not once per retry.
      if (err.message !== lastError) logger?.warn({ err: err.message }, 'redis token store error');
      lastError = err.message;
    });
    this.redis.on('ready', () => {
      lastError = '';
    });
    this.redis.defineCommand('ksAddToken', { numberOfKeys: 1, lua: ADD });
    this.redis.defineCommand('ksConsumeToken', { numberOfKeys: 1, lua: CONSUME });
    this.redis.defineCommand('ksLoginFailure', { numberOfKeys: 1, lua: FAIL });
    this.redis.defineCommand('ksTakeRecord', { numberOfKeys: 1, lua: TAKE });
    this.redis.defineCommand('ksReplaceSoleToken', { numberOfKeys: 2, lua: REPLACE_SOLE });
  }

  private call(name: string, ...args: (string | number)[]): Promise<unknown> {
    const fn = (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[
      name
    ];
    return fn.apply(this.redis, args);
  }

  add(username: string, token: string, ttlMs: number): Promise<void> {
    return this.addTokens(username, [{ token, ttlMs }]);
  }

  async addTokens(username: string, tokens: readonly IssuedToken[], revokeOthers = false): Promise<void> {
    return this.guard(async () => {
      const now = this.clock.now();
      const args: (string | number)[] = [tokensKey(username), now, revokeOthers ? '1' : '0'];
      for (const { token, ttlMs } of tokens) args.push(tokenKey(token), ttlMs > 0 ? now + ttlMs : 'inf');
      await this.call('ksAddToken', ...args);
    });
  }

  async isActive(username: string, token: string): Promise<boolean> {
    return this.guard(async () => {
      const score = await this.redis.zscore(tokensKey(username), activeTokenKey(token));
      if (score === null) return false;
      return score === 'inf' || Number(score) > this.clock.now();
    });
  }

  async consume(username: string, token: string): Promise<boolean> {
    return this.guard(async () => {
      return (
        (await this.call('ksConsumeToken', tokensKey(username), tokenKey(token), this.clock.now())) === 1
      );
    });
  }

  async revoke(username: string, token: string): Promise<void> {
    return this.guard(async () => {
      await this.redis.zrem(tokensKey(username), tokenKey(token));
    });
  }

  async revokeAll(username: string): Promise<void> {
    return this.guard(async () => {
      await this.redis.del(tokensKey(username));
    });
  }

  async recordFailure(username: string, windowMs: number): Promise<number> {
    return this.guard(async () => {
      const id = `${this.clock.now()}-${randomBytes(6).toString('hex')}`;
      return Number(await this.call('ksLoginFailure', failuresKey(username), this.clock.now(), windowMs, id));
    });
  }

  async failureCount(subject: string, windowMs: number): Promise<number> {
    return this.guard(async () => {
      const now = this.clock.now();
      return this.redis.zcount(failuresKey(subject), `(${now - windowMs}`, '+inf');
    });
  }

  async lock(username: string, durationMs: number): Promise<void> {
    return this.guard(async () => {
      await this.redis
        .multi()
        .set(lockKey(username), String(this.clock.now() + durationMs), 'PX', Math.max(1, durationMs))
        .del(failuresKey(username))
        .exec();
    });
  }

  async lockedUntil(subject: string): Promise<number | undefined> {
    return (await this.lockedUntilEach([subject]))[0];
  }

  async lockedUntilEach(subjects: readonly string[]): Promise<(number | undefined)[]> {
    return this.guard(async () => {
      const values = await this.redis.mget(subjects.map(lockKey));
      const now = this.clock.now();
      return values.map((v) => {
        const until = v === null ? 0 : Number(v);
        return until > now ? until : undefined;
      });
    });
  }

  async putRecord(kind: string, id: string, value: string, ttlMs: number): Promise<void> {
    return this.guard(async () => {
      const expires = this.clock.now() + ttlMs;
      await this.redis.set(
        oauthRecordKey(kind, id),
        `${expires} ${value}`,
        'PX',
        Math.max(1, Math.ceil(ttlMs)),
      );
    });
  }

  async getRecord(kind: string, id: string): Promise<string | undefined> {
    return this.guard(async () => {
      return this.unexpired(await this.redis.get(oauthRecordKey(kind, id)));
    });
  }

  async deleteRecord(kind: string, id: string): Promise<void> {
    return this.guard(async () => {
      await this.redis.del(oauthRecordKey(kind, id));
    });
  }

  async takeRecord(kind: string, id: string): Promise<string | undefined> {
    return this.guard(async () => {
      // One script (GETDEL needs Redis 6.2): read and removed together, so exactly one of racing replicas gets it.
      return this.unexpired((await this.call('ksTakeRecord', oauthRecordKey(kind, id))) as string | null);
    });
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
    return this.guard(async () => {
      const now = this.clock.now();
      const expires = Math.ceil(now + ttlMs);
      const replaced = await this.call(
        'ksReplaceSoleToken',
        oauthRecordKey(SOLE_TOKEN_RECORD, owner),
        tokensKey(owner),
        expected ?? '',
        `${expires} ${state}`,
        tokenKey(token),
        expires,
        now,
      );
      return replaced === 1;
    });
  }

  /** A stored "<expiry ms> <value>" as its value while unexpired. */
  private unexpired(stored: string | null): string | undefined {
    if (stored === null) return undefined;
    const space = stored.indexOf(' ');
    // The expiry is also checked here: it follows the store's clock, Redis's own expiry only collects garbage.
    return Number(stored.slice(0, space)) > this.clock.now() ? stored.slice(space + 1) : undefined;
  }

  /** Any failure of a store call is the store being unavailable (the scripts and commands themselves cannot fail). */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new TokenStoreUnavailableError(err);
    }
  }

  async healthy(): Promise<boolean> {
    // Not connected: no need to wait for a ping to time out.
    if (this.redis.status !== 'ready') return false;
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
