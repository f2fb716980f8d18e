// The token store: which tokens were issued and are still valid (so they can be revoked, and a single-login policy
// can supersede them), plus failed-login counters and lockouts. Two implementations, one contract
// (test/apiserver/oauth/tokenstore.conformance.ts): local (one replica; SQLite file or memory) and Redis (several replicas share it).
import { createHash } from 'node:crypto';

export interface TokenStore {
  readonly kind: 'local' | 'redis';
  /** Records an issued token for `ttlMs` (0 = until revoked). */
  add(username: string, token: string, ttlMs: number): Promise<void>;
  /**
   * Records the tokens of one issue together (one transaction, one round trip: a login's access and refresh token);
   * with `revokeOthers`, every other token of the user is revoked in the same step (single login).
   */
  addTokens(username: string, tokens: readonly IssuedToken[], revokeOthers?: boolean): Promise<void>;
  /** True when the token was recorded and has neither expired nor been revoked. */
  isActive(username: string, token: string): Promise<boolean>;
  /** Atomically removes an active token; true for exactly one caller (refresh-token rotation, reuse detection). */
  consume(username: string, token: string): Promise<boolean>;
  revoke(username: string, token: string): Promise<void>;
  /** Revokes every token of the user (logout, single-login policy, refresh-token reuse). */
  revokeAll(username: string): Promise<void>;
  // Failed-login counters and locks are kept per subject: a string the caller namespaces (the password
  // authenticator uses `user:<name>` and `source:<address>`).
  /** Records one failed login now; returns the failures within the last `windowMs`, this one included. */
  recordFailure(subject: string, windowMs: number): Promise<number>;
  /** The failures recorded within the last `windowMs`, recording none. */
  failureCount(subject: string, windowMs: number): Promise<number>;
  /** Locks the subject's logins for `durationMs` and clears the failure count (a fresh start once it passes). */
  lock(subject: string, durationMs: number): Promise<void>;
  /** Epoch ms until which the subject is locked, or undefined. */
  lockedUntil(subject: string): Promise<number | undefined>;
  /** lockedUntil of each subject, read at once (one Redis MGET: a login's source and user). */
  lockedUntilEach(subjects: readonly string[]): Promise<(number | undefined)[]>;
  // Short-lived records of the authorization flow (codes, pending authorizations, sign-in sessions), shared by every
  // replica. `id` is a secret (a code, a session id): it is stored as a digest, like tokens.
  /** Keeps `value` under (kind, id) for `ttlMs` (> 0), replacing any earlier one. */
  putRecord(kind: string, id: string, value: string, ttlMs: number): Promise<void>;
  /** The unexpired value under (kind, id), or undefined. */
  getRecord(kind: string, id: string): Promise<string | undefined>;
  deleteRecord(kind: string, id: string): Promise<void>;
  /** Atomically reads and removes the unexpired record: of callers racing for it, exactly one gets the value. */
  takeRecord(kind: string, id: string): Promise<string | undefined>;
  // A sole token: an owner holding one token at a time (a user's kubeconfig credential), with a state from which its
  // issuer derives that token again (no secret: the token needs the signing key), so every download returns it.
  /** The owner's unexpired sole-token state, or undefined. */
  soleTokenState(owner: string): Promise<string | undefined>;
  /**
   * When the owner's state is still `expected` (undefined: none), atomically makes `state` (not empty) its state and
   * `token` its only token (every other token of the owner is revoked), both for `ttlMs` (> 0), and returns true.
   * Otherwise changes nothing and returns false: another caller replaced it first.
   */
  replaceSoleToken(
    owner: string,
    expected: string | undefined,
    state: string,
    token: string,
    ttlMs: number,
  ): Promise<boolean>;
  /** True when the backing service answers (health gauge, readiness). */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** A token to record and its lifetime (ms; 0 = until revoked). */
export interface IssuedToken {
  token: string;
  ttlMs: number;
}

/**
 * The store's backing service did not answer in time (Redis down, unreachable or hung). Nothing can be decided
 * without it, so callers fail closed with 503 and Retry-After, never 500 and never a request left hanging.
 */
export class TokenStoreUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the token store is unavailable', { cause });
    this.name = 'TokenStoreUnavailableError';
  }
}

/** The record kind a sole token's state is kept under (by owner). */
export const SOLE_TOKEN_RECORD = 'sole-token';

/** The storage key of a record: its kind and the digest of its id. */
export function recordKey(kind: string, id: string): string {
  return `${kind}:${tokenKey(id)}`;
}

/** Tokens are stored as digests: a copy of the store (a Redis dump) does not hand out usable tokens. */
export function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Digests of the tokens isActive saw last, oldest first; a digest never changes, so nothing here goes stale. */
const activeKeys = new Map<string, string>();
const ACTIVE_KEYS_MAX = 1024;

/**
 * tokenKey for isActive, which every authenticated request asks, always with an id its caller has checked already
 * (a verified JWT, a stored session, a cached credential's digest), so junk never fills this: the sha256 per request
 * was ~2% of a forwarded GET's CPU (issue 17). Revocation is unaffected: the store is still asked every time.
 */
export function activeTokenKey(token: string): string {
  let key = activeKeys.get(token);
  if (key !== undefined) return key;
  key = tokenKey(token);
  if (activeKeys.size >= ACTIVE_KEYS_MAX) activeKeys.delete(activeKeys.keys().next().value as string);
  activeKeys.set(token, key);
  return key;
}
