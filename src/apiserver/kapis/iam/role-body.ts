// Role objects as KubeSphere writes them: validation of untrusted bodies (400 naming the field), the
// `iam.kubesphere.io/aggregation-roles` annotation (a role that carries it gets exactly the rules of the role
// templates it names, as KubeSphere's CreateOrUpdate*Role and Patch*Role do), and JSON merge patch (RFC 7386).
import { badRequest, notFound } from '../../../k8s/status.ts';
import type { Entry, Informer } from '../../cluster/index.ts';
import { AGGREGATION_ANNOTATION } from '../../iam/rbac.ts';
import { checkName, isObject, nameMismatch, type Rec, stringMap } from './common.ts';

const RULE_LISTS = ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

/** Checks `rules` field by field; returns a clean copy (unknown rule fields are dropped). */
export function validateRules(value: unknown): Rec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('rules must be a list of PolicyRules');
  return value.map((r, i) => {
    if (!isObject(r)) throw badRequest(`rules[${i}] must be an object`);
    const out: Rec = {};
    const strings = (field: string, v: unknown) => {
      if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) {
        throw badRequest(`rules[${i}].${field} must be a list of strings`);
      }
      return v as string[];
    };
    const verbs = strings('verbs', r.verbs);
    if (verbs.length === 0 || verbs.includes('')) {
      throw badRequest(`rules[${i}].verbs must list at least one verb`);
    }
    out.verbs = verbs;
    for (const f of RULE_LISTS) if (r[f] !== undefined && r[f] !== null) out[f] = strings(f, r[f]);
    const urls = (out.nonResourceURLs as string[] | undefined)?.length ?? 0;
    const resources = (out.resources as string[] | undefined)?.length ?? 0;
    if (urls > 0 && resources > 0) {
      throw badRequest(`rules[${i}] must name either resources or nonResourceURLs, not both`);
    }
    return out;
  });
}

/** Role names in the aggregation annotation; undefined when absent. 400 when it is not a JSON list of names. */
export function aggregationOf(annotations: Record<string, string> | undefined): string[] | undefined {
  const raw = annotations?.[AGGREGATION_ANNOTATION];
  if (raw === undefined || raw === '') return undefined;
  let names: unknown;
  try {
    names = JSON.parse(raw);
  } catch {
    names = undefined;
  }
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw badRequest(`annotation ${AGGREGATION_ANNOTATION} must be a JSON list of role names`);
  }
  return names as string[];
}

/**
 * The rules of the named role templates, in order; 404 for a template that does not exist (as KubeSphere).
 * `plural`/`group` name the role type in the message.
 */
export function aggregatedRules(
  inf: Informer,
  namespace: string,
  names: string[],
  group: string,
  plural: string,
): Rec[] {
  const rules: Rec[] = [];
  for (const n of names) {
    const e = inf.get(namespace, n);
    if (!e) throw notFound(group, plural, n);
    const r = e.object().rules;
    if (Array.isArray(r)) rules.push(...(r as Rec[]));
  }
  return rules;
}

/** The role templates a role aggregates (KubeSphere's `aggregateTo` filter): missing ones are skipped. */
export function templatesOf(inf: Informer, namespace: string, role: string): Entry[] {
  const e = inf.get(namespace, role);
  if (!e) return [];
  let names: string[] | undefined;
  try {
    names = aggregationOf(e.object().metadata?.annotations);
  } catch {
    return []; // KubeSphere ignores a malformed annotation here
  }
  const out: Entry[] = [];
  for (const n of new Set(names ?? [])) {
    const t = inf.get(namespace, n);
    if (t) out.push(t);
  }
  return out;
}

export const AGGREGATION_RULE_UNSUPPORTED =
  'aggregationRule is not supported by this API (Kubernetes computes the rules of such ClusterRoles): use the ' +
  `Kubernetes API, or name role templates in the ${AGGREGATION_ANNOTATION} annotation`;

export interface RoleMeta {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
}

/** The writable metadata of a role body. `name` (from the path) must match the body's name when both are given. */
export function roleMeta(body: unknown, name?: string): RoleMeta {
  if (!isObject(body)) throw badRequest('the body must be a JSON object');
  const meta = body.metadata === undefined ? {} : body.metadata;
  if (!isObject(meta)) throw badRequest('metadata must be an object');
  const n = checkName('metadata.name', meta.name ?? name);
  if (name !== undefined && n !== name) {
    throw nameMismatch(n, name);
  }
  if (body.aggregationRule !== undefined) throw badRequest(AGGREGATION_RULE_UNSUPPORTED);
  const rv = meta.resourceVersion;
  if (rv !== undefined && typeof rv !== 'string')
    throw badRequest('metadata.resourceVersion must be a string');
  return {
    name: n,
    labels: stringMap('metadata.labels', meta.labels),
    annotations: stringMap('metadata.annotations', meta.annotations),
    resourceVersion: rv,
  };
}

/** RFC 7386 JSON merge patch: objects merge recursively, null deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Rec = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
