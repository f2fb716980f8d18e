// End-to-end OAuth behaviour against a real stack (dev cluster + kapiserver over HTTP), run once per token store.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { SignJWT, UnsecuredJWT } from 'jose';
import {
  bearer,
  createUser,
  devRest,
  eventually,
  login,
  postToken,
  TEST_CLIENT,
  type TokenResponse,
} from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

const USERS = '/apis/iam.kubesphere.io/v1alpha2/users';
const CC = '/apis/installer.kubesphere.io/v1alpha1/namespaces/kubesphere-system/clusterconfigurations';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lockout window (and lock duration). Long enough that the lockout test's three failures (each a bcrypt
 * comparison) fall inside it on a loaded machine and that its lock is seen before it ends. Budget: 127.0.0.1 is
 * throttled at 15 failed password logins within the window; the tests up to the lockout test's wait make at most 12
 * (2 + up to 3 while a changed password is hashed + 1 + the lockout test's 6), the rest 2 (one of them admin's, whose
 * limit is 3), so no other test is ever throttled.
 */
const LOCKOUT_WINDOW_MS = 10_000;

export const SUITE_CONFIG = {
  authenticateRateLimiterMaxTries: 3,
  authenticateRateLimiterDuration: `${LOCKOUT_WINDOW_MS / 1000}s`,
  maximumClockSkew: '0s',
  multipleLogin: true,
  loginHistoryMaximumEntries: 4,
  oauthOptions: {
    clients: [
      { name: 'kubesphere', secret: 'kubesphere', redirectURIs: ['*'] },
      { name: 'short', secret: 'short-secret', accessTokenMaxAge: '1s', accessTokenInactivityTimeout: '1s' },
      { name: 'portal', secret: 'portal-secret', redirectURIs: ['https://portal.example.com/'] },
    ],
  },
};

