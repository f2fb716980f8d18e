// RFC 6902 JSON Patch, with the status codes the Kubernetes API server answers:
// a body that is not a list of operation objects is 400 BadRequest (DecodePatch fails),
// more than 10,000 operations is 413, and any operation that cannot be applied
// (missing path, failed `test`, unknown op) is 422 Invalid.

import { badRequest, requestEntityTooLarge, StatusError } from '../../k8s/status.ts';
import { clone, deepEqual, isObj, type Obj } from './json.ts';

const MAX_OPERATIONS = 10000;

class PatchFailure extends Error {}

/** 422 the way Kubernetes words a JSON patch that does not apply, plus what went wrong. */
function unprocessable(detail: string): StatusError {
  return new StatusError(
    422,
    'Invalid',
    `the server rejected our request due to an error in our request: ${detail}`,
  );
}

function parsePointer(path: unknown, what: string): string[] {
  if (typeof path !== 'string') throw new PatchFailure(`${what} must be a string`);
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchFailure(`invalid JSON pointer ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, allowEnd: boolean): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token))
    throw new PatchFailure(`invalid array index ${JSON.stringify(token)}`);
  const i = Number(token);
  if (i > length || (!allowEnd && i === length)) throw new PatchFailure(`array index ${i} out of bounds`);
  return i;
}

/** The container that holds the last token of `tokens`, and that token. */
function parentOf(doc: unknown, tokens: string[], path: string): { parent: unknown; key: string } {
  let node = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[arrayIndex(t, node.length, false)];
    else if (isObj(node) && Object.hasOwn(node, t)) node = node[t];
    else throw new PatchFailure(`doc is missing path: "${path}": missing value`);
  }
  return { parent: node, key: tokens[tokens.length - 1] };
}

function getValue(doc: unknown, tokens: string[], path: string): unknown {
  if (tokens.length === 0) return doc;
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) return parent[arrayIndex(key, parent.length, false)];
  if (isObj(parent) && Object.hasOwn(parent, key)) return parent[key];
  throw new PatchFailure(`doc is missing key: "${path}": missing value`);
}

function addValue(doc: unknown, tokens: string[], value: unknown, path: string): unknown {
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true), 0, value);
  else if (isObj(parent)) parent[key] = value;
  else throw new PatchFailure(`doc is missing path: "${path}": missing value`);
  return doc;
}

function removeValue(doc: unknown, tokens: string[], path: string): unknown {
  if (tokens.length === 0) throw new PatchFailure('cannot remove the whole document');
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const i = arrayIndex(key, parent.length, false);
    return parent.splice(i, 1)[0];
  }
  if (isObj(parent) && Object.hasOwn(parent, key)) {
    const old = parent[key];
    delete parent[key];
    return old;
  }
  throw new PatchFailure(`Unable to remove nonexistent key: ${key}: missing value`);
}

function applyOne(doc: unknown, op: Obj, index: number): unknown {
  const kind = op.op;
  const path = op.path as string;
  const tokens = parsePointer(op.path, `operation ${index}: path`);
  switch (kind) {
    case 'add':
      if (!Object.hasOwn(op, 'value')) throw new PatchFailure(`operation ${index}: add requires a value`);
      return addValue(doc, tokens, clone(op.value), path);
    case 'remove':
      removeValue(doc, tokens, path);
      return doc;
    case 'replace': {
      if (!Object.hasOwn(op, 'value')) throw new PatchFailure(`operation ${index}: replace requires a value`);
      if (tokens.length === 0) return clone(op.value);
      getValue(doc, tokens, path); // replace needs an existing target
      const { parent, key } = parentOf(doc, tokens, path);
      if (Array.isArray(parent)) parent[arrayIndex(key, parent.length, false)] = clone(op.value);
      else (parent as Obj)[key] = clone(op.value);
      return doc;
    }
    case 'move': {
      const fromTokens = parsePointer(op.from, `operation ${index}: from`);
      const from = op.from as string;
      if (tokens.length > fromTokens.length && fromTokens.every((t, i) => tokens[i] === t)) {
        throw new PatchFailure(`cannot move "${from}" into its own child "${path}"`);
      }
      const value = removeValue(doc, fromTokens, from);
      return addValue(doc, tokens, value, path);
    }
    case 'copy': {
      const fromTokens = parsePointer(op.from, `operation ${index}: from`);
      return addValue(doc, tokens, clone(getValue(doc, fromTokens, op.from as string)), path);
    }
    case 'test': {
      const actual = getValue(doc, tokens, path);
      if (!deepEqual(actual, op.value)) throw new PatchFailure(`testing value ${path} failed: test failed`);
      return doc;
    }
    default:
      throw new PatchFailure(`Unexpected kind: ${typeof kind === 'string' ? kind : JSON.stringify(kind)}`);
  }
}

/** Applies RFC 6902 operations to a copy of `target`; throws StatusError 400/413/422. */
export function applyJsonPatch(target: Obj, ops: unknown): Obj {
  if (!Array.isArray(ops)) {
    throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  }
  if (!ops.every(isObj)) {
    throw badRequest(
      'json: cannot unmarshal a non-object operation into Go value of type jsonpatch.Operation',
    );
  }
  if (ops.length > MAX_OPERATIONS) {
    throw requestEntityTooLarge(
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_OPERATIONS}, got ${ops.length}`,
    );
  }
  let doc: unknown = clone(target);
  try {
    ops.forEach((op, i) => {
      doc = applyOne(doc, op, i);
    });
  } catch (err) {
    if (err instanceof PatchFailure) throw unprocessable(err.message);
    throw err;
  }
  if (!isObj(doc)) throw unprocessable('the patched document is not a JSON object');
  return doc;
}
