// The password grant's lastLoginTime writes (oauth/authenticator.ts): during a burst of successful logins, one per
// interval per user however slowly the written time comes back through the cache, and a lockout that has passed
// always ends. Real bcrypt, real token store (in memory); the users and the record queue are recorded stand-ins.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import type { LoginAttempt, LoginRecorder } from '../../../src/apiserver/iam/loginrecords.ts';
import { hashPassword } from '../../../src/apiserver/iam/password.ts';
import type { UserObject, Users } from '../../../src/apiserver/iam/users.ts';
import { PasswordAuthenticator } from '../../../src/apiserver/oauth/authenticator.ts';
import { LocalTokenStore } from '../../../src/apiserver/oauth/store/local.ts';
import { defaultConfig } from '../../../src/config/load.ts';

const PASSWORD = 'P4ssw0rd!';
const client = { sourceIP: '10.0.0.1', userAgent: 'test' };

async function setup(status: UserObject['status']) {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const user = {
    metadata: { name: 'alice', uid: 'uid-alice' },
    spec: { email: 'alice@example.com', password: await hashPassword(PASSWORD) },
    status,
  } as UserObject;
  const patches: NonNullable<UserObject['status']>[] = [];
  const users = {
    lookup: (login: string) => (login === 'alice' ? user : undefined),
    patchStatus: async (_: string, s: NonNullable<UserObject['status']>) => {
      patches.push(s);
      return user;
    },
  } as unknown as Users;
  const updates: (() => Promise<unknown>)[] = [];
  const recorder = {
    record: (_: UserObject, _a: LoginAttempt, onLoggedIn?: () => Promise<unknown>) => {
      if (onLoggedIn) updates.push(onLoggedIn);
    },
  } as unknown as LoginRecorder;
  const clock = { now: () => now };
  const auth = new PasswordAuthenticator(
    users,
    new LocalTokenStore(':memory:', clock),
    recorder,
    () => defaultConfig().authentication,
    pino({ level: 'silent' }),
    clock,
  );
  const login = () => auth.authenticate('alice', PASSWORD, client);
  const run = async () => {
    for (const u of updates.splice(0)) await u();
  };
  return { login, run, patches, advance: (ms: number) => (now += ms) };
}

test('a burst of logins writes lastLoginTime once per interval, though the cache still shows the old time', async () => {
  const t = await setup({ state: 'Active', lastLoginTime: '2025-12-31T00:00:00Z' });
  for (let i = 0; i < 3; i++) await t.login();
  await t.run();
  assert.equal(t.patches.length, 1);
  assert.ok(t.patches[0].lastLoginTime);
  t.advance(1000);
  await t.login();
  await t.run();
  assert.equal(t.patches.length, 1, 'within the interval: no write');
  t.advance(5000);
  await t.login();
  await t.run();
  assert.equal(t.patches.length, 2, 'past the interval: written again');
});

test('while a passed lockout still shows, every successful login ends it', async () => {
  const t = await setup({
    state: 'AuthLimitExceeded',
    lastTransitionTime: '2025-12-31T00:00:00Z',
    lastLoginTime: '2025-12-31T00:00:00Z',
  });
  await t.login();
  await t.login();
  await t.run();
  assert.equal(t.patches.length, 2);
  assert.ok(t.patches.every((p) => p.state === 'Active' && p.lastLoginTime));
});
