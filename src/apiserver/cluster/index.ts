export { ClusterCache } from './cache.ts';
export { ClusterConnection, type ClusterTls } from './connection.ts';
export {
  collectionPath,
  type Entry,
  type EventHandler,
  type IndexFunc,
  Informer,
  type KubeObject,
  type ObjectMeta,
  type ResourceRef,
  refKey,
  type SortField,
  type SortOrder,
} from './informer.ts';
export type { ClusterAccess } from './kubeconfig.ts';
export { isConflict, isNotFound, KubeError, KubeRest } from './rest.ts';
