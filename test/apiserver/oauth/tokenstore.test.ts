// Runs the token store conformance suite against the local store (in memory, and in a SQLite file) and a real
// redis-server; checks that the file-backed store keeps tokens and lockouts across a restart.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LocalTokenStore, RedisTokenStore } from '../../../src/apiserver/oauth/store/index.ts';
import { redisUnavailableReason, startRedis, type TestRedis } from '../../helpers/redis-server.ts';
import { tokenStoreConformance } from './tokenstore.conformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'kapiserver-tokens-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'conformance.db');

tokenStoreConformance('local in memory', (clock) => new LocalTokenStore(':memory:', clock));
tokenStoreConformance(
  'local file',
  (clock) => new LocalTokenStore(file, clock),
  undefined,
  async () =>
    [file, `${file}-wal`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, 'latin1'))
      .join(''),
);

test('local file: tokens, revocations and lockouts survive a restart', async () => {
  const path = join(dir, 'restart.db');
  const first = new LocalTokenStore(path);
  await first.add('alice', 'kept.token', 60_000);
  await first.add('alice', 'revoked.token', 60_000);
  await first.revoke('alice', 'revoked.token');
  await first.lock('mallory', 60_000);
  await first.close();

  const second = new LocalTokenStore(path);
  after(() => second.close());
  assert.equal(await second.isActive('alice', 'kept.token'), true);
  assert.equal(await second.isActive('alice', 'revoked.token'), false);
  assert.ok(((await second.lockedUntil('mallory')) ?? 0) > Date.now());
});

const skip = redisUnavailableReason();
if (skip) console.log(`# ${skip}`);
let redis: TestRedis | undefined;
before(async () => {
  if (!skip) redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});
const cli = (...args: string[]) =>
  spawnSync('redis-cli', ['-p', String(redis!.port), ...args], { encoding: 'utf8' }).stdout;
tokenStoreConformance(
  'redis',
  (clock) =>
    new RedisTokenStore({ host: '127.0.0.1', port: redis!.port, password: '', db: 0 }, undefined, clock),
  skip,
  async () => {
    const keys = cli('--scan').split('\n').filter(Boolean);
    return keys
      .map((k) => `${k} ${k.endsWith(':tokens') ? cli('zrange', k, '0', '-1') : cli('get', k)}`)
      .join('\n');
  },
);

test('redis: replicas racing for one record (one connection each): exactly one takes it', {
  skip,
}, async () => {
  const replicas = Array.from(
    { length: 4 },
    () => new RedisTokenStore({ host: '127.0.0.1', port: redis!.port, password: '', db: 0 }),
  );
  after(() => Promise.all(replicas.map((r) => r.close())));
  for (let round = 0; round < 10; round++) {
    const id = `state-${round}-${Date.now()}`;
    await replicas[0].putRecord('idp-login', id, 'pending sign-in', 60_000);
    const taken = await Promise.all(
      replicas.flatMap((r) => [r.takeRecord('idp-login', id), r.takeRecord('idp-login', id)]),
    );
    assert.equal(taken.filter((v) => v === 'pending sign-in').length, 1, `round ${round}`);
  }
});

test('local file: two connections to one file never both take a record', async () => {
  const path = join(dir, 'shared.db');
  const a = new LocalTokenStore(path);
  const b = new LocalTokenStore(path);
  after(async () => {
    await a.close();
    await b.close();
  });
  await a.putRecord('code', 'shared-id', 'once', 60_000);
  const taken = [await b.takeRecord('code', 'shared-id'), await a.takeRecord('code', 'shared-id')];
  assert.deepEqual(taken, ['once', undefined]);
});
