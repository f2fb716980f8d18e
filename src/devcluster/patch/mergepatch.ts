// RFC 7386 JSON Merge Patch: objects merge recursively, null deletes, everything else replaces.

import { badRequest } from '../../k8s/status.ts';
import { clone, isObj, type Obj } from './json.ts';

function merge(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch);
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

/** Applies a merge patch to a copy of `target`; a patch that is not a JSON object is 400 BadRequest. */
export function applyMergePatch(target: Obj, patch: unknown): Obj {
  if (!isObj(patch)) throw badRequest('Invalid JSON Patch');
  return merge(clone(target), patch) as Obj;
}
