// Runs the token store conformance suite against the memory store and a real redis-server.
import { spawnSync } from 'node:child_process';
import { after, before } from 'node:test';
import { MemoryTokenStore, RedisTokenStore } from '../../src/apiserver/oauth/store/index.ts';
import { redisUnavailableReason, startRedis, type TestRedis } from './redis-server.ts';
import { tokenStoreConformance } from './tokenstore.conformance.ts';

tokenStoreConformance('memory', () => new MemoryTokenStore());

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
  () => new RedisTokenStore({ host: '127.0.0.1', port: redis!.port, password: '', db: 0 }),
  skip,
  async () => {
    const keys = cli('--scan').split('\n').filter(Boolean);
    return keys.map((k) => `${k} ${k.endsWith(':tokens') ? cli('zrange', k, '0', '-1') : ''}`).join('\n');
  },
);
