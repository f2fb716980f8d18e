// Access and refresh tokens as KubeSphere issues them: HS256 JWTs signed with jwtSecret, claims `username`,
// `token_type`, `sub`, `iss`, `iat`, `exp` (absent when the lifetime is 0), optional `extra`; plus a random `jti`
// so two tokens issued in the same second differ (the token store keys on the token; a kubeconfig credential's is
// its epoch's, ./kubeconfig-credential.ts), and kapiserver's binding of
// the token to one User object and its credentials: `uid` and `cred` (see ./credentials.ts).
// Verification runs on every request and signing on every login, so both are a synchronous node:crypto HMAC with a
// key object made once (jose's goes through WebCrypto: key import plus an async job per call, several times the
// cost); verification is as strict as jose's jwtVerify.
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

/** `kubeconfig`: the long-lived credential of a downloaded kubeconfig (./tokens.ts), a bearer for API calls only. */
export type TokenType = 'access_token' | 'refresh_token' | 'kubeconfig';

export interface TokenClaims {
  username: string;
  tokenType: TokenType;
  issuer: string;
  issuedAt: number;
  /** Seconds since the epoch; undefined = never expires. */
  expiresAt?: number;
  extra?: Record<string, string[]>;
  /** metadata.uid of the User the token was issued to. */
  uid?: string;
  /** The credential generation of that User when the token was issued (./credentials.ts). */
  cred?: string;
}

/** A token that must be refused; `reason` is safe to show the client (it never contains the token). */
export class InvalidTokenError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'InvalidTokenError';
  }
}

export interface IssuerOptions {
  secret: string;
  /** Read on every call, so an issuer changed through the ClusterConfiguration applies at once. */
  issuer: () => string;
  /** Tolerance for `iat` in the future and for `exp` (ms). */
  clockSkewMs: () => number;
}

