// kapiserver as an OpenID Connect provider, over real HTTP against a real kapiserver on the dev cluster: discovery,
// the JWKS, the authorization-code flow with PKCE (bearer-authenticated, as KubeSphere's console calls it), ID tokens
// verified against /oauth/keys, userinfo, the implicit flow where enabled, and the bad input of issue 15: nothing is
// redirected to an untrusted URI, and no bad request leaves anything usable behind.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import pino from 'pino';
import { bearer, devRest, login, postToken } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const ISSUER = 'https://ks.example.com/oauth';
const CALLBACK = 'https://app.example.com/callback';
const PUBLIC_CALLBACK = 'http://127.0.0.1:7777/cb';
const CONFIDENTIAL = { id: 'webapp', secret: `s3cret-${randomBytes(6).toString('hex')}` };

let stack: TestStack;
before(async () => {
  stack = await startTestStack({
    configDocument: {
      authentication: {
        oauthOptions: {
          issuer: ISSUER,
          clients: [
            { name: 'kubesphere', secret: 'kubesphere', redirectURIs: ['*'] },
            { name: CONFIDENTIAL.id, secret: CONFIDENTIAL.secret, redirectURIs: [CALLBACK] },
            { name: 'cli', secret: '', redirectURIs: [PUBLIC_CALLBACK] },
            { name: 'spa', secret: 'spa-secret', redirectURIs: [CALLBACK], allowImplicitGrant: true },
          ],
        },
      },
    },
  });
});
after(() => stack.close());

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** GET /oauth/authorize without following redirects. */
async function authorize(params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.url}/oauth/authorize?${new URLSearchParams(params)}`, {
    redirect: 'manual',
    headers,
  });
  return { status: res.status, location: res.headers.get('location') ?? '', text: await res.text(), res };
}

async function codeFor(params: Record<string, string>, token: string): Promise<string> {
  const r = await authorize(params, bearer(token));
  assert.equal(r.status, 302, r.text);
  const code = new URL(r.location).searchParams.get('code');
  assert.ok(code, r.location);
  return code;
}

describe('discovery and keys', () => {
  test('discovery names absolute endpoints under the configured issuer, at the root and under /oauth', async () => {
    for (const path of ['/.well-known/openid-configuration', '/oauth/.well-known/openid-configuration']) {
      const res = await fetch(`${stack.url}${path}`);
      assert.equal(res.status, 200);
      const d = (await res.json()) as Record<string, unknown>;
      assert.equal(d.issuer, ISSUER);
      assert.equal(d.authorization_endpoint, 'https://ks.example.com/oauth/authorize');
      assert.equal(d.token_endpoint, 'https://ks.example.com/oauth/token');
      assert.equal(d.jwks_uri, 'https://ks.example.com/oauth/keys');
      assert.deepEqual(d.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(d.response_types_supported, ['code', 'token'], 'token: one client enables it');
      assert.ok((d.grant_types_supported as string[]).includes('authorization_code'));
    }
  });

  test('/oauth/keys serves one RSA signing key with kid, use and alg; the private part never', async () => {
    const res = await fetch(`${stack.url}/oauth/keys`);
    const { keys } = (await res.json()) as { keys: Record<string, string>[] };
    assert.equal(keys.length, 1);
    assert.equal(keys[0].kty, 'RSA');
    assert.equal(keys[0].use, 'sig');
    assert.equal(keys[0].alg, 'RS256');
    assert.ok(keys[0].kid && keys[0].n && keys[0].e);
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(keys[0][secret], undefined, secret);
  });
});

describe('authorization-code flow', () => {
  test('a bearer-authenticated authorize gets a code at once; the exchange gives tokens and an ID token', async () => {
    const admin = await login(stack);
    const { verifier, challenge } = pkce();
    const state = `st-${randomBytes(4).toString('hex')}`;
    const r = await authorize(
      {
        response_type: 'code',
        client_id: CONFIDENTIAL.id,
        redirect_uri: CALLBACK,
        scope: 'openid profile email',
        state,
        nonce: 'n-0S6_WzA2Mj',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
      bearer(admin),
    );
    assert.equal(r.status, 302);
    const target = new URL(r.location);
    assert.equal(`${target.origin}${target.pathname}`, CALLBACK);
    assert.equal(target.searchParams.get('state'), state, 'state carried through');
    const code = target.searchParams.get('code')!;

    const t = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
      client_id: CONFIDENTIAL.id,
      client_secret: CONFIDENTIAL.secret,
    });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(t.headers.get('cache-control'), 'no-store');
    const jwks = createLocalJWKSet(await (await fetch(`${stack.url}/oauth/keys`)).json());
    const { payload, protectedHeader } = await jwtVerify(t.body.id_token as string, jwks, {
      issuer: ISSUER,
      audience: CONFIDENTIAL.id,
    });
    assert.equal(protectedHeader.alg, 'RS256');
    assert.equal(payload.sub, 'admin');
    assert.equal(payload.nonce, 'n-0S6_WzA2Mj');
    assert.equal(payload.preferred_username, 'admin');
    assert.equal(payload.name, 'admin');
    assert.equal(typeof payload.auth_time, 'number');
    assert.ok((payload.exp as number) > (payload.iat as number));

    // The access token works as a bearer token; the ID token does not (RS256 is never a bearer token here).
    const info = await fetch(`${stack.url}/oauth/userinfo`, {
      headers: bearer(t.body.access_token as string),
    });
    assert.equal(info.status, 200);
    assert.equal(((await info.json()) as Record<string, unknown>).sub, 'admin');
    const post = await fetch(`${stack.url}/oauth/userinfo`, {
      method: 'POST',
      headers: bearer(t.body.access_token as string),
    });
    assert.equal(post.status, 200);
    const asBearer = await fetch(`${stack.url}/oauth/userinfo`, {
      headers: bearer(t.body.id_token as string),
    });
    assert.equal(asBearer.status, 401);
  });

  test("KubeSphere's grant_type=code works too; without openid there is no ID token", async () => {
    const admin = await login(stack);
    const code = await codeFor(
      { response_type: 'code', client_id: CONFIDENTIAL.id, scope: 'profile' },
      admin.access_token,
    );
    const t = await postToken(stack.url, {
      grant_type: 'code',
      code,
      client_id: CONFIDENTIAL.id,
      client_secret: CONFIDENTIAL.secret,
    });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(t.body.id_token, undefined);
    assert.ok(t.body.access_token);
  });

  test('an impersonated request gets no code for the impersonated user', async () => {
    const admin = await login(stack);
    const r = await authorize(
      { response_type: 'code', client_id: CONFIDENTIAL.id, state: 'imp' },
      { ...bearer(admin), 'impersonate-user': 'someone-else' },
    );
    assert.equal(r.status, 302);
    const u = new URL(r.location);
    assert.equal(u.searchParams.get('error'), 'access_denied');
    assert.equal(u.searchParams.get('code'), null);
  });

  test('a code works once; its reuse revokes the tokens it gave', async () => {
    const admin = await login(stack);
    const code = await codeFor({ response_type: 'code', client_id: CONFIDENTIAL.id }, admin.access_token);
    const form = {
      grant_type: 'authorization_code',
      code,
      client_id: CONFIDENTIAL.id,
      client_secret: CONFIDENTIAL.secret,
    };
    const first = await postToken(stack.url, form);
    assert.equal(first.status, 200);
    const again = await postToken(stack.url, form);
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    const res = await fetch(`${stack.url}/oauth/userinfo`, {
      headers: bearer(first.body.access_token as string),
    });
    assert.equal(res.status, 401, 'the tokens the code gave are revoked');
  });

  test('a public client needs PKCE and redeems with its client_id and verifier alone', async () => {
    const admin = await login(stack);
    const without = await authorize({ response_type: 'code', client_id: 'cli', state: 's1' }, bearer(admin));
    assert.equal(without.status, 302);
    const err = new URL(without.location);
    assert.equal(err.searchParams.get('error'), 'invalid_request');
    assert.equal(err.searchParams.get('state'), 's1');
    assert.equal(err.searchParams.get('code'), null);

    const { verifier, challenge } = pkce();
    const code = await codeFor(
      { response_type: 'code', client_id: 'cli', code_challenge: challenge, code_challenge_method: 'S256' },
      admin.access_token,
    );
    const wrong = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code,
      client_id: 'cli',
      code_verifier: pkce().verifier,
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    const missing = await postToken(stack.url, { grant_type: 'authorization_code', code, client_id: 'cli' });
    assert.equal(missing.body.error, 'invalid_grant');
    const ok = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code,
      client_id: 'cli',
      code_verifier: verifier,
    });
    assert.equal(ok.status, 200, 'failed attempts left the code usable by its rightful holder');
    // Only the code grant takes a public client: the password grant still needs a secret.
    const pw = await postToken(stack.url, {
      grant_type: 'password',
      username: 'admin',
      password: stack.adminPassword,
      client_id: 'cli',
    });
    assert.equal(pw.status, 401);
  });

  test('plain PKCE is refused', async () => {
    const admin = await login(stack);
    const r = await authorize(
      {
        response_type: 'code',
        client_id: 'cli',
        code_challenge: pkce().verifier,
        code_challenge_method: 'plain',
      },
      bearer(admin),
    );
    assert.equal(r.status, 302);
    assert.equal(new URL(r.location).searchParams.get('error'), 'invalid_request');
  });

  test('a code is bound to its client and redirect URI', async () => {
    const admin = await login(stack);
    const code = await codeFor(
      { response_type: 'code', client_id: CONFIDENTIAL.id, redirect_uri: CALLBACK },
      admin.access_token,
    );
    const other = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      client_id: 'kubesphere',
      client_secret: 'kubesphere',
    });
    assert.equal(other.body.error, 'invalid_grant');
    const noUri = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code,
      client_id: CONFIDENTIAL.id,
      client_secret: CONFIDENTIAL.secret,
    });
    assert.equal(
      noUri.body.error,
      'invalid_grant',
      'the request named a redirect_uri: the exchange must too',
    );
    const otherUri = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${CALLBACK}/x`,
      client_id: CONFIDENTIAL.id,
      client_secret: CONFIDENTIAL.secret,
    });
    assert.equal(otherUri.body.error, 'invalid_grant');
    const bogus = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code: 'not-a-code',
      client_id: CONFIDENTIAL.id,
      client_secret: CONFIDENTIAL.secret,
    });
    assert.equal(bogus.body.error, 'invalid_grant');
    const ok = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      client_id: CONFIDENTIAL.id,
      client_secret: CONFIDENTIAL.secret,
    });
    assert.equal(ok.status, 200);
  });

  test('a logout revokes outstanding codes', async () => {
    const admin = await login(stack);
    const code = await codeFor({ response_type: 'code', client_id: CONFIDENTIAL.id }, admin.access_token);
    await fetch(`${stack.url}/oauth/logout`, { headers: bearer(admin) });
    const t = await postToken(stack.url, {
      grant_type: 'authorization_code',
      code,
      client_id: CONFIDENTIAL.id,
      client_secret: CONFIDENTIAL.secret,
    });
    assert.equal(t.body.error, 'invalid_grant');
  });
});

