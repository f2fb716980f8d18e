// Credentials verified recently, so that a client sending HTTP Basic on every call (client-go, KubeSphere's e2e
// tooling) pays one bcrypt comparison per TTL rather than one per call.
//  - Key: HMAC-SHA256 of login and password under a key drawn at random when the process starts. The password is
//    never kept, and a copy of the cache (or of the store) is no offline password verifier without that key.
//  - Value: who the credentials were verified for: name, uid and credential generation (./credentials.ts), the same
//    binding bearer tokens carry. The caller accepts a hit only while the live User still matches it (uid, password
//    hash) and may still log in (state, lock), so a password change, a disable, a deletion or a lockout ends every
//    hit at once once the informer has seen it.
//  - Before the informer has: each verified entry is also registered in the token store under the user, as a token
//    is, so kapiserver's own password changes, disables and deletions, which revoke every token of the user in the
//    store, end the entry at once on every replica.
//  - Bounded: at most MAX_ENTRIES (least recently used out first), each for at most TTL_MS.
import { createHmac, randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../clock.ts';
import type { UserObject } from '../iam/users.ts';
import { credentialGeneration } from './credentials.ts';
import type { TokenStore } from './store/index.ts';

export const VERIFIED_TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 10_000;
/** Prefix of the store entries (they share each user's token set; a JWT never starts with it). */
const STORE_PREFIX = 'basic:';

export interface VerifiedCredential {
  username: string;
  uid: string | undefined;
  /** credentialGeneration() of the User when the password was verified. */
  generation: string;
  expiresAt: number;
}

export class VerifiedCredentials {
  private readonly key = randomBytes(32);
  /** In least-recently-used order (a Map iterates in insertion order; a hit re-inserts). */
  private readonly entries = new Map<string, VerifiedCredential>();

  constructor(
    private readonly store: TokenStore,
    private readonly ttlMs = VERIFIED_TTL_MS,
    private readonly maxEntries = MAX_ENTRIES,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The cache key of a login and password. */
  digest(login: string, password: string): string {
    // Length-prefixed, so no two (login, password) pairs share an input.
    return createHmac('sha256', this.key).update(`${login.length}:${login}:${password}`).digest('base64url');
  }

  /** The entry under `digest`, while it is unexpired and not revoked in the store; undefined otherwise. */
  async find(digest: string): Promise<VerifiedCredential | undefined> {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    this.entries.delete(digest);
    if (entry.expiresAt <= this.clock.now()) return undefined;
    if (!(await this.store.isActive(entry.username, STORE_PREFIX + digest))) return undefined;
    this.entries.set(digest, entry);
    return entry;
  }

  /** Remembers that the credentials under `digest` are `user`'s current ones. */
  async remember(digest: string, user: UserObject): Promise<void> {
    const username = user.metadata.name;
    await this.store.add(username, STORE_PREFIX + digest, this.ttlMs);
    this.entries.delete(digest);
    this.entries.set(digest, {
      username,
      uid: user.metadata.uid,
      generation: credentialGeneration(user),
      expiresAt: this.clock.now() + this.ttlMs,
    });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  forget(digest: string): void {
    this.entries.delete(digest);
  }

  get size(): number {
    return this.entries.size;
  }
}
