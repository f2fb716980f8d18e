// With its Redis token store down, kapiserver fails closed with the right code, fast: logins answer 503
// `temporarily_unavailable` with Retry-After (RFC 6749 shape), authenticated calls 503 with a Status body and
// Retry-After, both well within a client's patience, and /readyz turns 503 naming the token store; all of it
// recovers when Redis is back. Both ways Redis goes away: hung (SIGSTOP, the connection stays open and nothing
// answers) and gone (killed: connections refused).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bearer, eventually, login, TEST_CLIENT } from '../helpers/oauth.ts';
import { redisUnavailableReason, startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const skip = redisUnavailableReason();
if (skip) console.log(`# ${skip}`);
const opts = skip ? { skip } : {};
let redis: TestRedis | undefined;
let stack: TestStack;

before(async () => {
  if (skip) return;
  redis = await startRedis();
  stack = await startTestStack({ configDocument: { redis: { host: '127.0.0.1', port: redis.port } } });
});
after(async () => {
  redis?.resume();
  await stack?.close();
  await redis?.stop();
});

/** Well within any client's patience; without a bound on Redis commands these calls never answered. */
const PATIENCE_MS = 5000;

async function timed<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return fn(AbortSignal.timeout(PATIENCE_MS));
}

const passwordLogin = (signal?: AbortSignal) =>
  fetch(`${stack.url}/oauth/token`, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      username: 'admin',
      password: stack.adminPassword,
      client_id: TEST_CLIENT.id,
      client_secret: TEST_CLIENT.secret,
    }),
  });

/** Every entry point that needs the store answers 503 with Retry-After in its protocol's shape. */
async function assertFailsClosed(what: string, token: string) {
  const tok = await timed((signal) => passwordLogin(signal));
  assert.equal(tok.status, 503, `${what}: login`);
  assert.match(tok.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${what}: login Retry-After`);
  const body = await tok.json();
  assert.equal(body.error, 'temporarily_unavailable', `${what}: login body`);
  assert.equal(typeof body.error_description, 'string');

  const refresh = await timed((signal) =>
    fetch(`${stack.url}/oauth/token`, {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'x.y.z',
        client_id: TEST_CLIENT.id,
        client_secret: TEST_CLIENT.secret,
      }),
    }),
  );
  assert.equal(refresh.status, 400, `${what}: a refresh token that is not one needs no store`);

  for (const path of ['/api/v1/namespaces', '/kapis/iam.kubesphere.io/v1alpha2/users', '/oauth/userinfo']) {
    const r = await timed((signal) => fetch(`${stack.url}${path}`, { headers: bearer(token), signal }));
    assert.equal(r.status, 503, `${what}: ${path}`);
    assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${what}: ${path} Retry-After`);
    const status = await r.json();
    assert.equal(status.kind, 'Status', `${what}: ${path}`);
    assert.equal(status.code, 503);
  }

  const ready = await timed((signal) => fetch(`${stack.url}/readyz`, { signal }));
  assert.equal(ready.status, 503, `${what}: /readyz`);
  assert.match(await ready.text(), /\[-\]token-store/, `${what}: /readyz names the token store`);
}

async function assertRecovers(what: string): Promise<string> {
  await eventually(async () => (await fetch(`${stack.url}/readyz`)).status === 200, 15_000, `${what}: ready`);
  const r = await passwordLogin();
  assert.equal(r.status, 200, `${what}: login`);
  const token = ((await r.json()) as { access_token: string }).access_token;
  assert.equal((await fetch(`${stack.url}/api/v1/namespaces`, { headers: bearer(token) })).status, 200);
  return token;
}

test(
  'a hung Redis (SIGSTOP): 503 with Retry-After within seconds, not ready; recovers on SIGCONT',
  opts,
  async () => {
    const token = (await login(stack)).access_token;
    await eventually(async () => (await fetch(`${stack.url}/readyz`)).status === 200, 15_000, 'ready');
    redis!.pause();
    try {
      await assertFailsClosed('hung', token);
    } finally {
      redis!.resume();
    }
    await assertRecovers('after SIGCONT');
    assert.equal(
      (await fetch(`${stack.url}/api/v1/namespaces`, { headers: bearer(token) })).status,
      200,
      'tokens issued before the outage work again',
    );
  },
);

test('a killed Redis (connection refused): the same answers; recovers when Redis is back', opts, async () => {
  const token = (await login(stack)).access_token;
  const port = redis!.port;
  await redis!.stop();
  await assertFailsClosed('killed', token);
  redis = await startRedis(port);
  const fresh = await assertRecovers('after restart');
  // The new Redis is empty: tokens issued before are unknown now and refused (fail closed), new ones work.
  assert.equal((await fetch(`${stack.url}/api/v1/namespaces`, { headers: bearer(token) })).status, 401);
  assert.equal((await fetch(`${stack.url}/oauth/userinfo`, { headers: bearer(fresh) })).status, 200);
});
