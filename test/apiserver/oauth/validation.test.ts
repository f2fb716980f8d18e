// The /oauth/token and /oauth/revoke forms are validated against their route schemas: a missing or empty required
// field is RFC 6749 invalid_request naming the field (never a value), raised only after client authentication and
// before the start-up check, as KubeSphere orders its errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { type DetachedContext, detachedContext } from '../../../src/apiserver/detached-context.ts';
import { oauthErrorFromValidation } from '../../../src/apiserver/oauth/errors.ts';
import { registerOAuthRoutes } from '../../../src/apiserver/oauth/index.ts';
import { defaultConfig } from '../../../src/config/index.ts';

const CLIENT = 'client_id=kubesphere&client_secret=kubesphere';
let detached: DetachedContext;
let app: FastifyInstance;

before(async () => {
  // Token issuance stays "starting" here: anything that gets past validation is a 503.
  detached = detachedContext(defaultConfig());
  app = Fastify({ logger: false });
  registerOAuthRoutes(app, detached.ctx, detached.ctx.oauth);
  await app.ready();
});
after(async () => {
  await app?.close();
  await detached?.close();
});

const post = (url: string, payload: string) =>
  app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload,
  });

test('a token form without a grant_type is unsupported_grant_type (as KubeSphere) naming the field', async () => {
  for (const form of [CLIENT, `${CLIENT}&grant_type=`, `${CLIENT}&grant_type=&password=Pw-Marker-31`]) {
    const r = await post('/oauth/token', form);
    assert.equal(r.statusCode, 400, form);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.deepEqual(r.json(), {
      error: 'unsupported_grant_type',
      error_description: 'grant_type is required',
    });
  }
  const noBody = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { authorization: `Basic ${Buffer.from('kubesphere:kubesphere').toString('base64')}` },
  });
  assert.equal(noBody.statusCode, 400);
  assert.deepEqual(noBody.json(), {
    error: 'unsupported_grant_type',
    error_description: 'grant_type is required',
  });
});

test('client authentication comes first; a valid form reaches the start-up check', async () => {
  const noClient = await post('/oauth/token', 'grant_type=');
  assert.equal(noClient.statusCode, 401);
  assert.equal(noClient.json().error, 'invalid_client');
  const starting = await post('/oauth/token', `${CLIENT}&grant_type=implicit`);
  assert.equal(starting.statusCode, 503, 'an unknown grant type is not the schema’s to refuse');
  assert.equal(starting.json().error, 'temporarily_unavailable');
});

test('a revocation form without a token is invalid_request naming the field', async () => {
  for (const form of [CLIENT, `${CLIENT}&token=`]) {
    const r = await post('/oauth/revoke', form);
    assert.equal(r.statusCode, 400, form);
    assert.deepEqual(r.json(), { error: 'invalid_request', error_description: 'token is required' });
  }
  assert.equal((await post('/oauth/revoke', 'token=')).statusCode, 401, 'client authentication first');
});

test('a field of the wrong shape is named, its value never quoted', () => {
  const e = oauthErrorFromValidation(
    [
      {
        keyword: 'type',
        instancePath: '/password',
        schemaPath: '#/properties/password',
        params: { type: 'string' },
        message: 'must be string',
      },
    ],
    'body',
  );
  assert.deepEqual(e.toBody(), { error: 'invalid_request', error_description: 'password must be string' });
  assert.equal(e.status, 400);
});
