// The pure parts of token issuance: JWT issue/verify, strict form parsing, client registry, password hashing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { hashPassword, isPasswordHashed, verifyPassword } from '../../../src/apiserver/iam/password.ts';
import { ClientRegistry } from '../../../src/apiserver/oauth/clients.ts';
import { OAuthError } from '../../../src/apiserver/oauth/errors.ts';
import { parseBasicAuth, parseForm } from '../../../src/apiserver/oauth/form.ts';
import { defaultConfig } from '../../../src/config/index.ts';
import { issuer, key, reason } from './jwt-fixture.ts';

test('issued tokens carry KubeSphere claims and verify', async () => {
  const { token, claims } = await issuer.issue({
    username: 'alice',
    tokenType: 'access_token',
    ttlMs: 7_200_000,
  });
  const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  assert.equal(payload.username, 'alice');
  assert.equal(payload.sub, 'alice');
  assert.equal(payload.token_type, 'access_token');
  assert.equal(payload.iss, 'kubesphere');
  assert.equal(payload.exp - payload.iat, 7200);
  assert.equal(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).alg, 'HS256');
  const v = await issuer.verify(token);
  assert.equal(v.username, 'alice');
  assert.equal(v.tokenType, 'access_token');
  // Signed by node:crypto here; jose, an independent implementation, accepts it as any JWT library would.
  const { payload: checked, protectedHeader } = await jwtVerify(token, key, { issuer: 'kubesphere' });
  assert.deepEqual(protectedHeader, { alg: 'HS256', typ: 'JWT' });
  assert.equal(checked.sub, 'alice');
  assert.equal(v.expiresAt, claims.expiresAt);
  const other = await issuer.issue({ username: 'alice', tokenType: 'access_token', ttlMs: 7_200_000 });
  assert.notEqual(other.token, token, 'two tokens in the same second differ');
});

test('lifetime 0 issues a token without exp', async () => {
  const { token } = await issuer.issue({ username: 'bob', tokenType: 'refresh_token', ttlMs: 0 });
  const v = await issuer.verify(token);
  assert.equal(v.expiresAt, undefined);
});

test('every kind of bad token is refused with a reason', async () => {
  const good = (await issuer.issue({ username: 'alice', tokenType: 'access_token', ttlMs: 60_000 })).token;
  const now = Math.floor(Date.now() / 1000);
  const sign = (p: Record<string, unknown>, k = key) =>
    new SignJWT(p).setProtectedHeader({ alg: 'HS256' }).sign(k);
  assert.equal(await reason('not-a-jwt'), 'malformed token');
  assert.equal(await reason('a.b.c'), 'malformed token');
  assert.equal(await reason(`${good.slice(0, -3)}AAA`), 'invalid token signature');
  const parts = good.split('.');
  const tampered = Buffer.from(parts[1], 'base64url').toString().replace('alice', 'admin');
  assert.equal(
    await reason(`${parts[0]}.${Buffer.from(tampered).toString('base64url')}.${parts[2]}`),
    'invalid token signature',
  );
  const none = new UnsecuredJWT({ username: 'admin', sub: 'admin', token_type: 'access_token' })
    .setIssuer('kubesphere')
    .setIssuedAt()
    .encode();
  assert.equal(await reason(none), 'token signing algorithm not allowed');
  const base = { username: 'alice', sub: 'alice', token_type: 'access_token', iss: 'kubesphere' };
  assert.equal(await reason(await sign({ ...base, iat: now - 100, exp: now - 50 })), 'token expired');
  assert.equal(await reason(await sign({ ...base, iat: now + 3600 })), 'token issued in the future');
  assert.equal(
    await reason(
      await sign({ ...base, iat: now }, new TextEncoder().encode('another-secret-xxxxxxxxxxxxxxxx')),
    ),
    'invalid token signature',
  );
  assert.equal(await reason(await sign({ ...base, iat: now, iss: 'evil' })), 'token claim "iss" is invalid');
  assert.equal(
    await reason(await sign({ ...base, iat: now, token_type: 'id_token' })),
    'token has an unknown token_type',
  );
  assert.equal(await reason(await sign({ ...base, iat: now, sub: 'bob' })), 'token has no valid username');
  assert.equal(await reason('x'.repeat(9000)), 'malformed token');
});

test('forms: values decoded; repeated parameters, bad UTF-8 and bad escapes refused', () => {
  const f = parseForm('grant_type=password&username=a%40b.c&password=p+w%26d&empty=&flag');
  assert.equal(f.get('username'), 'a@b.c');
  assert.equal(f.get('password'), 'p w&d');
  assert.equal(f.get('empty'), '');
  assert.equal(f.get('flag'), '');
  const err = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof OAuthError);
      assert.equal(e.error, 'invalid_request');
      assert.equal(e.status, 400);
      return e.message;
    }
    assert.fail('accepted');
  };
  assert.match(
    err(() => parseForm('username=a&username=b')),
    /username.*more than once/,
  );
  assert.match(
    err(() => parseForm('password=%FF%FE')),
    /UTF-8/,
  );
  assert.match(
    err(() => parseForm('password=%E0%A4%A')),
    /UTF-8/,
  );
  assert.match(
    err(() => parseForm(Buffer.from([0x70, 0x3d, 0xff, 0xfe]))),
    /UTF-8/,
  );
});

test('HTTP Basic client credentials (RFC 6749 2.3.1)', () => {
  const b = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  assert.deepEqual(parseBasicAuth(b('kubesphere:s3cr%3At')), { id: 'kubesphere', secret: 's3cr:t' });
  assert.equal(parseBasicAuth(b('no-colon')), undefined);
  assert.equal(parseBasicAuth('Bearer xyz'), undefined);
  assert.equal(parseBasicAuth(undefined), undefined);
});

test('client registry: exact match only, empty secrets never match, live replace', () => {
  const reg = new ClientRegistry(defaultConfig().authentication.oauthOptions.clients);
  assert.ok(reg.usesDefaultSecret());
  assert.equal(reg.authenticate('kubesphere', 'kubesphere')?.name, 'kubesphere');
  assert.equal(reg.authenticate('kubesphere', 'kubespherE'), undefined);
  assert.equal(reg.authenticate('kubesphere', ''), undefined);
  assert.equal(reg.authenticate('nobody', 'kubesphere'), undefined);
  const base = {
    redirectURIs: [],
    grantMethod: 'auto' as const,
    respondWithChallenges: false,
    allowImplicitGrant: false,
    scopeRestrictions: [],
  };
  reg.replace([
    { ...base, name: 'kubesphere', secret: 'n3w' },
    { ...base, name: 'empty', secret: '' },
  ]);
  assert.ok(!reg.usesDefaultSecret());
  assert.equal(reg.authenticate('kubesphere', 'kubesphere'), undefined);
  assert.equal(reg.authenticate('kubesphere', 'n3w')?.name, 'kubesphere');
  assert.equal(reg.authenticate('empty', ''), undefined);
});

test('passwords: bcrypt cost 10, plaintext and unknown users never verify', async () => {
  const h = await hashPassword('P@ssw0rd-1');
  assert.ok(isPasswordHashed(h));
  assert.match(h, /^\$2b\$10\$/);
  assert.ok(!isPasswordHashed('P@ssw0rd-1'));
  assert.equal(await verifyPassword('P@ssw0rd-1', h), true);
  assert.equal(await verifyPassword('wrong', h), false);
  assert.equal(
    await verifyPassword('P@ssw0rd-1', 'P@ssw0rd-1'),
    false,
    'plaintext in spec.password never matches',
  );
  assert.equal(await verifyPassword('x', undefined), false);
});
