// OIDC and GitHub providers against local upstreams that speak their protocols (GitHub cannot be reached from
// here): the ID token is believed only with a good signature, iss, aud, nonce and lifetime; GitHub's errors (HTTP
// 200 with `error`) and private e-mail addresses are handled.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { OAuthError } from '../../../../src/apiserver/oauth/errors.ts';
import { GitHubIdentityProvider } from '../../../../src/apiserver/oauth/idp/github.ts';
import { OidcIdentityProvider, requestedScopes } from '../../../../src/apiserver/oauth/idp/oidc.ts';
import { parseProviders } from '../../../../src/apiserver/oauth/idp/settings.ts';

type Handler = (path: string, body: URLSearchParams, headers: Record<string, unknown>) => unknown;

async function upstream(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const answer = handler(path, new URLSearchParams(raw), req.headers);
      res.writeHead(answer === undefined ? 404 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer ?? { error: 'not_found' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

async function refusal(p: Promise<unknown>): Promise<OAuthError> {
  const err = await p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof OAuthError, String(err));
  return err;
}

function settingsOf(entry: Record<string, unknown>) {
  return parseProviders([entry] as never, () => '').providers[0] as never;
}

describe('OIDC identity provider', () => {
  let up: { url: string; server: Server };
  const keys = generateKeyPair('RS256');
  const otherKeys = generateKeyPair('RS256');
  let idToken = '';
  let exchangedWith: URLSearchParams | undefined;
  let provider: OidcIdentityProvider;

  before(async () => {
    const { publicKey } = await keys;
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    up = await upstream((path, body) => {
      if (path === '/.well-known/openid-configuration') {
        return {
          issuer: up.url,
          authorization_endpoint: `${up.url}/auth`,
          token_endpoint: `${up.url}/token`,
          jwks_uri: `${up.url}/jwks`,
          token_endpoint_auth_methods_supported: ['client_secret_post'],
        };
      }
      if (path === '/jwks') return { keys: [jwk] };
      if (path === '/token') {
        exchangedWith = body;
        return { access_token: 'at', token_type: 'Bearer', id_token: idToken };
      }
      return undefined;
    });
    provider = new OidcIdentityProvider(
      settingsOf({
        name: 'oidc',
        type: 'OIDCIdentityProvider',
        mappingMethod: 'auto',
        provider: {
          issuer: up.url,
          clientID: 'kapiserver',
          clientSecret: 'Upstream-Secret-1',
          redirectURL: 'https://kapiserver.example/oauth/callback/oidc',
          scopes: ['openid', 'email', 'groups'],
          preferredUsernameKey: 'login',
        },
      }),
    );
  });
  after(async () => {
    await provider?.close();
    up?.server.close();
  });

  async function token(claims: Record<string, unknown>, opts: { key?: 'other'; exp?: number } = {}) {
    const { privateKey } = await (opts.key === 'other' ? otherKeys : keys);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ nonce: 'n-1', login: 'Dana', email: 'dana@example.org', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(String(claims.iss ?? up.url))
      .setAudience((claims.aud as string) ?? 'kapiserver')
      .setSubject('sub-123')
      .setIssuedAt(now - 10)
      .setExpirationTime(opts.exp ?? now + 300)
      .sign(privateKey);
  }

  const finish = () => provider.finish({ query: { code: 'c-1' }, nonce: 'n-1', codeVerifier: 'v-1' });

  it('asks for openid and every configured scope, with state, nonce and PKCE S256', async () => {
    const url = new URL(await provider.authorizeURL({ state: 's', nonce: 'n', codeChallenge: 'cc' }));
    assert.equal(url.origin + url.pathname, `${up.url}/auth`);
    assert.equal(url.searchParams.get('scope'), 'openid email groups');
    assert.equal(url.searchParams.get('state'), 's');
    assert.equal(url.searchParams.get('nonce'), 'n');
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(requestedScopes([], ['profile']), 'openid profile');
  });

  it('maps the claims of a verified ID token, sending the PKCE verifier', async () => {
    idToken = await token({});
    const id = await finish();
    assert.deepEqual(id, { uid: 'sub-123', username: 'Dana', email: 'dana@example.org' });
    assert.equal(exchangedWith?.get('code_verifier'), 'v-1');
    assert.equal(exchangedWith?.get('client_secret'), 'Upstream-Secret-1'); // client_secret_post, as discovered
  });

  it('refuses a bad signature, another audience or issuer, a wrong nonce and an expired token', async () => {
    const cases: [string, Promise<string>][] = [
      ['signature', token({}, { key: 'other' })],
      ['audience', token({ aud: 'someone-else' })],
      ['issuer', token({ iss: 'https://evil.example' })],
      ['nonce', token({ nonce: 'n-2' })],
      ['expired', token({}, { exp: Math.floor(Date.now() / 1000) - 3600 })],
    ];
    for (const [what, t] of cases) {
      idToken = await t;
      const e = await refusal(finish());
      assert.equal(e.status, 401, what);
      assert.equal(e.error, 'invalid_grant', what);
    }
    const refused = await refusal(
      provider.finish({ query: { error: 'access_denied<script>' }, nonce: 'n-1', codeVerifier: 'v' }),
    );
    assert.match(refused.message, /refused the sign-in: access_denied<script>/);
  });
});

describe('GitHub identity provider (a local server speaking GitHub)', () => {
  let up: { url: string; server: Server };
  let provider: GitHubIdentityProvider;
  let publicEmail: string | null = null;

  before(async () => {
    up = await upstream((path, body, headers) => {
      if (path === '/login/oauth/access_token') {
        // GitHub answers a bad code with 200 and an error field.
        if (body.get('code') !== 'good') return { error: 'bad_verification_code' };
        return { access_token: 'gho_1', token_type: 'bearer', scope: 'user:email' };
      }
      if (headers.authorization !== 'Bearer gho_1') return undefined;
      if (path === '/api/user') return { id: 42, login: 'Octo-Cat', email: publicEmail };
      if (path === '/api/user/emails') {
        return [
          { email: 'old@example.org', primary: false, verified: true },
          { email: 'octo@example.org', primary: true, verified: true },
        ];
      }
      return undefined;
    });
    provider = new GitHubIdentityProvider(
      settingsOf({
        name: 'github',
        type: 'GitHubIdentityProvider',
        mappingMethod: 'auto',
        provider: {
          clientID: 'gh-client',
          clientSecret: 'Gh-Secret-1',
          redirectURL: 'https://kapiserver.example/oauth/callback/github',
          endpoint: {
            authURL: `${up.url}/login/oauth/authorize`,
            tokenURL: `${up.url}/login/oauth/access_token`,
            userInfoURL: `${up.url}/api/user`,
          },
        },
      }),
    );
  });
  after(async () => {
    await provider?.close();
    up?.server.close();
  });

  it('maps the numeric id, the login and the primary verified e-mail', async () => {
    const url = new URL(await provider.authorizeURL({ state: 's', nonce: 'n', codeChallenge: 'c' }));
    assert.equal(url.searchParams.get('state'), 's');
    assert.equal(url.searchParams.get('scope'), 'user:email');
    const id = await provider.finish({ query: { code: 'good' }, nonce: 'n', codeVerifier: 'v' });
    assert.deepEqual(id, { uid: '42', username: 'Octo-Cat', email: 'octo@example.org' });
    publicEmail = 'public@example.org';
    const withPublic = await provider.finish({ query: { code: 'good' }, nonce: 'n', codeVerifier: 'v' });
    assert.equal(withPublic.email, 'public@example.org');
  });

  it("refuses a code GitHub does not exchange, naming GitHub's error", async () => {
    const e = await refusal(provider.finish({ query: { code: 'bad' }, nonce: 'n', codeVerifier: 'v' }));
    assert.equal(e.status, 401);
    assert.match(e.message, /bad_verification_code/);
    assert.doesNotMatch(e.message, /Gh-Secret-1/);
  });
});
