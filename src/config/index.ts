export { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, defaultConfig } from './defaults.ts';
export { formatDuration, parseDuration } from './duration.ts';
export {
  applyAuthentication,
  ConfigError,
  configFromDocument,
  type LoadedConfig,
  loadConfigFile,
} from './load.ts';
export type * from './types.ts';
