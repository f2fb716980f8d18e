// Patch engines of the dev cluster: JSON patch, merge patch, strategic merge patch, server-side apply,
// and managedFields bookkeeping for ordinary writes. Pure functions over JSON-shaped objects.

export type { Obj } from './json.ts';
export { applyJsonPatch } from './jsonpatch.ts';
export {
  type ManagedFieldsEntry,
  type ServerSideApplyArgs,
  serverSideApply,
  updateManagedFields,
} from './managed.ts';
export { applyMergePatch } from './mergepatch.ts';
export {
  type FieldSchema,
  type GVK,
  KIND_SCHEMA,
  type ListMetadata,
  MERGE_KEYS,
  PATCH_SCHEMA,
  type PatchStrategy,
  type TypeSchema,
} from './schema.ts';
export { applyStrategicMergePatch } from './strategic.ts';
