// /oauth/authorize's checks in isolation: which errors may be redirected (only once the client's redirect URI is known
// to be registered), exact-match redirect URIs, the wildcard opt-in, PKCE and the implicit opt-in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AuthorizePageError,
  AuthorizeRedirectError,
  parseAuthorizeRequest,
  redirectWith,
} from '../../../src/apiserver/oauth/authorize-request.ts';
import { ClientRegistry } from '../../../src/apiserver/oauth/clients.ts';

const base = {
  grantMethod: 'auto' as const,
  respondWithChallenges: false,
  scopeRestrictions: [],
  allowImplicitGrant: false,
};
const CB = 'https://app.example.com/cb';
const clients = new ClientRegistry([
  { ...base, name: 'app', secret: 's', redirectURIs: [CB] },
  { ...base, name: 'two', secret: 's', redirectURIs: [CB, 'https://app.example.com/other'] },
  { ...base, name: 'wild', secret: 's', redirectURIs: ['*'] },
  { ...base, name: 'public', secret: '', redirectURIs: [CB] },
  { ...base, name: 'spa', secret: 's', redirectURIs: [CB], allowImplicitGrant: true },
]);
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

const parse = (params: Record<string, unknown>, wildcard = false) =>
  parseAuthorizeRequest(params, clients, wildcard);
function pageError(params: Record<string, unknown>, wildcard = false): AuthorizePageError {
  try {
    parse(params, wildcard);
  } catch (err) {
    assert.ok(err instanceof AuthorizePageError, `expected a page error, got ${(err as Error).name}`);
    return err;
  }
  assert.fail('accepted');
}
function redirectError(params: Record<string, unknown>): AuthorizeRedirectError {
  try {
    parse(params);
  } catch (err) {
    assert.ok(err instanceof AuthorizeRedirectError, `expected a redirect error, got ${(err as Error).name}`);
    return err;
  }
  assert.fail('accepted');
}

test('client and redirect URI problems are never redirected', () => {
  assert.equal(pageError({ response_type: 'code' }).message, 'client_id is required');
  assert.equal(pageError({ response_type: 'code', client_id: 'nobody' }).error, 'invalid_client');
  for (const uri of [`${CB}/`, `${CB}?x=1`, 'https://APP.example.com/cb', 'https://evil.example.net/cb']) {
    assert.equal(pageError({ response_type: 'code', client_id: 'app', redirect_uri: uri }).status, 400, uri);
  }
  assert.match(pageError({ response_type: 'code', client_id: 'two' }).message, /redirect_uri is required/);
  assert.match(pageError({ client_id: 'app', redirect_uri: [CB, CB] }).message, /redirect_uri is repeated/);
  assert.match(pageError({ client_id: 'app', state: 'x'.repeat(3000) }).message, /state is too long/);
});

test("'*' counts only with the operator's opt-in, then for http(s) URIs without a fragment", () => {
  pageError({ response_type: 'code', client_id: 'wild', redirect_uri: 'https://anything.example/cb' });
  assert.equal(
    parse({ response_type: 'code', client_id: 'wild', redirect_uri: 'https://x.example/cb' }, true)
      .redirectUri,
    'https://x.example/cb',
  );
  pageError({ response_type: 'code', client_id: 'wild', redirect_uri: 'javascript:alert(1)' }, true);
  pageError({ response_type: 'code', client_id: 'wild', redirect_uri: 'https://x.example/cb#f' }, true);
  pageError({ response_type: 'code', client_id: 'wild' }, true);
});

test('the only registered URI is used when none is named; state and nonce are kept', () => {
  const r = parse({
    response_type: 'code',
    client_id: 'app',
    state: 's 1',
    nonce: 'n',
    scope: 'openid  email',
  });
  assert.equal(r.redirectUri, CB);
  assert.equal(r.redirectUriGiven, false);
  assert.equal(r.state, 's 1');
  assert.equal(r.nonce, 'n');
  assert.deepEqual(r.scopes, ['openid', 'email']);
});

test('later problems go back to the registered URI with state', () => {
  const e = redirectError({ client_id: 'app', state: 'st' });
  assert.equal(e.error, 'invalid_request');
  assert.equal(e.request.redirectUri, CB);
  assert.equal(e.request.state, 'st');
  assert.equal(
    redirectError({ client_id: 'app', response_type: 'code id_token' }).error,
    'unsupported_response_type',
  );
  assert.equal(redirectError({ client_id: 'app', response_type: 'token' }).error, 'unauthorized_client');
  assert.equal(
    redirectError({ client_id: 'app', response_type: 'code', prompt: 'consent' }).error,
    'invalid_request',
  );
});

test('PKCE: S256 only, well-formed, required for a client without a secret', () => {
  const ok = parse({
    response_type: 'code',
    client_id: 'public',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  });
  assert.equal(ok.codeChallenge, CHALLENGE);
  assert.match(
    redirectError({ response_type: 'code', client_id: 'public' }).message,
    /required for this client/,
  );
  assert.match(
    redirectError({ response_type: 'code', client_id: 'app', code_challenge: CHALLENGE }).message,
    /plain is not supported/,
    'no method means plain',
  );
  assert.match(
    redirectError({
      response_type: 'code',
      client_id: 'app',
      code_challenge: CHALLENGE,
      code_challenge_method: 'plain',
    }).message,
    /plain is not supported/,
  );
  assert.match(
    redirectError({
      response_type: 'code',
      client_id: 'app',
      code_challenge: 'short',
      code_challenge_method: 'S256',
    }).message,
    /43 base64url/,
  );
  assert.equal(
    parse({ response_type: 'code', client_id: 'app' }).codeChallenge,
    undefined,
    'optional with a secret',
  );
});

test('answers: the code in the query (keeping the registered query), the implicit token in the fragment', () => {
  const code = redirectWith(
    { redirectUri: 'https://app.example.com/cb?tenant=a', responseType: 'code', state: 's&t' },
    { code: 'c' },
  );
  const u = new URL(code);
  assert.equal(u.searchParams.get('tenant'), 'a');
  assert.equal(u.searchParams.get('code'), 'c');
  assert.equal(u.searchParams.get('state'), 's&t');
  const implicit = redirectWith(
    { redirectUri: CB, responseType: 'token', state: 'x' },
    { access_token: 'a' },
  );
  assert.equal(implicit, `${CB}#access_token=a&state=x`);
  assert.equal(parse({ response_type: 'token', client_id: 'spa' }).responseType, 'token');
});
