// Field sets as structured-merge-diff (sigs.k8s.io/structured-merge-diff) defines them: a set of paths,
// each a list of path elements `f:<field>`, `k:{"name":"x"}` (an associative list item by its keys),
// `v:<json>` (a set-list value) or `i:<n>`. Serialised in managedFields as FieldsV1:
// `{"f:spec":{"f:replicas":{}}}`, with `".": {}` marking a node that is itself a member and has children.

import { deepEqual, isObj, type Obj } from './json.ts';
import { type FieldSchema, fieldSchema, listSemantics } from './schema.ts';

export type Path = string[];

const SEP = '\u0000';
export const pathKey = (p: Path): string => p.join(SEP);
export const keyPath = (k: string): Path => (k === '' ? [] : k.split(SEP));

/** Keys absent from an item but defaulted by the API server before keys are computed. */
const KEY_DEFAULTS: Record<string, unknown> = { protocol: 'TCP' };

function isScalar(v: unknown): boolean {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

/** `k:{...}` element for an associative list item, or undefined when the item lacks its primary key. */
export function itemKey(item: unknown, keys: string[]): string | undefined {
  if (!isObj(item) || keys.length === 0 || !Object.hasOwn(item, keys[0])) return undefined;
  const fields: Obj = {};
  for (const k of [...keys].sort()) {
    const v = Object.hasOwn(item, k) ? item[k] : KEY_DEFAULTS[k];
    if (v === undefined) continue;
    if (!isScalar(v)) return undefined;
    fields[k] = v;
  }
  return `k:${JSON.stringify(fields)}`;
}

/** Paths that the API server never tracks in managedFields. */
const STRIPPED = new Set(
  [
    ['f:apiVersion'],
    ['f:kind'],
    ['f:metadata', 'f:name'],
    ['f:metadata', 'f:namespace'],
    ['f:metadata', 'f:creationTimestamp'],
    ['f:metadata', 'f:selfLink'],
    ['f:metadata', 'f:uid'],
    ['f:metadata', 'f:generation'],
    ['f:metadata', 'f:managedFields'],
    ['f:metadata', 'f:resourceVersion'],
    ['f:metadata', 'f:deletionTimestamp'],
    ['f:metadata', 'f:deletionGracePeriodSeconds'],
  ].map(pathKey),
);

/**
 * Object-valued fields that Go types declare as plain (non-pointer) structs: they always exist in a
 * typed object, so an Update never "adds" them and they never become members themselves.
 */
const PLAIN_STRUCTS = new Set([
  'metadata',
  'spec',
  'status',
  'template',
  'jobTemplate',
  'strategy',
  'updateStrategy',
  'resources',
  'nodeInfo',
  'daemonEndpoints',
  'roleRef',
  'involvedObject',
  'source',
  'loadBalancer',
]);

/** A path during a walk: its key (pathKey), and the path it extends by one element. */
interface WalkPath {
  key: string;
  parent: WalkPath | undefined;
  el: string;
  /** Its node once a tree walk has reached a member at or below it. */
  node?: TreeNode;
}

const rootPath = (): WalkPath => ({ key: '', parent: undefined, el: '' });

/** What a walk yields: each leaf, and each map or pointer struct with content (`container`; some walks skip those). */
interface Collect {
  add(p: WalkPath, container: boolean): void;
}

/** The path extending `p` by `el`. */
const child = (p: WalkPath, el: string): WalkPath => ({
  key: p.key === '' ? el : `${p.key}${SEP}${el}`,
  parent: p,
  el,
});

function addValue(v: unknown, f: FieldSchema, p: WalkPath, name: string, out: Collect): void {
  if (isObj(v)) {
    if (f.atomic || Object.keys(v).length === 0) {
      out.add(p, false);
      return;
    }
    if (!PLAIN_STRUCTS.has(name)) out.add(p, true);
    addObject(v, f.type, p, out);
    return;
  }
  if (Array.isArray(v)) {
    const sem = listSemantics(f);
    if (sem.kind === 'map' && v.length > 0 && v.every((item) => itemKey(item, sem.keys) !== undefined)) {
      for (const item of v as Obj[]) {
        const ip = child(p, itemKey(item, sem.keys) as string);
        out.add(ip, false);
        addObject(item, f.type, ip, out);
      }
    } else if (sem.kind === 'set' && v.length > 0 && v.every(isScalar)) {
      for (const item of v) out.add(child(p, `v:${JSON.stringify(item)}`), false);
    } else {
      out.add(p, false);
    }
    return;
  }
  out.add(p, false);
}

function addObject(obj: Obj, type: string | undefined, p: WalkPath, out: Collect): void {
  for (const k of Object.keys(obj)) {
    const fp = child(p, `f:${k}`);
    if (STRIPPED.has(fp.key)) continue;
    addValue(obj[k], fieldSchema(type, k), fp, k, out);
  }
}

/** The set of fields an object sets (leaves and associative-list items), under the schema rooted at `type`. */
export function fieldSetOf(obj: Obj, type: string): Set<string> {
  const leaves = new Set<string>();
  addObject(obj, type, rootPath(), {
    add: (p, container) => {
      if (!container) leaves.add(p.key);
    },
  });
  return leaves;
}

/** Leaves plus the maps/pointer structs that hold them; the latter count when an Update creates them. */
export function fieldSetWithContainers(
  obj: Obj,
  type: string,
): { leaves: Set<string>; containers: Set<string> } {
  const out = { leaves: new Set<string>(), containers: new Set<string>() };
  addObject(obj, type, rootPath(), {
    add: (p, container) => (container ? out.containers : out.leaves).add(p.key),
  });
  return out;
}

/**
 * The FieldsV1 tree of fieldSetWithContainers' leaves and containers together (what a create gives its manager),
 * built in the walk itself; undefined when there are none.
 */
export function fieldsV1Of(obj: Obj, type: string): Obj | undefined {
  const root = rootPath();
  const tree = newNode();
  root.node = tree;
  const attach = (p: WalkPath): TreeNode => {
    if (p.node) return p.node;
    p.node = childNode(attach(p.parent as WalkPath), p.el);
    return p.node;
  };
  addObject(obj, type, root, {
    add: (p) => {
      attach(p).member = true;
    },
  });
  return tree.children.size > 0 ? encodeTree(tree) : undefined;
}

interface TreeNode {
  member: boolean;
  children: Map<string, TreeNode>;
}

const newNode = (): TreeNode => ({ member: false, children: new Map() });

/** `parent`'s child under path element `pe`, made when missing. */
function childNode(parent: TreeNode, pe: string): TreeNode {
  let node = parent.children.get(pe);
  if (!node) {
    node = newNode();
    parent.children.set(pe, node);
  }
  return node;
}

/**
 * FieldsV1 tree for a set of paths: each node's children in sorted order (the order of the sorted paths), a member
 * that has children marked `".": {}` first, one without written `{}`.
 */
export function toFieldsV1(set: Set<string>): Obj {
  const root = newNode();
  for (const k of set) {
    let node = root;
    for (const pe of keyPath(k)) node = childNode(node, pe);
    node.member = true;
  }
  return encodeTree(root);
}

function encodeTree(node: TreeNode): Obj {
  const out: Obj = {};
  if (node.children.size === 0) return out;
  if (node.member) out['.'] = {};
  for (const pe of [...node.children.keys()].sort()) out[pe] = encodeTree(node.children.get(pe) as TreeNode);
  return out;
}

/** Set of paths in a FieldsV1 tree (tolerates malformed input by ignoring it). */
export function fromFieldsV1(tree: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown, key: string, root: boolean) => {
    if (!isObj(node)) return;
    const children = Object.keys(node).filter((k) => k !== '.');
    if (!root && (children.length === 0 || Object.hasOwn(node, '.'))) out.add(key);
    for (const k of children) walk(node[k], root ? k : `${key}${SEP}${k}`, false);
  };
  walk(tree, '', true);
  return out;
}

