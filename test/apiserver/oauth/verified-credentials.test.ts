// The verified-credential cache behind HTTP Basic: keyed by a per-process HMAC (never the password), bounded in size
// and time, and ended by a revocation of the user's tokens in the store (which kapiserver's password change, disable
// and delete routes make, on every replica sharing the store).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { UserObject } from '../../../src/apiserver/iam/users.ts';
import { LocalTokenStore } from '../../../src/apiserver/oauth/store/index.ts';
import { VerifiedCredentials } from '../../../src/apiserver/oauth/verified-credentials.ts';

const store = new LocalTokenStore(':memory:');
after(() => store.close());

const user = (name: string, password = '$2a$10$hash-of-the-password'): UserObject => ({
  metadata: { name, uid: `uid-${name}` },
  spec: { password },
});

test('a remembered credential is found under its digest, with who it was verified for', async () => {
  const cache = new VerifiedCredentials(store);
  const digest = cache.digest('alice', 'Passw0rd');
  assert.equal(await cache.find(digest), undefined);
  await cache.remember(digest, user('alice'));
  const hit = await cache.find(digest);
  assert.equal(hit?.username, 'alice');
  assert.equal(hit?.uid, 'uid-alice');
  assert.equal(typeof hit?.generation, 'string');
  assert.equal(await cache.find(cache.digest('alice', 'Passw0rd2')), undefined);
});

test('the key is an HMAC under a per-process key: no password in it, no pair collides', () => {
  const a = new VerifiedCredentials(store);
  const b = new VerifiedCredentials(store);
  const d = a.digest('alice', 'Passw0rd');
  assert.ok(!d.includes('Passw0rd'));
  assert.match(d, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(d, b.digest('alice', 'Passw0rd'), 'another process keys differently');
  assert.notEqual(a.digest('ab', 'c'), a.digest('a', 'bc'));
  assert.notEqual(a.digest('a:b', 'c'), a.digest('a', 'b:c'));
});

test("revoking the user's tokens in the store ends the entry", async () => {
  const cache = new VerifiedCredentials(store);
  const digest = cache.digest('bob', 'Passw0rd');
  await cache.remember(digest, user('bob'));
  assert.ok(await cache.find(digest));
  await store.revokeAll('bob');
  assert.equal(await cache.find(digest), undefined);
});

test('entries expire after the TTL', async () => {
  const cache = new VerifiedCredentials(store, 40);
  const digest = cache.digest('carol', 'Passw0rd');
  await cache.remember(digest, user('carol'));
  assert.ok(await cache.find(digest));
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(await cache.find(digest), undefined);
  assert.equal(cache.size, 0);
});

test('bounded: the least recently used entry goes first', async () => {
  const cache = new VerifiedCredentials(store, 60_000, 2);
  const [d1, d2, d3] = ['u1', 'u2', 'u3'].map((u) => cache.digest(u, 'Passw0rd'));
  await cache.remember(d1, user('u1'));
  await cache.remember(d2, user('u2'));
  assert.ok(await cache.find(d1)); // u1 is now the most recently used
  await cache.remember(d3, user('u3'));
  assert.equal(cache.size, 2);
  assert.ok(await cache.find(d1));
  assert.equal(await cache.find(d2), undefined);
  assert.ok(await cache.find(d3));
});
