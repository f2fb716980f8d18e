export * from './definitions.ts';
export { installCrds } from './install.ts';
export {
  isConflict,
  isNotFound,
  KubeError,
  type KubeObject,
  KubeRest,
  type ListWatch,
  listWatch,
  type WatchHandlers,
} from './rest.ts';
