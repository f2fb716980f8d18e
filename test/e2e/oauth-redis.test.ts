// OAuth end to end with the Redis token store (a real redis-server started for this file).
import { after } from 'node:test';
import { oauthSuite } from '../apiserver/oauth/e2e-suite.ts';
import { redisUnavailableReason, startRedis, type TestRedis } from '../helpers/redis-server.ts';

const skip = redisUnavailableReason();
if (skip) console.log(`# ${skip}`);
let redis: TestRedis | undefined;
oauthSuite(
  'redis store',
  async () => {
    redis = await startRedis();
    return { redis: { host: '127.0.0.1', port: redis.port } };
  },
  skip,
);
// Registered after the suite's own hooks, so the stack closes before its Redis stops.
after(async () => {
  await redis?.stop();
});
