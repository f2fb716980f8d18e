import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KubeSphereConfig } from '../../../config/index.ts';
import { LocalTokenStore } from './local.ts';
import { RedisTokenStore } from './redis.ts';
import type { TokenStore } from './types.ts';

export { LocalTokenStore } from './local.ts';
export { RedisTokenStore } from './redis.ts';
export { type TokenStore, TokenStoreUnavailableError, tokenKey } from './types.ts';

/**
 * Redis when the configuration has a `redis` section (several replicas share it); otherwise the local store in
 * `<dataDir>/oauth/tokens.db`, or in memory when that file cannot be opened (tokens then end with the process).
 */
export function createTokenStore(config: KubeSphereConfig, dataDir: string, logger?: Logger): TokenStore {
  if (config.redis) return new RedisTokenStore(config.redis, logger);
  const dir = join(dataDir, 'oauth');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return new LocalTokenStore(join(dir, 'tokens.db'));
  } catch (err) {
    logger?.warn(
      { dir, err: (err as Error).message },
      'token store file unavailable; tokens are kept in memory only',
    );
    return new LocalTokenStore(':memory:');
  }
}