describe('redirect URIs are trusted only when registered exactly', () => {
  test("the default client's '*' is ignored: an error page, never a redirect", async () => {
    const admin = await login(stack);
    const r = await authorize(
      { response_type: 'code', client_id: 'kubesphere', redirect_uri: 'https://evil.example.net/steal' },
      bearer(admin),
    );
    assert.equal(r.status, 400);
    assert.equal(r.location, '');
    assert.equal((JSON.parse(r.text) as Record<string, string>).error, 'invalid_request');
  });

  test('unknown client, unregistered or near-miss redirect URI, repeated parameter: 400 page, no redirect', async () => {
    const admin = await login(stack);
    const cases: Record<string, string>[] = [
      { response_type: 'code', client_id: 'nobody', redirect_uri: CALLBACK },
      { response_type: 'code', client_id: CONFIDENTIAL.id, redirect_uri: `${CALLBACK}/` },
      { response_type: 'code', client_id: CONFIDENTIAL.id, redirect_uri: CALLBACK.toUpperCase() },
      { response_type: 'code', redirect_uri: CALLBACK },
    ];
    for (const params of cases) {
      const r = await authorize(params, { ...bearer(admin), accept: 'text/html' });
      assert.equal(r.status, 400, JSON.stringify(params));
      assert.equal(r.location, '');
      assert.match(r.res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(r.res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    }
    const repeated = await fetch(
      `${stack.url}/oauth/authorize?response_type=code&client_id=${CONFIDENTIAL.id}&redirect_uri=${encodeURIComponent(CALLBACK)}&redirect_uri=https%3A%2F%2Fevil.example.net`,
      { redirect: 'manual', headers: bearer(admin) },
    );
    assert.equal(repeated.status, 400);
  });

  test('an unsupported response_type is redirected as an error to the registered URI, with state', async () => {
    const admin = await login(stack);
    const r = await authorize(
      { response_type: 'id_token', client_id: CONFIDENTIAL.id, state: 'xyz' },
      bearer(admin),
    );
    assert.equal(r.status, 302);
    const u = new URL(r.location);
    assert.equal(`${u.origin}${u.pathname}`, CALLBACK);
    assert.equal(u.searchParams.get('error'), 'unsupported_response_type');
    assert.equal(u.searchParams.get('state'), 'xyz');
  });
});

describe('implicit flow', () => {
  test('only for a client that enables it; the token comes in the fragment with state', async () => {
    const admin = await login(stack);
    const refused = await authorize(
      { response_type: 'token', client_id: CONFIDENTIAL.id, state: 'a' },
      bearer(admin),
    );
    // Implicit-flow errors come in the fragment too (RFC 6749 4.2.2.1).
    assert.equal(
      new URLSearchParams(new URL(refused.location).hash.slice(1)).get('error'),
      'unauthorized_client',
    );
    const r = await authorize({ response_type: 'token', client_id: 'spa', state: 'b' }, bearer(admin));
    assert.equal(r.status, 302);
    const fragment = new URLSearchParams(new URL(r.location).hash.slice(1));
    assert.equal(fragment.get('state'), 'b');
    assert.equal(fragment.get('token_type'), 'Bearer');
    assert.equal(fragment.get('refresh_token'), null);
    const info = await fetch(`${stack.url}/oauth/userinfo`, {
      headers: bearer(fragment.get('access_token')!),
    });
    assert.equal(info.status, 200);
  });
});

describe('without credentials', () => {
  test('prompt=none answers login_required to the client; otherwise the sign-in page, with a strict CSP', async () => {
    const none = await authorize({
      response_type: 'code',
      client_id: CONFIDENTIAL.id,
      prompt: 'none',
      state: 'q',
    });
    assert.equal(none.status, 302);
    assert.equal(new URL(none.location).searchParams.get('error'), 'login_required');
    const page = await authorize({ response_type: 'code', client_id: CONFIDENTIAL.id });
    assert.equal(page.status, 200);
    assert.match(page.text, /<form method="post" action="\/oauth\/sign-in">/);
    const csp = page.res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /form-action 'self' https:\/\/app\.example\.com/);
    const cookie = page.res.headers.get('set-cookie') ?? '';
    assert.match(cookie, /kapiserver_csrf=/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
  });

  test('the sign-in form refuses a cross-site POST and a missing CSRF token, and creates no session', async () => {
    const page = await authorize({ response_type: 'code', client_id: CONFIDENTIAL.id });
    const pending = /name="pending" value="([^"]+)"/.exec(page.text)![1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
    const post = (headers: Record<string, string>, body: Record<string, string>) =>
      fetch(`${stack.url}/oauth/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body),
      });
    const creds = { pending, username: 'admin', password: stack.adminPassword };
    const crossSite = await post(
      { origin: 'https://evil.example.net', cookie: `kapiserver_csrf=${csrf}` },
      { ...creds, csrf },
    );
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.headers.get('set-cookie'), null);
    const noCookie = await post({ origin: stack.url }, { ...creds, csrf });
    assert.equal(noCookie.status, 403);
    // The configured external origin (the issuer's) is kapiserver's own too: behind a TLS-terminating proxy.
    const wrongPassword = await post(
      { origin: 'https://ks.example.com', cookie: `kapiserver_csrf=${csrf}` },
      { ...creds, password: 'wrong', csrf },
    );
    assert.equal(wrongPassword.status, 400);
    const text = await wrongPassword.text();
    assert.match(text, /Incorrect username or password/);
    assert.ok(!text.includes('wrong'), 'the password is not echoed');
    const unknownUser = await post(
      { origin: stack.url, cookie: `kapiserver_csrf=${csrf}` },
      { ...creds, username: 'nobody-here', password: 'wrong', csrf },
    );
    assert.match(await unknownUser.text(), /Incorrect username or password/, 'no user enumeration');
    const ok = await post({ origin: stack.url, cookie: `kapiserver_csrf=${csrf}` }, { ...creds, csrf });
    assert.equal(ok.status, 302);
    assert.match(ok.headers.get('location') ?? '', /^https:\/\/app\.example\.com\/callback\?code=/);
    assert.match(
      ok.headers.get('set-cookie') ?? '',
      /kapiserver_session=[^;]+; Path=\/oauth; HttpOnly; SameSite=Lax; Max-Age=3600; Secure/,
      'Secure: the configured issuer is https',
    );
    const reused = await post({ origin: stack.url, cookie: `kapiserver_csrf=${csrf}` }, { ...creds, csrf });
    assert.equal(reused.status, 400, 'a pending authorization completes once');
  });
});

describe('concurrency and opt-ins', () => {
  test('two sign-ins racing on one pending authorization: exactly one completes', async () => {
    const page = await authorize({ response_type: 'code', client_id: CONFIDENTIAL.id });
    const pending = /name="pending" value="([^"]+)"/.exec(page.text)![1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
    const post = () =>
      fetch(`${stack.url}/oauth/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: stack.url,
          cookie: `kapiserver_csrf=${csrf}`,
        },
        body: new URLSearchParams({ pending, csrf, username: 'admin', password: stack.adminPassword }),
      });
    const statuses = (await Promise.all([post(), post(), post()])).map((r) => r.status).sort();
    assert.deepEqual(statuses, [302, 400, 400]);
  });

  test("allowWildcardRedirectURIs honours '*' and is warned about at start", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const wild = await startTestStack({
      dev: stack.dev,
      logger: pino({ level: 'warn' }, sink),
      configDocument: {
        authentication: {
          oauthOptions: {
            allowWildcardRedirectURIs: true,
            clients: [{ name: 'kubesphere', secret: 'kubesphere', redirectURIs: ['*'] }],
          },
        },
      },
    });
    try {
      assert.ok(
        lines.some((l) => l.includes('allowWildcardRedirectURIs is on')),
        lines.join(''),
      );
      const admin = await login(wild, 'admin', stack.adminPassword); // the admin of the shared cluster
      const res = await fetch(
        `${wild.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'kubesphere', redirect_uri: 'https://anywhere.example/cb' })}`,
        { redirect: 'manual', headers: bearer(admin) },
      );
      assert.equal(res.status, 302);
      assert.match(res.headers.get('location') ?? '', /^https:\/\/anywhere\.example\/cb\?code=/);
    } finally {
      await wild.close();
    }
  });
});

describe('signing key', () => {
  test('is kept in a Secret: the key set does not change across a restart of the server', async () => {
    const before = await (await fetch(`${stack.url}/oauth/keys`)).json();
    const secret = await devRest(stack).get<{ data: Record<string, string> }>(
      '/api/v1/namespaces/kubesphere-system/secrets/kapiserver-oidc-keys',
    );
    assert.ok(secret.data['keys.json']);
    const second = await startTestStack({ dev: stack.dev });
    try {
      assert.deepEqual(await (await fetch(`${second.url}/oauth/keys`)).json(), before);
    } finally {
      await second.close();
    }
  });
});
