// ID tokens (OpenID Connect Core 2): RS256 with the signing key of ./signing-keys.ts, never the HS256 jwtSecret, so a
// relying party verifies them with /oauth/keys alone. kapiserver's bearer check accepts HS256 only: an ID token is
// never an access token.
import type { SigningKeys } from './signing-keys.ts';

export interface IdTokenSubject {
  username: string;
  email?: string;
}

export interface IdTokenRequest {
  issuer: string;
  clientId: string;
  nonce?: string;
  /** Epoch seconds of the sign-in the token is based on. */
  authTime: number;
  ttlMs: number;
}

export async function issueIdToken(
  keys: SigningKeys,
  user: IdTokenSubject,
  req: IdTokenRequest,
  nowMs: number = Date.now(),
): Promise<string> {
  const { SignJWT } = await import('jose');
  const now = Math.floor(nowMs / 1000);
  const claims: Record<string, unknown> = {
    auth_time: req.authTime,
    name: user.username,
    preferred_username: user.username,
    // KubeSphere's ID tokens carry these two; clients that read them keep working.
    token_type: 'id_token',
    username: user.username,
  };
  if (req.nonce) claims.nonce = req.nonce;
  if (user.email) claims.email = user.email;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: keys.kid })
    .setIssuer(req.issuer)
    .setSubject(user.username)
    .setAudience(req.clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + Math.max(1, Math.ceil(req.ttlMs / 1000)))
    .sign(keys.privateKey);
}
