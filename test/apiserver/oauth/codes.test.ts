// Authorization codes over the token store, on a clock the test moves: lifetime, binding, PKCE, single use and what a
// reuse revokes.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { AuthorizationCodes, CODE_TTL_MS, type CodeGrant } from '../../../src/apiserver/oauth/codes.ts';
import { OAuthError } from '../../../src/apiserver/oauth/errors.ts';
import { LocalTokenStore } from '../../../src/apiserver/oauth/store/index.ts';
import { FakeClock } from '../../helpers/clock.ts';

const verifier = randomBytes(32).toString('base64url');
const grant: CodeGrant = {
  username: 'alice',
  uid: 'u1',
  cred: 'c1',
  clientId: 'app',
  redirectUri: 'https://app.example.com/cb',
  redirectUriGiven: true,
  codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
  nonce: 'n',
  scopes: ['openid'],
  authTime: 1,
  issuer: 'https://ks.example.com/oauth',
};
const right = { clientId: 'app', redirectUri: grant.redirectUri, codeVerifier: verifier };

function setup() {
  const clock = new FakeClock();
  const store = new LocalTokenStore(':memory:', clock);
  return { clock, store, codes: new AuthorizationCodes(store) };
}

async function refused(p: Promise<unknown>, match: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof OAuthError);
    assert.equal(err.error, 'invalid_grant');
    assert.match(err.message, match);
    return true;
  });
}

test('a code redeems once with everything it was bound to; mismatches leave it usable', async () => {
  const { codes, store } = setup();
  const code = await codes.issue(grant);
  assert.ok(code.length >= 43);
  await refused(codes.redeem(code, { ...right, clientId: 'other' }), /another client/);
  await refused(codes.redeem(code, { ...right, redirectUri: undefined }), /redirect_uri/);
  await refused(codes.redeem(code, { ...right, redirectUri: `${grant.redirectUri}/` }), /redirect_uri/);
  await refused(codes.redeem(code, { ...right, codeVerifier: undefined }), /code_verifier is required/);
  await refused(
    codes.redeem(code, { ...right, codeVerifier: randomBytes(32).toString('base64url') }),
    /does not match/,
  );
  await refused(codes.redeem(code, { ...right, codeVerifier: 'x' }), /malformed/);
  assert.deepEqual(await codes.redeem(code, right), grant);
  await store.close();
});

test('a reused code revokes every token of its user', async () => {
  const { codes, store } = setup();
  await store.add('alice', 'access.token', 60_000);
  const code = await codes.issue(grant);
  await codes.redeem(code, right);
  await refused(codes.redeem(code, right), /already used/);
  assert.equal(await store.isActive('alice', 'access.token'), false);
  await store.close();
});

test('a code expires, is revoked with its user, and an unknown one is refused', async () => {
  const { codes, store, clock } = setup();
  const late = await codes.issue(grant);
  clock.advance(CODE_TTL_MS + 1);
  await refused(codes.redeem(late, right), /unknown or expired/);
  const revoked = await codes.issue(grant);
  await store.revokeAll('alice');
  await refused(codes.redeem(revoked, right), /already used or revoked/);
  await refused(codes.redeem('', right), /unknown/);
  await refused(codes.redeem('made-up', right), /unknown/);
  await store.close();
});

test('without PKCE in the request, a verifier in the exchange is refused', async () => {
  const { codes, store } = setup();
  const code = await codes.issue({ ...grant, codeChallenge: undefined, redirectUriGiven: false });
  await refused(codes.redeem(code, right), /no code_challenge/);
  assert.equal(
    (await codes.redeem(code, { clientId: 'app' })).username,
    'alice',
    'redirect_uri optional then',
  );
  await store.close();
});

test('of concurrent exchanges of one code exactly one gets the grant', async () => {
  const { store, codes } = setup();
  const code = await codes.issue(grant);
  const results = await Promise.allSettled(Array.from({ length: 10 }, () => codes.redeem(code, right)));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  assert.equal(results.filter((r) => r.status === 'rejected').length, 9);
  await store.close();
});
