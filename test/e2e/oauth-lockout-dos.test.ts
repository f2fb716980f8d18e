// The lockout is no denial-of-service weapon: failed logins are also counted per source address (the TCP peer, never
// X-Forwarded-For), a source that fails too often is throttled (429 + Retry-After, RFC 6749 JSON) whatever user it
// tries, and while an attacker's failures keep a user locked, the user still logs in from an address that has not
// been failing. Each client here connects from its own loopback address (127.0.0.x) to tell sources apart.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { createUser, TEST_CLIENT } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const MAX_TRIES = 3;
const SOURCE_LIMIT = MAX_TRIES * 5;
let stack: TestStack;
const agents: Agent[] = [];

before(async () => {
  stack = await startTestStack({
    configDocument: {
      authentication: { authenticateRateLimiterMaxTries: MAX_TRIES, authenticateRateLimiterDuration: '10m' },
    },
  });
});
after(async () => {
  for (const a of agents) await a.close();
  await stack?.close();
});

/** A client whose connections come from 127.0.0.`n`. */
function from(n: number) {
  const agent = new Agent({ localAddress: `127.0.0.${n}` });
  agents.push(agent);
  return async (username: string, password: string, headers: Record<string, string> = {}) => {
    const res = await request(`${stack.url}/oauth/token`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({
        grant_type: 'password',
        username,
        password,
        client_id: TEST_CLIENT.id,
        client_secret: TEST_CLIENT.secret,
      }).toString(),
    });
    return {
      status: res.statusCode,
      retryAfter: res.headers['retry-after'],
      body: (await res.body.json()) as Record<string, unknown>,
    };
  };
}

test('a user locked by someone else still logs in from an address that has not been failing', async () => {
  await createUser(stack, 'victim', 'Passw0rd-victim');
  const attacker = from(2);
  for (let i = 0; i < MAX_TRIES; i++) assert.equal((await attacker('victim', `guess-${i}`)).status, 400);
  // KubeSphere's lockout holds for the address that caused it, even with the right password.
  const locked = await attacker('victim', 'Passw0rd-victim');
  assert.equal(locked.status, 429);
  assert.deepEqual(locked.body, { error: 'invalid_grant', error_description: 'auth rate limit exceeded' });
  assert.ok(
    Number(locked.retryAfter) > 0 && Number(locked.retryAfter) <= 600,
    `Retry-After ${locked.retryAfter}`,
  );

  const victim = from(3);
  const ok = await victim('victim', 'Passw0rd-victim');
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(typeof ok.body.access_token, 'string');
  assert.equal((await attacker('victim', 'Passw0rd-victim')).status, 429, 'the attacker is still locked out');

  // A wrong password from a clean address while the user is locked: 429, and that address is now a failing one.
  const guesser = from(4);
  const wrong = await guesser('victim', 'another-guess');
  assert.equal(wrong.status, 429);
  assert.equal(wrong.body.error_description, 'auth rate limit exceeded');
  assert.equal((await guesser('victim', 'Passw0rd-victim')).status, 429);
});

test('an address that fails too often is throttled for every user; X-Forwarded-For does not help', async () => {
  await createUser(stack, 'bystander', 'Passw0rd-bystander');
  const sprayer = from(5);
  for (let i = 0; i < SOURCE_LIMIT; i++) {
    // A different user name each time (no per-user lock is reached) and a made-up forwarding header.
    const r = await sprayer(`nobody-${i}`, 'Passw0rd-guess', { 'x-forwarded-for': `198.51.100.${i}` });
    assert.equal(r.status, 400, `attempt ${i}`);
  }
  const throttled = await sprayer('bystander', 'Passw0rd-bystander', { 'x-forwarded-for': '198.51.100.250' });
  assert.equal(throttled.status, 429);
  assert.equal(throttled.body.error, 'invalid_grant');
  assert.equal(typeof throttled.body.error_description, 'string');
  assert.ok(Number(throttled.retryAfter) > 0, `Retry-After ${throttled.retryAfter}`);
  // Other addresses are not affected, and the user is not locked.
  assert.equal((await from(6)('bystander', 'Passw0rd-bystander')).status, 200);
});