const TOKEN_TYPES = new Set(['access_token', 'refresh_token', 'kubeconfig']);
const HS256_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A base64url JSON object (a JWS header or JWT claims set), or undefined. */
export function decodeJsonObject(part: string): Record<string, unknown> | undefined {
  if (!BASE64URL.test(part)) return undefined;
  try {
    const v = JSON.parse(utf8.decode(Buffer.from(part, 'base64url'))) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Longer is no token of any kind kapiserver accepts, its own or a service account's. */
export const MAX_TOKEN_LENGTH = 8192;
const COMPACT_JWT = /^[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+$/;

/**
 * The claims of a compact JWT (three base64url parts, at most MAX_TOKEN_LENGTH, a JSON object payload), unverified;
 * undefined for anything else. Decoded once per foreign token and shared by the checks that read them.
 */
export function unverifiedClaims(token: string): Record<string, unknown> | undefined {
  const payload = token.length <= MAX_TOKEN_LENGTH ? COMPACT_JWT.exec(token)?.[1] : undefined;
  return payload === undefined ? undefined : decodeJsonObject(payload);
}

/** A token whose signature and claim shapes were verified (with this issuer's key). */
interface VerifiedToken {
  /** The raw `iss` claim, compared with the configured issuer on every use. */
  iss: unknown;
  notBefore?: number;
  claims: Readonly<TokenClaims>;
}

/** Verified tokens remembered per issuer; the oldest is forgotten first. */
const VERIFIED_CACHE_SIZE = 4096;

export class TokenIssuer {
  private readonly hmacKey: KeyObject;
  private readonly verified = new Map<string, VerifiedToken>();

  constructor(private readonly opts: IssuerOptions) {
    if (!opts.secret) throw new Error('jwt secret must not be empty');
    this.hmacKey = createSecretKey(new TextEncoder().encode(opts.secret));
  }

  /**
   * Signs a token of `ttlMs` lifetime (0 = no `exp`), issued now with a random `jti`; or at `issuedAt` (seconds)
   * with the given `jti`, which signs the same claims into the same token every time.
   */
  async issue(opts: {
    username: string;
    tokenType: TokenType;
    ttlMs: number;
    extra?: Record<string, string[]>;
    uid?: string;
    cred?: string;
    issuedAt?: number;
    jti?: string;
  }): Promise<{ token: string; claims: TokenClaims }> {
    const now = opts.issuedAt ?? Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = { username: opts.username, token_type: opts.tokenType };
    if (opts.extra && Object.keys(opts.extra).length > 0) payload.extra = opts.extra;
    if (opts.uid) payload.uid = opts.uid;
    if (opts.cred) payload.cred = opts.cred;
    payload.iss = this.opts.issuer();
    payload.sub = opts.username;
    payload.iat = now;
    payload.jti = opts.jti ?? randomBytes(12).toString('base64url');
    const expiresAt = opts.ttlMs > 0 ? now + Math.ceil(opts.ttlMs / 1000) : undefined;
    if (expiresAt !== undefined) payload.exp = expiresAt;
    const signingInput = `${HS256_HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    const token = `${signingInput}.${createHmac('sha256', this.hmacKey).update(signingInput).digest('base64url')}`;
    return {
      token,
      claims: {
        username: opts.username,
        tokenType: opts.tokenType,
        issuer: this.opts.issuer(),
        issuedAt: now,
        expiresAt,
        extra: opts.extra,
        uid: opts.uid,
        cred: opts.cred,
      },
    };
  }

  /**
   * Verifies signature (HS256 only: `alg: none`, other algorithms and any `crit` header are refused), issuer,
   * expiry, not-before and `iat` skew. A token whose signature and shape were verified once is remembered (by its
   * exact text, bounded), so later calls only repeat the checks that depend on the clock or the configuration.
   */
  async verify(token: string): Promise<TokenClaims> {
    let v = this.verified.get(token);
    if (!v) {
      v = this.verifySignatureAndShape(token);
      this.checkTimeAndIssuer(v);
      if (this.verified.size >= VERIFIED_CACHE_SIZE) {
        this.verified.delete(this.verified.keys().next().value as string);
      }
      this.verified.set(token, v);
      return v.claims;
    }
    this.checkTimeAndIssuer(v);
    return v.claims;
  }

  /**
   * Whether the token is, or claims to be, one of kapiserver's: signed with this key, naming this issuer, or with a
   * `token_type` claim (which kapiserver's ID tokens carry too, as KubeSphere's). Such a token is never shown to
   * anyone else (the orchestrator's TokenReview), valid or not.
   */
  claimsToBeOurs(token: string, claims = unverifiedClaims(token)): boolean {
    if (claims && (claims.iss === this.opts.issuer() || claims.token_type !== undefined)) return true;
    const parts = token.split('.');
    return parts.length === 3 && this.signatureMatches(parts[0], parts[1], parts[2]);
  }

  /** Comparing the canonical base64url text also refuses non-canonical encodings of the right signature. */
  private signatureMatches(header: string, payload: string, signature: string): boolean {
    const expected = Buffer.from(
      createHmac('sha256', this.hmacKey).update(`${header}.${payload}`).digest('base64url'),
    );
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private verifySignatureAndShape(token: string): VerifiedToken {
    if (token.length > MAX_TOKEN_LENGTH) throw new InvalidTokenError('malformed token');
    const parts = token.split('.');
    if (parts.length !== 3) throw new InvalidTokenError('malformed token');
    const [h, p, sig] = parts;
    const header = decodeJsonObject(h);
    if (!header || header.crit !== undefined || typeof header.alg !== 'string' || header.alg === '') {
      throw new InvalidTokenError('malformed token');
    }
    if (header.alg !== 'HS256') throw new InvalidTokenError('token signing algorithm not allowed');
    if (!this.signatureMatches(h, p, sig)) throw new InvalidTokenError('invalid token signature');
    const payload = decodeJsonObject(p);
    if (!payload) throw new InvalidTokenError('malformed token');
    for (const claim of ['iat', 'nbf', 'exp']) {
      const v = payload[claim];
      if (v !== undefined && typeof v !== 'number') {
        throw new InvalidTokenError(`token claim "${claim}" is invalid`);
      }
    }
    const iat = payload.iat;
    if (typeof iat !== 'number') throw new InvalidTokenError('token has no issued-at time');
    const username = payload.username;
    const tokenType = payload.token_type;
    if (typeof username !== 'string' || username === '' || payload.sub !== username) {
      throw new InvalidTokenError('token has no valid username');
    }
    if (typeof tokenType !== 'string' || !TOKEN_TYPES.has(tokenType)) {
      throw new InvalidTokenError('token has an unknown token_type');
    }
    return {
      iss: payload.iss,
      notBefore: payload.nbf as number | undefined,
      claims: Object.freeze({
        username,
        tokenType: tokenType as TokenType,
        issuer: String(payload.iss),
        issuedAt: iat,
        expiresAt: payload.exp as number | undefined,
        extra: validExtra(payload.extra),
        uid: typeof payload.uid === 'string' ? payload.uid : undefined,
        cred: typeof payload.cred === 'string' ? payload.cred : undefined,
      }),
    };
  }

  /** The checks that depend on the clock, the configured skew or the configured issuer: run on every call. */
  private checkTimeAndIssuer(v: VerifiedToken): void {
    if (v.iss !== this.opts.issuer()) throw new InvalidTokenError('token claim "iss" is invalid');
    const skewSeconds = Math.ceil(this.opts.clockSkewMs() / 1000);
    const nowMs = Date.now();
    const now = Math.floor(nowMs / 1000);
    if (v.notBefore !== undefined && v.notBefore > now + skewSeconds) {
      throw new InvalidTokenError('token claim "nbf" is invalid');
    }
    const exp = v.claims.expiresAt;
    if (exp !== undefined && exp <= now - skewSeconds) throw new InvalidTokenError('token expired');
    if (v.claims.issuedAt > nowMs / 1000 + skewSeconds)
      throw new InvalidTokenError('token issued in the future');
  }
}

function validExtra(v: unknown): Record<string, string[]> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, list] of Object.entries(v)) {
    if (Array.isArray(list))
      out[k] = Object.freeze(list.filter((x): x is string => typeof x === 'string')) as string[];
  }
  // Shared by every request that presents the same token.
  return Object.freeze(out);
}
