// The OpenID Connect issuer and endpoint base: a URL issuer, else the external URL, else the request's origin; and
// the discovery document advertises only what is implemented.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discoveryDocument, oidcEndpoints } from '../../../src/apiserver/oauth/oidc-issuer.ts';
import { defaultConfig } from '../../../src/config/index.ts';

const o = (extra: Record<string, unknown>) => ({ ...defaultConfig().authentication.oauthOptions, ...extra });

test('an http(s) issuer is the OpenID issuer; a trailing /oauth is where the endpoints live', () => {
  assert.deepEqual(oidcEndpoints(o({ issuer: 'https://ks.example.com/oauth/' }), 'http://10.0.0.1:9090'), {
    issuer: 'https://ks.example.com/oauth',
    base: 'https://ks.example.com',
  });
  assert.deepEqual(oidcEndpoints(o({ issuer: 'https://ks.example.com' }), 'http://x'), {
    issuer: 'https://ks.example.com',
    base: 'https://ks.example.com',
  });
});

test("KubeSphere's default issuer is no URL: the external URL, else the request's origin, gives it", () => {
  assert.deepEqual(oidcEndpoints(o({ externalURL: 'https://ks.example.com/' }), 'http://10.0.0.1:9090'), {
    issuer: 'https://ks.example.com/oauth',
    base: 'https://ks.example.com',
  });
  assert.equal(oidcEndpoints(o({}), 'http://127.0.0.1:9090').issuer, 'http://127.0.0.1:9090/oauth');
  assert.equal(
    oidcEndpoints(o({ issuer: 'https://ks.example.com?x=1' }), 'http://h').issuer,
    'http://h/oauth',
  );
});

test('discovery: absolute endpoints; token and implicit only while a client enables them; S256 only', () => {
  const e = { issuer: 'https://ks.example.com/oauth', base: 'https://ks.example.com' };
  const d = discoveryDocument(e, false);
  assert.equal(d.authorization_endpoint, 'https://ks.example.com/oauth/authorize');
  assert.equal(d.jwks_uri, 'https://ks.example.com/oauth/keys');
  assert.deepEqual(d.response_types_supported, ['code']);
  assert.ok(!(d.grant_types_supported as string[]).includes('implicit'));
  assert.deepEqual(d.code_challenge_methods_supported, ['S256']);
  assert.deepEqual(discoveryDocument(e, true).response_types_supported, ['code', 'token']);
});
