// Two kapiserver replicas on one dev cluster sharing one Redis: a token from either works on both, and revocations,
// logouts and lockouts on one are seen by the other; kubeconfig downloads on both agree on one credential.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { kubeconfigRecordsInRedis } from '../helpers/kubeconfig-records.ts';
import { bearer, createUser, login, postToken } from '../helpers/oauth.ts';
import { redisUnavailableReason, startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const CALLBACK = 'https://app.example.com/cb';
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
      oauthOptions: {
        clients: [
          { name: 'kubesphere', secret: 'kubesphere' },
          { name: 'webapp', secret: 'webapp-secret', redirectURIs: [CALLBACK] },
        ],
      },
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

test(
  'the authorization flow spans replicas: sign-in page on one, form and exchange on the other',
  opts,
  async () => {
    const keysA = await (await fetch(`${a.url}/oauth/keys`)).json();
    assert.deepEqual(await (await fetch(`${b.url}/oauth/keys`)).json(), keysA, 'one ID-token key set');
    const page = await fetch(`${a.url}/oauth/authorize?response_type=code&client_id=webapp&scope=openid`);
    const html = await page.text();
    const pending = /name="pending" value="([^"]+)"/.exec(html)![1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1];
    const signIn = await fetch(`${b.url}/oauth/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: b.url,
        cookie: `kapiserver_csrf=${csrf}`,
      },
      body: new URLSearchParams({ pending, csrf, username: 'admin', password: 'Shared-Adm1n-Password' }),
    });
    assert.equal(signIn.status, 302);
    const code = new URL(signIn.headers.get('location')!).searchParams.get('code')!;
    const session = /kapiserver_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1];
    const authorizeWithSession = (s: TestStack) =>
      fetch(`${s.url}/oauth/authorize?response_type=code&client_id=webapp`, {
        redirect: 'manual',
        headers: { cookie: `kapiserver_session=${session}` },
      });
    assert.equal((await authorizeWithSession(a)).status, 302, 'the session made on b signs in on a');

    const t = await postToken(a.url, {
      grant_type: 'authorization_code',
      code,
      ...form('webapp', 'webapp-secret'),
    });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.ok(t.body.id_token);
    const again = await postToken(b.url, {
      grant_type: 'authorization_code',
      code,
      ...form('webapp', 'webapp-secret'),
    });
    assert.equal(again.body.error, 'invalid_grant', 'used once, whichever replica is asked');
    // The reuse revoked everything of the user, the session included, on both replicas.
    assert.equal((await me(b, t.body.access_token as string)).status, 401);
    const after = await authorizeWithSession(b);
    assert.equal(after.status, 200, 'the sign-in page again');
  },
);

test(
  'kubeconfig downloads served by both replicas at once give one token, one record in Redis',
  opts,
  async () => {
    await createUser(a, 'kubeconfig-user', 'Passw0rd-kubeconfig');
    const session = await login(a, 'kubeconfig-user', 'Passw0rd-kubeconfig');
    const download = async (s: TestStack) => {
      const res = await fetch(
        `${s.url}/kapis/resources.kubesphere.io/v1alpha2/users/kubeconfig-user/kubeconfig`,
        {
          headers: bearer(session),
        },
      );
      assert.equal(res.status, 200);
      return (parse(await res.text()) as { users: { user: { token?: string } }[] }).users[0].user.token;
    };
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => download(i % 2 ? a : b)));
    assert.equal(new Set(tokens).size, 1, 'one token');
    assert.equal(kubeconfigRecordsInRedis(redis!.port, 'kubeconfig-user'), 1);
    for (const s of [a, b]) {
      const res = await fetch(`${s.url}/kapis/iam.kubesphere.io/v1alpha2/users/kubeconfig-user`, {
        headers: bearer(tokens[0] ?? ''),
      });
      assert.equal(res.status, 200, 'the token works on both replicas');
    }
  },
);