/** `extraConfig` is merged into the kubesphere.yaml document (e.g. the `redis` section). */
export function oauthSuite(
  name: string,
  extraConfig: () => Promise<Record<string, unknown>> | Record<string, unknown>,
  skip?: string,
): void {
  const opts = skip ? { skip } : {};
  let stack: TestStack;
  const uniq = (p: string) => `${p}-${randomBytes(3).toString('hex')}`;
  const form = (f: Record<string, string>) => postToken(stack.url, f);
  const pw = (username: string, password: string, client = TEST_CLIENT) =>
    form({ grant_type: 'password', username, password, client_id: client.id, client_secret: client.secret });
  const get = (path: string, token?: string | TokenResponse, init: RequestInit = {}) =>
    fetch(`${stack.url}${path}`, {
      ...init,
      headers: { ...(token ? bearer(token) : {}), ...(init.headers as object) },
    });
  const whoami = async (token: string | TokenResponse) => get('/oauth/userinfo', token);

  before(async () => {
    if (skip) return;
    stack = await startTestStack({
      configDocument: { authentication: SUITE_CONFIG, ...(await extraConfig()) },
    });
  });
  after(async () => {
    await stack?.close();
  });

  test(
    `${name}: password grant returns a KubeSphere token object that opens authenticated endpoints`,
    opts,
    async () => {
      const r = await pw('admin', stack.adminPassword);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.deepEqual(Object.keys(r.body).sort(), [
        'access_token',
        'expires_in',
        'refresh_token',
        'token_type',
      ]);
      assert.equal(r.body.token_type, 'Bearer');
      assert.equal(r.body.expires_in, 7200);
      const me = await whoami(r.body.access_token as string);
      assert.equal(me.status, 200);
      assert.equal((await me.json()).preferred_username, 'admin');
      const anon = await get('/api/v1/nodes');
      assert.equal(anon.status, 401);
      const body = await anon.json();
      assert.equal(body.kind, 'Status');
      assert.equal(body.code, 401);
      assert.equal((await get('/kapis/version')).status, 200, 'allow-listed paths need no token');
    },
  );

  test(`${name}: HTTP Basic client authentication (RFC 6749 2.3.1)`, opts, async () => {
    const basic = (id: string, secret: string) => ({
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
    });
    const ok = await postToken(
      stack.url,
      { grant_type: 'password', username: 'admin', password: stack.adminPassword },
      basic('kubesphere', 'kubesphere'),
    );
    assert.equal(ok.status, 200);
    const bad = await postToken(
      stack.url,
      { grant_type: 'password', username: 'admin', password: 'x' },
      basic('kubesphere', 'nope'),
    );
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error, 'invalid_client');
    assert.match(bad.headers.get('www-authenticate') ?? '', /^Basic/);
    const both = await postToken(
      stack.url,
      {
        grant_type: 'password',
        username: 'admin',
        password: stack.adminPassword,
        client_secret: 'kubesphere',
      },
      basic('kubesphere', 'kubesphere'),
    );
    assert.equal(both.status, 400);
    assert.equal(both.body.error, 'invalid_request');
  });

  test(`${name}: errors come in KubeSphere's order with its status codes`, opts, async () => {
    const cases: [Record<string, string>, number, string, string?][] = [
      [{ grant_type: 'password', username: 'admin', password: 'x' }, 401, 'invalid_client'],
      [{ client_id: 'kubesphere', grant_type: 'password' }, 401, 'invalid_client'],
      [
        { client_id: 'nobody', client_secret: 'kubesphere', grant_type: 'password' },
        401,
        'invalid_client',
        'invalid client credential',
      ],
      [
        { client_id: 'kubesphere', client_secret: 'wrong', grant_type: 'password' },
        401,
        'invalid_client',
        'invalid client credential',
      ],
      [{ client_id: 'kubesphere', client_secret: 'wrong' }, 401, 'invalid_client'],
      [{ client_id: 'kubesphere', client_secret: 'kubesphere' }, 400, 'unsupported_grant_type'],
      [
        { client_id: 'kubesphere', client_secret: 'kubesphere', grant_type: 'client_credentials' },
        400,
        'unsupported_grant_type',
      ],
      [
        { client_id: 'kubesphere', client_secret: 'kubesphere', grant_type: 'authorization_code' },
        400,
        'invalid_request',
        'code is required',
      ],
      [
        { client_id: 'kubesphere', client_secret: 'kubesphere', grant_type: 'code', code: 'garbage' },
        400,
        'invalid_grant',
      ],
      [
        { client_id: 'kubesphere', client_secret: 'kubesphere', grant_type: 'password' },
        400,
        'invalid_grant',
        'incorrect password',
      ],
      [
        { client_id: 'kubesphere', client_secret: 'kubesphere', grant_type: 'password', username: 'admin' },
        400,
        'invalid_grant',
        'incorrect password',
      ],
      [
        { client_id: 'kubesphere', client_secret: 'kubesphere', grant_type: 'refresh_token' },
        400,
        'invalid_request',
      ],
      [
        {
          client_id: 'kubesphere',
          client_secret: 'kubesphere',
          grant_type: 'refresh_token',
          refresh_token: 'garbage',
        },
        400,
        'invalid_grant',
      ],
    ];
    for (const [f, status, error, description] of cases) {
      const r = await form(f);
      assert.equal(r.status, status, JSON.stringify(f));
      assert.equal(r.body.error, error, JSON.stringify(f));
      assert.equal(typeof r.body.error_description, 'string');
      if (description) assert.equal(r.body.error_description, description);
      assert.equal(r.headers.get('cache-control'), 'no-store');
    }
  });

  test(`${name}: an unknown user and a wrong password get the same answer`, opts, async () => {
    const user = uniq('same');
    await createUser(stack, user, 'Passw0rd-same');
    const wrong = await pw(user, 'not-the-password');
    const unknown = await pw(uniq('ghost'), 'not-the-password');
    assert.equal(wrong.status, unknown.status);
    assert.deepEqual(wrong.body, unknown.body);
    assert.deepEqual(wrong.body, { error: 'invalid_grant', error_description: 'incorrect password' });
  });

  test(
    `${name}: an e-mail address logs in as its user; groups and system:authenticated travel with the token`,
    opts,
    async () => {
      const user = uniq('mail');
      await createUser(stack, user, 'Passw0rd-mail', { spec: { groups: ['devs'] } });
      const t = await login(stack, `${user}@example.com`, 'Passw0rd-mail');
      const payload = JSON.parse(Buffer.from(t.access_token.split('.')[1], 'base64url').toString());
      assert.equal(payload.username, user);
      assert.equal(payload.token_type, 'access_token');
      assert.equal(payload.iss, 'kubesphere');
      assert.equal((await (await whoami(t)).json()).sub, user);
    },
  );

  test(
    `${name}: a plaintext password set by kubectl-style writes is replaced by a bcrypt hash`,
    opts,
    async () => {
      const user = uniq('plain');
      await createUser(stack, user, 'Passw0rd-plain');
      const rest = devRest(stack);
      const u = await rest.get<{ spec: { password: string }; status: { state: string } }>(`${USERS}/${user}`);
      assert.match(u.spec.password, /^\$2[aby]\$10\$/);
      assert.equal(u.status.state, 'Active');
      // Changing it to a new plaintext: the old password stops working, the new one works once hashed.
      const fresh = await rest.get<Record<string, unknown> & { spec: Record<string, unknown> }>(
        `${USERS}/${user}`,
      );
      fresh.spec.password = 'Passw0rd-changed';
      await rest.replace(`${USERS}/${user}`, fresh);
      await eventually(
        async () => (await pw(user, 'Passw0rd-changed')).status === 200,
        15_000,
        'new password',
      );
      assert.equal((await pw(user, 'Passw0rd-plain')).status, 400);
    },
  );

  test(
    `${name}: disabled users cannot log in (revealed only with the right password) and lose their tokens`,
    opts,
    async () => {
      const user = uniq('off');
      await createUser(stack, user, 'Passw0rd-off');
      const t = await login(stack, user, 'Passw0rd-off');
      await devRest(stack).mergePatch(`${USERS}/${user}`, { status: { state: 'Disabled' } });
      await eventually(async () => (await whoami(t)).status === 401, 15_000, 'token refused');
      const right = await pw(user, 'Passw0rd-off');
      assert.equal(right.status, 400);
      assert.deepEqual(right.body, { error: 'invalid_grant', error_description: 'account is not active' });
      const wrong = await pw(user, 'nope');
      assert.equal(wrong.body.error_description, 'incorrect password');
      const refreshed = await form({
        grant_type: 'refresh_token',
        refresh_token: t.refresh_token,
        client_id: 'kubesphere',
        client_secret: 'kubesphere',
      });
      assert.equal(refreshed.status, 400);
      assert.equal(refreshed.body.error, 'invalid_grant');
    },
  );

  test(
    `${name}: refresh rotates; reusing an old refresh token is refused and revokes the user's tokens`,
    opts,
    async () => {
      const user = uniq('rot');
      await createUser(stack, user, 'Passw0rd-rot');
      const first = await login(stack, user, 'Passw0rd-rot');
      const refresh = (token: string) =>
        form({
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: 'kubesphere',
          client_secret: 'kubesphere',
        });
      const second = await refresh(first.refresh_token);
      assert.equal(second.status, 200);
      assert.equal(second.headers.get('cache-control'), 'no-store');
      assert.notEqual(second.body.refresh_token, first.refresh_token);
      assert.equal((await whoami(second.body.access_token as string)).status, 200);
      const reuse = await refresh(first.refresh_token);
      assert.equal(reuse.status, 400);
      assert.equal(reuse.body.error, 'invalid_grant');
      assert.equal(
        (await whoami(second.body.access_token as string)).status,
        401,
        'reuse revokes the whole family',
      );
      assert.equal((await refresh(second.body.refresh_token as string)).status, 400);
      const again = await login(stack, user, 'Passw0rd-rot');
      const asRefresh = await refresh(again.access_token);
      assert.equal(asRefresh.status, 400);
      assert.equal(asRefresh.body.error, 'invalid_grant', 'an access token is not a refresh token');
      assert.equal((await whoami(again.refresh_token)).status, 401, 'a refresh token is not a bearer token');
      await devRest(stack).delete(`${USERS}/${user}`);
      await eventually(
        async () => (await refresh(again.refresh_token)).status === 400,
        15_000,
        'deleted user refused',
      );
    },
  );

  test(
    `${name}: lockout after the configured failures, a correct password does not bypass it, the window passes`,
    opts,
    async () => {
      const user = uniq('lock');
      await createUser(stack, user, 'Passw0rd-lock');
      for (let i = 0; i < 3; i++) assert.equal((await pw(user, `wrong-${i}`)).status, 400);
      const locked = await pw(user, 'Passw0rd-lock');
      assert.equal(locked.status, 429);
      assert.deepEqual(locked.body, {
        error: 'invalid_grant',
        error_description: 'auth rate limit exceeded',
      });
      await eventually(
        async () =>
          (await devRest(stack).get<{ status: { state: string } }>(`${USERS}/${user}`)).status.state ===
          'AuthLimitExceeded',
        15_000,
        'user status AuthLimitExceeded',
      );
      // Unknown login names lock the same way (no user enumeration through the lockout).
      const ghost = uniq('ghost');
      for (let i = 0; i < 3; i++) await pw(ghost, 'x');
      assert.equal((await pw(ghost, 'x')).status, 429);
      await sleep(LOCKOUT_WINDOW_MS + 500);
      const after = await pw(user, 'Passw0rd-lock');
      assert.equal(after.status, 200, JSON.stringify(after.body));
      await eventually(
        async () =>
          (await devRest(stack).get<{ status: { state: string } }>(`${USERS}/${user}`)).status.state ===
          'Active',
        15_000,
        'user Active again',
      );
    },
  );

  test(`${name}: RFC 7009 revocation; revoked tokens are refused on the next call`, opts, async () => {
    const t = await login(stack);
    const revoke = (f: Record<string, string>) =>
      fetch(`${stack.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(f).toString(),
      });
    const noClient = await revoke({ token: t.access_token });
    assert.equal(noClient.status, 401);
    assert.equal((await noClient.json()).error, 'invalid_client');
    const noToken = await revoke({ client_id: 'kubesphere', client_secret: 'kubesphere' });
    assert.equal(noToken.status, 400);
    assert.equal((await noToken.json()).error, 'invalid_request');
    assert.equal(
      (await revoke({ token: 'garbage', client_id: 'kubesphere', client_secret: 'kubesphere' })).status,
      200,
    );
    assert.equal((await whoami(t)).status, 200);
    const r = await revoke({
      token: t.access_token,
      token_type_hint: 'access_token',
      client_id: 'kubesphere',
      client_secret: 'kubesphere',
    });
    assert.equal(r.status, 200);
    const refused = await whoami(t);
    assert.equal(refused.status, 401);
    assert.match((await refused.json()).message, /revoked/);
    // Revoking a refresh token stops its refresh.
    await revoke({ token: t.refresh_token, client_id: 'kubesphere', client_secret: 'kubesphere' });
    const rr = await form({
      grant_type: 'refresh_token',
      refresh_token: t.refresh_token,
      client_id: 'kubesphere',
      client_secret: 'kubesphere',
    });
    assert.equal(rr.status, 400);
  });

  test(
    `${name}: logout revokes every token of the caller; redirects only to registered URIs`,
    opts,
    async () => {
      const user = uniq('out');
      await createUser(stack, user, 'Passw0rd-out');
      const a = await login(stack, user, 'Passw0rd-out');
      const b = await login(stack, user, 'Passw0rd-out');
      const out = await get('/oauth/logout', a);
      assert.equal(out.status, 200);
      assert.deepEqual(await out.json(), { message: 'success' });
      assert.equal((await whoami(a)).status, 401);
      assert.equal((await whoami(b)).status, 401);
      const anonymous = await get('/oauth/logout');
      assert.equal(anonymous.status, 200, 'without a token there is nothing to revoke (KubeSphere: success)');
      assert.deepEqual(await anonymous.json(), { message: 'success' });
      assert.equal((await get('/oauth/logout', 'not-a-token')).status, 401, 'a bad token is still refused');
      const c = await login(stack, user, 'Passw0rd-out');
      const redirect = await get(
        '/oauth/logout?post_logout_redirect_uri=https%3A%2F%2Fportal.example.com%2F&state=xyz',
        c,
        {
          method: 'POST',
          redirect: 'manual',
        },
      );
      assert.equal(redirect.status, 302, 'a URI registered for a client (portal) is followed');
      assert.equal(redirect.headers.get('location'), 'https://portal.example.com/?state=xyz');
      assert.equal((await whoami(c)).status, 401);
      const own = await get(
        `/oauth/logout?post_logout_redirect_uri=${encodeURIComponent(`${stack.url}/login`)}`,
        await login(stack, user, 'Passw0rd-out'),
        { redirect: 'manual' },
      );
      assert.equal(own.status, 302, "kapiserver's own origin is always allowed");
      assert.equal(own.headers.get('location'), `${stack.url}/login`);
      // The kubesphere client registers `*`: that is no licence to redirect anywhere (open redirect).
      const d = await login(stack, user, 'Passw0rd-out');
      for (const evil of [
        'https://evil.example',
        'https://evil.example/',
        'https://portal.example.com/x',
        'https://portal.example.com.evil.example/',
        '//evil.example/',
        'javascript:alert(1)',
        'not a url',
      ]) {
        const bad = await get(`/oauth/logout?post_logout_redirect_uri=${encodeURIComponent(evil)}`, d, {
          redirect: 'manual',
        });
        assert.equal(bad.status, 400, evil);
        assert.equal(bad.headers.get('location'), null, evil);
        assert.equal((await bad.json()).error, 'invalid_request', evil);
      }
      const otherClient = await get(
        '/oauth/logout?client_id=kubesphere&post_logout_redirect_uri=https%3A%2F%2Fportal.example.com%2F',
        d,
        { redirect: 'manual' },
      );
      assert.equal(otherClient.status, 400, "with client_id, only that client's URIs count");
      assert.equal((await whoami(d)).status, 200, 'a refused logout revokes nothing');
    },
  );

  test(`${name}: every kind of bad bearer token gets 401 with a Status body`, opts, async () => {
    const good = await login(stack);
    const [h, p] = good.access_token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, username: 'someone', sub: 'someone' })).toString(
      'base64url',
    );
    const none = new UnsecuredJWT({ username: 'admin', sub: 'admin', token_type: 'access_token' })
      .setIssuer('kubesphere')
      .setIssuedAt()
      .encode();
    const otherKey = await new SignJWT({ username: 'admin', sub: 'admin', token_type: 'access_token' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('kubesphere')
      .setIssuedAt()
      .sign(new TextEncoder().encode('not-the-key-not-the-key-not-the-key'));
    const short = await login(stack, 'admin', stack.adminPassword, { id: 'short', secret: 'short-secret' });
    assert.equal(short.expires_in, 1);
    await sleep(2200);
    const headers: [string, Record<string, string>][] = [
      ['missing', {}],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['wrong scheme', { authorization: `Token ${good.access_token}` }],
      ['basic', { authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` }],
      ['garbage', { authorization: 'Bearer garbage' }],
      ['tampered payload', { authorization: `Bearer ${h}.${forged}.${good.access_token.split('.')[2]}` }],
      ['alg none', { authorization: `Bearer ${none}` }],
      ['other key', { authorization: `Bearer ${otherKey}` }],
      ['expired', { authorization: `Bearer ${short.access_token}` }],
      ['refresh token', { authorization: `Bearer ${good.refresh_token}` }],
    ];
    for (const [what, hdrs] of headers) {
      const r = await fetch(`${stack.url}/api/v1/namespaces`, { headers: hdrs });
      assert.equal(r.status, 401, what);
      const body = await r.json();
      assert.equal(body.kind, 'Status', what);
      assert.equal(body.reason, 'Unauthorized', what);
      assert.match(body.message, /^Unauthorized: /, what);
      assert.ok(!JSON.stringify(body).includes(good.access_token.slice(-20)), `${what}: no token echoed`);
    }
    assert.equal((await whoami(good)).status, 200, 'the good token still works');
  });

  test(
    `${name}: login records (source IP, user agent, success) are written, pruned to the maximum, lastLoginTime set`,
    opts,
    async () => {
      const user = uniq('rec');
      await createUser(stack, user, 'Passw0rd-rec');
      const rest = devRest(stack);
      const records = async () =>
        (
          await rest.list<{
            spec: { success: boolean; sourceIP: string; userAgent: string; type: string; reason: string };
          }>(
            `/apis/iam.kubesphere.io/v1alpha2/loginrecords?labelSelector=iam.kubesphere.io%2Fuser-ref%3D${user}`,
          )
        ).items;
      await pw(user, 'wrong');
      const ok = await fetch(`${stack.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'oauth-e2e/1.0' },
        body: new URLSearchParams({
          grant_type: 'password',
          username: user,
          password: 'Passw0rd-rec',
          client_id: 'kubesphere',
          client_secret: 'kubesphere',
        }),
      });
      assert.equal(ok.status, 200);
      const list = await eventually(
        async () => {
          const l = await records();
          return l.some((r) => r.spec.userAgent === 'oauth-e2e/1.0') && l.some((r) => !r.spec.success)
            ? l
            : undefined;
        },
        15_000,
        'login records',
      );
      const success = list.find((r) => r.spec.userAgent === 'oauth-e2e/1.0')!;
      assert.equal(success.spec.success, true);
      assert.equal(success.spec.type, 'Token');
      assert.match(success.spec.sourceIP, /127\.0\.0\.1/);
      const failure = list.find((r) => !r.spec.success)!;
      assert.equal(failure.spec.reason, 'incorrect password');
      const u = await eventually(
        async () =>
          (await rest.get<{ status: { lastLoginTime?: string } }>(`${USERS}/${user}`)).status.lastLoginTime,
        15_000,
        'lastLoginTime',
      );
      assert.ok(Date.now() - Date.parse(u) < 120_000);
      for (let i = 0; i < 6; i++) await login(stack, user, 'Passw0rd-rec');
      await eventually(
        async () => (await records()).length <= 4,
        15_000,
        'pruned to loginHistoryMaximumEntries (4)',
      );
    },
  );

  test(
    `${name}: the ClusterConfiguration changes clients and single-login live; invalid ones are ignored`,
    opts,
    async () => {
      const rest = devRest(stack);
      const user = uniq('cc');
      await createUser(stack, user, 'Passw0rd-cc');
      const cc = (auth: Record<string, unknown>) => ({
        apiVersion: 'installer.kubesphere.io/v1alpha1',
        kind: 'ClusterConfiguration',
        metadata: { name: 'ks-installer', namespace: 'kubesphere-system' },
        spec: { authentication: auth },
      });
      await rest.create(
        CC,
        cc({
          multipleLogin: false,
          oauthOptions: { clients: [{ name: 'kubesphere', secret: 'rotated-secret', redirectURIs: ['*'] }] },
        }),
      );
      const rotated = { id: 'kubesphere', secret: 'rotated-secret' };
      await eventually(
        async () => (await pw(user, 'Passw0rd-cc', rotated)).status === 200,
        15_000,
        'new client secret',
      );
      const old = await pw(user, 'Passw0rd-cc');
      assert.equal(old.status, 401);
      assert.equal(old.body.error, 'invalid_client');
      // multipleLogin: false: a new login revokes the older tokens of that user.
      const first = await login(stack, user, 'Passw0rd-cc', rotated);
      const second = await login(stack, user, 'Passw0rd-cc', rotated);
      assert.equal((await whoami(first)).status, 401);
      assert.equal((await whoami(second)).status, 200);
      // An invalid section is ignored: the previous settings stay.
      const live = await rest.get<Record<string, unknown> & { spec: Record<string, unknown> }>(
        `${CC}/ks-installer`,
      );
      live.spec = {
        authentication: {
          authenticateRateLimiterMaxTries: 'many',
          oauthOptions: { clients: [{ name: 'kubesphere', secret: 'x' }] },
        },
      };
      await rest.replace(`${CC}/ks-installer`, live);
      await sleep(500);
      assert.equal((await pw(user, 'Passw0rd-cc', rotated)).status, 200);
      // Deleting it returns to the file's configuration.
      await rest.delete(`${CC}/ks-installer`);
      await eventually(
        async () => (await pw(user, 'Passw0rd-cc')).status === 200,
        15_000,
        'file client secret again',
      );
      const a = await login(stack, user, 'Passw0rd-cc');
      const b = await login(stack, user, 'Passw0rd-cc');
      assert.equal((await whoami(a)).status, 200, 'multipleLogin from the file (true) again');
      assert.equal((await whoami(b)).status, 200);
    },
  );
}
