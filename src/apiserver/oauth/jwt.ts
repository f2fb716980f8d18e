// Access and refresh tokens as KubeSphere issues them: HS256 JWTs signed with jwtSecret, claims `username`,
// `token_type`, `sub`, `iss`, `iat`, `exp` (absent when the lifetime is 0), optional `extra`; plus a random `jti`
// so two tokens issued in the same second differ (the token store keys on the token).
import { randomBytes } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';

export type TokenType = 'access_token' | 'refresh_token';

export interface TokenClaims {
  username: string;
  tokenType: TokenType;
  issuer: string;
  issuedAt: number;
  /** Seconds since the epoch; undefined = never expires. */
  expiresAt?: number;
  extra?: Record<string, string[]>;
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

const TOKEN_TYPES = new Set(['access_token', 'refresh_token']);

export class TokenIssuer {
  private readonly key: Uint8Array;

  constructor(private readonly opts: IssuerOptions) {
    if (!opts.secret) throw new Error('jwt secret must not be empty');
    this.key = new TextEncoder().encode(opts.secret);
  }

  /** Signs a token of `ttlMs` lifetime (0 = no `exp`). */
  async issue(opts: {
    username: string;
    tokenType: TokenType;
    ttlMs: number;
    extra?: Record<string, string[]>;
  }): Promise<{ token: string; claims: TokenClaims }> {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = { username: opts.username, token_type: opts.tokenType };
    if (opts.extra && Object.keys(opts.extra).length > 0) payload.extra = opts.extra;
    const jwt = new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.opts.issuer())
      .setSubject(opts.username)
      .setIssuedAt(now)
      .setJti(randomBytes(12).toString('base64url'));
    const expiresAt = opts.ttlMs > 0 ? now + Math.ceil(opts.ttlMs / 1000) : undefined;
    if (expiresAt !== undefined) jwt.setExpirationTime(expiresAt);
    const token = await jwt.sign(this.key);
    return {
      token,
      claims: {
        username: opts.username,
        tokenType: opts.tokenType,
        issuer: this.opts.issuer(),
        issuedAt: now,
        expiresAt,
        extra: opts.extra,
      },
    };
  }

  /** Verifies signature (HS256 only: `alg: none` and RS/ES keys are refused), issuer, expiry and `iat` skew. */
  async verify(token: string): Promise<TokenClaims> {
    if (token.length > 8192 || token.split('.').length !== 3) throw new InvalidTokenError('malformed token');
    const skewSeconds = Math.ceil(this.opts.clockSkewMs() / 1000);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: this.opts.issuer(),
        clockTolerance: skewSeconds,
      }));
    } catch (err) {
      throw new InvalidTokenError(describeJoseError(err));
    }
    const iat = payload.iat;
    if (typeof iat !== 'number') throw new InvalidTokenError('token has no issued-at time');
    if (iat > Date.now() / 1000 + skewSeconds) throw new InvalidTokenError('token issued in the future');
    const username = payload.username;
    const tokenType = payload.token_type;
    if (typeof username !== 'string' || username === '' || payload.sub !== username) {
      throw new InvalidTokenError('token has no valid username');
    }
    if (typeof tokenType !== 'string' || !TOKEN_TYPES.has(tokenType)) {
      throw new InvalidTokenError('token has an unknown token_type');
    }
    return {
      username,
      tokenType: tokenType as TokenType,
      issuer: String(payload.iss),
      issuedAt: iat,
      expiresAt: typeof payload.exp === 'number' ? payload.exp : undefined,
      extra: validExtra(payload.extra),
    };
  }
}

function validExtra(v: unknown): Record<string, string[]> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, list] of Object.entries(v)) {
    if (Array.isArray(list)) out[k] = list.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

function describeJoseError(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'token expired';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'invalid token signature';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token signing algorithm not allowed';
  if (err instanceof errors.JWTClaimValidationFailed) return `token claim "${err.claim}" is invalid`;
  return 'malformed token';
}
