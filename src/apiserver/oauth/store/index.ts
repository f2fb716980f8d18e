import type { Logger } from 'pino';
import type { KubeSphereConfig } from '../../../config/index.ts';
import { MemoryTokenStore } from './memory.ts';
import { RedisTokenStore } from './redis.ts';
import type { TokenStore } from './types.ts';

export { MemoryTokenStore } from './memory.ts';
export { RedisTokenStore } from './redis.ts';
export { type TokenStore, tokenKey } from './types.ts';

/** Redis when the configuration has a `redis` section (several replicas), memory otherwise. */
export function createTokenStore(config: KubeSphereConfig, logger?: Logger): TokenStore {
  return config.redis ? new RedisTokenStore(config.redis, logger) : new MemoryTokenStore();
}
