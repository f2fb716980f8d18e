// Authorization codes (RFC 6749 4.1.2, RFC 7636). A code is 256 random bits, kept as a digest in the token store
// (shared by every replica) with what it was issued for: user, client, redirect URI, PKCE challenge, nonce, scopes.
// It lives CODE_TTL_MS, works once, and is also recorded as a token of its user, so a logout or a single-login
// policy (revokeAll) revokes it. A second use means the code leaked: every token of the user is revoked (4.1.2).
// Use is decided by the atomic consume of that token, not by taking the record: the record stays until it expires,
// so a reuse still names the user to revoke, and a wrong client's attempt does not destroy the rightful one's code.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidGrant } from './errors.ts';
import type { TokenStore } from './store/index.ts';

/** RFC 6749 4.1.2 recommends at most ten minutes. */
export const CODE_TTL_MS = 5 * 60_000;
const KIND = 'code';

export interface CodeGrant {
  username: string;
  uid?: string;
  cred: string;
  clientId: string;
  redirectUri: string;
  redirectUriGiven: boolean;
  codeChallenge?: string;
  nonce?: string;
  scopes: string[];
  /** Epoch seconds of the sign-in. */
  authTime: number;
  /** The OpenID Connect issuer when the code was issued (ID tokens carry it). */
  issuer: string;
}

export interface Redemption {
  clientId: string;
  redirectUri?: string;
  codeVerifier?: string;
}

/** RFC 7636 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

function s256(verifier: string): Buffer {
  return Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
}

export class AuthorizationCodes {
  constructor(private readonly store: TokenStore) {}

  async issue(grant: CodeGrant): Promise<string> {
    const code = randomBytes(32).toString('base64url');
    await this.store.putRecord(KIND, code, JSON.stringify(grant), CODE_TTL_MS);
    await this.store.add(grant.username, code, CODE_TTL_MS);
    return code;
  }

  /**
   * The grant when `code` is valid for this client, redirect URI and verifier, and unused; it is then used up.
   * Any mismatch is `invalid_grant` and leaves the code as it was (only its rightful client can use it).
   */
  async redeem(code: string, r: Redemption): Promise<CodeGrant> {
    const stored = code ? await this.store.getRecord(KIND, code) : undefined;
    if (!stored) throw invalidGrant('invalid authorization code: unknown or expired');
    const grant = JSON.parse(stored) as CodeGrant;
    if (grant.clientId !== r.clientId)
      throw invalidGrant('the authorization code was issued to another client');
    if (
      grant.redirectUriGiven
        ? r.redirectUri !== grant.redirectUri
        : r.redirectUri !== undefined && r.redirectUri !== grant.redirectUri
    ) {
      throw invalidGrant('redirect_uri does not match the authorization request');
    }
    if (grant.codeChallenge !== undefined) {
      if (!r.codeVerifier)
        throw invalidGrant('code_verifier is required (the authorization request used PKCE)');
      if (!VERIFIER.test(r.codeVerifier)) throw invalidGrant('code_verifier is malformed');
      const expected = Buffer.from(grant.codeChallenge);
      const actual = s256(r.codeVerifier);
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
        throw invalidGrant('code_verifier does not match the code_challenge');
      }
    } else if (r.codeVerifier !== undefined) {
      throw invalidGrant('code_verifier was sent but the authorization request had no code_challenge');
    }
    if (!(await this.store.consume(grant.username, code))) {
      await this.store.revokeAll(grant.username);
      throw invalidGrant('invalid authorization code: already used or revoked');
    }
    return grant;
  }
}
