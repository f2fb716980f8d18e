// The token issuer the JWT tests share, and `reason`: why a token is refused (fails the test if it is accepted).
import assert from 'node:assert/strict';
import { InvalidTokenError, TokenIssuer } from '../../../src/apiserver/oauth/jwt.ts';

export const SECRET = 'test-secret-0123456789abcdef0123';
export const key = new TextEncoder().encode(SECRET);
export const issuer = new TokenIssuer({
  secret: SECRET,
  issuer: () => 'kubesphere',
  clockSkewMs: () => 10_000,
});

export async function reason(token: string): Promise<string> {
  try {
    await issuer.verify(token);
  } catch (err) {
    assert.ok(err instanceof InvalidTokenError);
    return err.reason;
  }
  assert.fail('token was accepted');
}
