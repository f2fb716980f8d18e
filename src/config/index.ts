export { formatDuration, parseDuration } from './duration.ts';
export {
  configFromDocument,
  defaultConfig,
  type LoadedConfig,
  loadConfigFile,
  overlay,
} from './load.ts';
export {
  type AuditingOptions,
  type AuthenticationOptions,
  type AuthorizationOptions,
  DEFAULT_CLIENT_ID,
  DEFAULT_CLIENT_SECRET,
  type IdentityProvider,
  type KubeSphereConfig,
  type OAuthClient,
  type OAuthOptions,
  type RedisOptions,
} from './schema.ts';
export { ConfigError } from './validate.ts';
