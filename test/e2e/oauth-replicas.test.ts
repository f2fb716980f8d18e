// Two kapiserver replicas on one dev cluster sharing one Redis: a token from either works on both, and revocations,
// logouts and lockouts on one are seen by the other.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bearer, createUser, login, postToken } from '../helpers/oauth.ts';
import { redisUnavailableReason, startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const skip = redisUnavailableReason();
if (skip) console.log(`# ${skip}`);
const opts = skip ? { skip } : {};
let redis: TestRedis | undefined;
let a: TestStack;
let b: TestStack;

before(async () => {
  if (skip) return;
  redis = await startRedis();
  const doc = {
    redis: { host: '127.0.0.1', port: redis.port },
    authentication: {
      adminPassword: 'Shared-Adm1n-Password',
      authenticateRateLimiterMaxTries: 3,
      authenticateRateLimiterDuration: '1m',
    },
  };
  a = await startTestStack({ configDocument: doc });
  b = await startTestStack({ configDocument: doc, dev: a.dev });
});
after(async () => {
  await b?.close();
  await a?.close();
  await redis?.stop();
});

const me = (s: TestStack, token: string) => fetch(`${s.url}/oauth/userinfo`, { headers: bearer(token) });
const form = (id = 'kubesphere', secret = 'kubesphere') => ({ client_id: id, client_secret: secret });

test('a token issued by one replica works on the other (shared JWT key and token store)', opts, async () => {
  const t = await login(a);
  assert.equal((await me(b, t.access_token)).status, 200);
  const t2 = await login(b);
  assert.equal((await me(a, t2.access_token)).status, 200);
});

test('revocation on one replica is refused on the other', opts, async () => {
  const t = await login(a);
  const r = await fetch(`${b.url}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: t.access_token, ...form() }),
  });
  assert.equal(r.status, 200);
  assert.equal((await me(a, t.access_token)).status, 401);
});

test(
  'logout on one replica ends the sessions on the other; a refresh token rotates across replicas once',
  opts,
  async () => {
    await createUser(a, 'replica-user', 'Passw0rd-replica');
    const t = await login(a, 'replica-user', 'Passw0rd-replica');
    const refreshed = await postToken(b.url, {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      ...form(),
    });
    assert.equal(refreshed.status, 200);
    const reuse = await postToken(a.url, {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      ...form(),
    });
    assert.equal(reuse.status, 400);
    const fresh = await login(b, 'replica-user', 'Passw0rd-replica');
    assert.equal((await fetch(`${a.url}/oauth/logout`, { headers: bearer(fresh) })).status, 200);
    assert.equal((await me(b, fresh.access_token)).status, 401);
  },
);

test(
  'a lockout reached through one replica holds on the other, even with the right password',
  opts,
  async () => {
    await createUser(a, 'replica-lock', 'Passw0rd-lock');
    for (let i = 0; i < 3; i++) {
      const r = await postToken(a.url, {
        grant_type: 'password',
        username: 'replica-lock',
        password: `bad-${i}`,
        ...form(),
      });
      assert.equal(r.status, 400);
    }
    const locked = await postToken(b.url, {
      grant_type: 'password',
      username: 'replica-lock',
      password: 'Passw0rd-lock',
      ...form(),
    });
    assert.equal(locked.status, 429);
    assert.equal(locked.body.error_description, 'auth rate limit exceeded');
  },
);

test(
  'a password change through one replica ends the sessions on the other at once (access and refresh)',
  opts,
  async () => {
    await createUser(a, 'replica-pw', 'Passw0rd-replica-pw');
    const t = await login(b, 'replica-pw', 'Passw0rd-replica-pw');
    const admin = await login(a);
    const r = await fetch(`${a.url}/kapis/iam.kubesphere.io/v1alpha2/users/replica-pw/password`, {
      method: 'PUT',
      headers: { ...bearer(admin), 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'Passw0rd-replica-pw-2' }),
    });
    assert.equal(r.status, 200);
    assert.equal((await me(b, t.access_token)).status, 401);
    const refreshed = await postToken(b.url, {
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      ...form(),
    });
    assert.equal(refreshed.status, 400);
  },
);
