// Bad input to /oauth/token and /oauth/revoke: each a 4xx RFC 6749 body, no crash, and nothing secret in the logs.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { bearer, login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

const PASSWORD_MARKER = 'Pw-Marker-7f3a9c';
const SECRET_MARKER = 'Client-Secret-Marker-51b2';
let logText = '';
const sink = new Writable({
  write(chunk, _enc, cb) {
    logText += chunk.toString();
    cb();
  },
});
let stack: TestStack;

before(async () => {
  stack = await startTestStack({
    logger: pino({ level: 'trace' }, sink),
    configDocument: {
      authentication: {
        oauthOptions: { clients: [{ name: 'kubesphere', secret: SECRET_MARKER }] },
      },
    },
  });
});
after(async () => {
  await stack?.close();
});

async function post(body: string | Buffer, headers: Record<string, string>, path = '/oauth/token') {
  const res = await fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: JSON.parse(text) };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const good = `client_id=kubesphere&client_secret=${SECRET_MARKER}`;

function assertRfc6749(
  r: { status: number; type: string; body: Record<string, unknown> },
  status: number,
  error: string,
) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.match(r.type, /^application\/json/);
  assert.equal(r.body.error, error);
  assert.equal(typeof r.body.error_description, 'string');
  assert.deepEqual(Object.keys(r.body).sort(), ['error', 'error_description']);
}

test('missing fields and unknown grant types', async () => {
  assertRfc6749(await post('', FORM), 401, 'invalid_client');
  // KubeSphere: a missing grant_type is read as "", which no grant matches.
  assertRfc6749(await post(`${good}&grant_type=`, FORM), 400, 'unsupported_grant_type');
  assertRfc6749(await post(good, FORM), 400, 'unsupported_grant_type');
  assertRfc6749(await post(`${good}&grant_type=implicit`, FORM), 400, 'unsupported_grant_type');
  assertRfc6749(await post(`${good}&grant_type=password&username=admin`, FORM), 400, 'invalid_grant');
  assertRfc6749(await post(`${good}&grant_type=refresh_token`, FORM), 400, 'invalid_request');
  const noType = await fetch(`${stack.url}/oauth/token`, { method: 'POST' });
  assert.equal(noType.status, 401);
});

test('JSON or another media type instead of a form', async () => {
  const json = JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD_MARKER });
  assertRfc6749(await post(json, { 'content-type': 'application/json' }), 415, 'invalid_request');
  assertRfc6749(await post('{not json', { 'content-type': 'application/json' }), 415, 'invalid_request');
  assertRfc6749(await post('grant_type=password', { 'content-type': 'text/plain' }), 415, 'invalid_request');
  assertRfc6749(
    await post('grant_type=password', { 'content-type': 'multipart/form-data; boundary=x' }),
    415,
    'invalid_request',
  );
});

test('repeated parameters, non-UTF-8 bytes and broken escapes', async () => {
  assertRfc6749(
    await post(`${good}&grant_type=password&grant_type=refresh_token`, FORM),
    400,
    'invalid_request',
  );
  assertRfc6749(await post(`${good}&client_id=other&grant_type=password`, FORM), 400, 'invalid_request');
  assertRfc6749(
    await post(`${good}&grant_type=password&username=admin&password=%FF%FE`, FORM),
    400,
    'invalid_request',
  );
  const raw = Buffer.concat([
    Buffer.from(`${good}&grant_type=password&username=admin&password=`),
    Buffer.from([0xc3, 0x28, 0xff]),
  ]);
  assertRfc6749(await post(raw, FORM), 400, 'invalid_request');
  assertRfc6749(await post(`${good}&grant_type=password&username=%zz`, FORM), 400, 'invalid_request');
  const badBasic = await post('grant_type=password', { ...FORM, authorization: 'Basic !!!not-base64' });
  assertRfc6749(badBasic, 401, 'invalid_client');
});

test('huge bodies and a 10 MB password are refused without reading them', async () => {
  const huge = `${good}&grant_type=password&username=admin&password=${'a'.repeat(10 * 1024 * 1024)}`;
  assertRfc6749(await post(huge, FORM), 413, 'invalid_request');
  const big = `${good}&grant_type=password&username=admin&password=${'b'.repeat(70 * 1024)}`;
  assertRfc6749(await post(big, FORM), 413, 'invalid_request');
  // Long but within the limit: an ordinary wrong password.
  const long = `${good}&grant_type=password&username=admin&password=${'c'.repeat(32 * 1024)}`;
  assertRfc6749(await post(long, FORM), 400, 'invalid_grant');
  const longUser = `${good}&grant_type=password&username=${'u'.repeat(5000)}&password=x`;
  assertRfc6749(await post(longUser, FORM), 400, 'invalid_grant');
  assert.equal((await fetch(`${stack.url}/healthz`)).status, 200, 'still serving');
});

test('revocation endpoint bad input', async () => {
  assertRfc6749(await post('token=x', FORM, '/oauth/revoke'), 401, 'invalid_client');
  assertRfc6749(await post(good, FORM, '/oauth/revoke'), 400, 'invalid_request');
  assertRfc6749(
    await post('{}', { 'content-type': 'application/json' }, '/oauth/revoke'),
    415,
    'invalid_request',
  );
});

test('nothing secret reaches the logs', async () => {
  const t = await login(stack, 'admin', stack.adminPassword, { id: 'kubesphere', secret: SECRET_MARKER });
  await post(`${good}&grant_type=password&username=admin&password=${PASSWORD_MARKER}`, FORM);
  await post(
    `client_id=kubesphere&client_secret=${SECRET_MARKER}x&grant_type=password&username=admin&password=${PASSWORD_MARKER}`,
    FORM,
  );
  await post(`${good}&grant_type=refresh_token&refresh_token=${t.refresh_token}`, FORM);
  await fetch(`${stack.url}/oauth/userinfo?access_token=${t.access_token}`, { headers: bearer(t) });
  await fetch(`${stack.url}/api/v1/namespaces`, { headers: bearer(`${t.access_token}x`) });
  await stack.api.context.oauth?.recorder.flush();
  assert.ok(logText.length > 0, 'logs were captured');
  assert.match(logText, /"path":"\/oauth\/token"/, 'requests were logged');
  for (const [what, secret] of [
    ['password', PASSWORD_MARKER],
    ['admin password', stack.adminPassword],
    ['client secret', SECRET_MARKER],
    ['access token', t.access_token.split('.')[2]],
    ['refresh token', t.refresh_token.split('.')[2]],
  ]) {
    assert.ok(!logText.includes(secret), `${what} appears in the logs`);
  }
});
