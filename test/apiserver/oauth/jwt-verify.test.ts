// Bearer token verification runs on every authenticated request with node:crypto (not jose): it must refuse
// everything jose's jwtVerify refused. jose signs the tokens here, so the two implementations check each other.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import { type InvalidTokenError, TokenIssuer, unverifiedClaims } from '../../../src/apiserver/oauth/jwt.ts';
import { issuer, key, reason, SECRET } from './jwt-fixture.ts';

const now = Math.floor(Date.now() / 1000);
const base = { username: 'alice', sub: 'alice', token_type: 'access_token', iss: 'kubesphere', iat: now };

const sign = (payload: Record<string, unknown>, header: Record<string, unknown> = { alg: 'HS256' }) =>
  new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key);

/** A correctly signed token with any header (jose refuses to sign some of them). */
function signRaw(header: unknown, payload: unknown): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${enc(header)}.${enc(payload)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

test('a token signed by jose with the same key verifies, claims intact', async () => {
  const extra = { 'iam.kubesphere.io/origin': ['ldap'] };
  const v = await issuer.verify(await sign({ ...base, exp: now + 60, extra }));
  assert.equal(v.username, 'alice');
  assert.equal(v.tokenType, 'access_token');
  assert.equal(v.expiresAt, now + 60);
  assert.deepEqual(v.extra, extra);
});

test('headers other than plain HS256 are refused', async () => {
  assert.equal(await reason(await sign(base, { alg: 'HS512' })), 'token signing algorithm not allowed');
  assert.ok(await issuer.verify(signRaw({ alg: 'HS256', typ: 'JWT' }, base)), 'the raw signer is right');
  assert.equal(await reason(signRaw({ alg: 'HS256', crit: ['exp'], exp: 1 }, base)), 'malformed token');
  assert.equal(await reason(signRaw({ alg: 'none' }, base)), 'token signing algorithm not allowed');
  assert.equal(await reason(signRaw(['HS256'], base)), 'malformed token');
  assert.equal(await reason(signRaw({}, base)), 'malformed token');
  assert.equal(await reason(signRaw({ alg: 'HS256' }, [base])), 'malformed token');
  const [, p, s] = (await sign(base)).split('.');
  assert.equal(
    await reason(`${Buffer.from([0xff, 0xfe]).toString('base64url')}.${p}.${s}`),
    'malformed token',
  );
});

test('the signature must be the exact canonical encoding', async () => {
  const good = await sign(base);
  const [h, p, s] = good.split('.');
  assert.equal(await reason(`${h}.${p}.${s}=`), 'invalid token signature');
  assert.equal(await reason(`${h}.${p}.${s.slice(0, -1)}`), 'invalid token signature');
  // The last character carries 2 padding bits: another character with the same 4 data bits decodes identically.
  const last = s.at(-1)!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const twin = alphabet[alphabet.indexOf(last) ^ 1];
  assert.equal(await reason(`${h}.${p}.${s.slice(0, -1)}${twin}`), 'invalid token signature');
});

test('claims: issuer, expiry, not-before and numeric dates are checked after the signature', async () => {
  assert.equal(await reason(await sign({ ...base, iss: undefined })), 'token claim "iss" is invalid');
  assert.equal(await reason(await sign({ ...base, exp: now - 11 })), 'token expired');
  assert.ok(await issuer.verify(await sign({ ...base, exp: now - 5 })), 'within the clock skew');
  assert.equal(await reason(await sign({ ...base, nbf: now + 3600 })), 'token claim "nbf" is invalid');
  assert.equal(await reason(await sign({ ...base, exp: String(now + 60) })), 'token claim "exp" is invalid');
  assert.equal(await reason(await sign({ ...base, iat: undefined })), 'token has no issued-at time');
  assert.equal(
    await reason(`${(await sign(base)).split('.').slice(0, 2).join('.')}.`),
    'invalid token signature',
  );
});

test('a remembered token is still checked against the clock, the skew and the issuer on every use', async () => {
  let skewMs = 10_000;
  let iss = 'kubesphere';
  const live = new TokenIssuer({ secret: SECRET, issuer: () => iss, clockSkewMs: () => skewMs });
  const token = await sign({ ...base, exp: now - 5 });
  assert.equal((await live.verify(token)).username, 'alice');
  assert.equal((await live.verify(token)).username, 'alice', 'second use, from memory');
  skewMs = 0;
  await assert.rejects(live.verify(token), (e: InvalidTokenError) => e.reason === 'token expired');
  skewMs = 10_000;
  iss = 'another-issuer';
  await assert.rejects(
    live.verify(token),
    (e: InvalidTokenError) => e.reason === 'token claim "iss" is invalid',
  );
  iss = 'kubesphere';
  const claims = await live.verify(await sign({ ...base, extra: { k: ['v'] } }));
  assert.throws(() => {
    (claims.extra as Record<string, string[]>).k.push('injected');
  }, TypeError);
  await assert.rejects(
    live.verify(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`),
    (e: InvalidTokenError) => e.reason === 'invalid token signature',
    'a tampered copy of a remembered token is verified afresh',
  );
});

test("unverified claims: a compact JWT's payload object, nothing else; what claims to be ours is seen from them", async () => {
  const unsigned = (payload: unknown) =>
    `${signRaw({ alg: 'RS256' }, payload).split('.').slice(0, 2).join('.')}.c2ln`;
  const foreign = unsigned({ iss: 'https://kubernetes.default.svc', sub: 'system:serviceaccount:a:b' });
  assert.equal(unverifiedClaims(foreign)?.sub, 'system:serviceaccount:a:b');
  for (const bad of ['not-a-jwt', 'a.b.c', `${foreign}.x`, `${foreign.slice(0, 10)}+${foreign.slice(11)}`]) {
    assert.equal(unverifiedClaims(bad), undefined, bad);
  }
  assert.equal(unverifiedClaims(unsigned(['array'])), undefined, 'an array payload');
  assert.equal(unverifiedClaims(unsigned({ pad: 'x'.repeat(9000) })), undefined, 'too long');
  assert.equal(issuer.claimsToBeOurs(foreign, unverifiedClaims(foreign)), false);
  const claimsOurs = unsigned({ token_type: 'access_token' });
  assert.equal(issuer.claimsToBeOurs(claimsOurs, unverifiedClaims(claimsOurs)), true, 'by its claims');
  const signedByUs = signRaw({ alg: 'HS256' }, { sub: 'nobody' });
  assert.equal(issuer.claimsToBeOurs(signedByUs, unverifiedClaims(signedByUs)), true, 'by its signature');
});