/** The JSON value `text` spells, or undefined when it is not JSON. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function matchItem(list: unknown[], pe: string): number {
  const body = pe.slice(2);
  if (pe.startsWith('k:')) {
    const want = jsonOf(body);
    if (!isObj(want)) return -1;
    const keys = Object.keys(want);
    return list.findIndex((item) => itemKey(item, keys) === pe || (isObj(item) && keysEqual(item, want)));
  }
  if (pe.startsWith('v:')) {
    const want = jsonOf(body);
    if (want === undefined) return -1;
    return list.findIndex((item) => deepEqual(item, want));
  }
  if (pe.startsWith('i:')) {
    const i = Number(body);
    return Number.isInteger(i) && i >= 0 && i < list.length ? i : -1;
  }
  return -1;
}

function keysEqual(item: Obj, want: Obj): boolean {
  return Object.entries(want).every(([k, v]) => (Object.hasOwn(item, k) ? item[k] : KEY_DEFAULTS[k]) === v);
}

/** The value at `path`, if present. */
export function getAt(obj: unknown, path: Path): { found: boolean; value?: unknown } {
  let node = obj;
  for (const pe of path) {
    if (pe.startsWith('f:')) {
      const k = pe.slice(2);
      if (!isObj(node) || !Object.hasOwn(node, k)) return { found: false };
      node = node[k];
    } else {
      if (!Array.isArray(node)) return { found: false };
      const i = matchItem(node, pe);
      if (i < 0) return { found: false };
      node = node[i];
    }
  }
  return { found: true, value: node };
}

/** Removes the value at `path` from `obj` (in place); missing paths are ignored. */
export function removeAt(obj: Obj, path: Path): void {
  if (path.length === 0) return;
  const parent = getAt(obj, path.slice(0, -1));
  if (!parent.found) return;
  const last = path[path.length - 1];
  if (last.startsWith('f:')) {
    if (isObj(parent.value)) delete parent.value[last.slice(2)];
  } else if (Array.isArray(parent.value)) {
    const i = matchItem(parent.value, last);
    if (i >= 0) parent.value.splice(i, 1);
  }
}

/** Human form used in conflict messages: `.spec.containers[name="nginx"].image`. */
export function pathString(path: Path): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      if (pe.startsWith('f:')) return `.${body}`;
      if (pe.startsWith('k:')) {
        try {
          const fields = JSON.parse(body) as Obj;
          return `[${Object.entries(fields)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(',')}]`;
        } catch {
          return `[${body}]`;
        }
      }
      if (pe.startsWith('v:')) return `[=${body}]`;
      return `[${body}]`;
    })
    .join('');
}

/** True when `value` at `path` differs between two objects, as a conflict check sees it. */
export function valueDiffers(a: Obj, b: Obj, path: Path): boolean {
  const va = getAt(a, path);
  const vb = getAt(b, path);
  if (va.found !== vb.found) return true;
  if (!va.found) return false;
  const last = path[path.length - 1] ?? '';
  if (last.startsWith('k:') || last.startsWith('v:')) return false; // an item's own identity
  return !deepEqual(va.value, vb.value);
}
