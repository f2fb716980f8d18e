// Pure Kubernetes RBAC rule evaluation (PolicyRule matching, subject matching, rule coverage for escalation checks),
// with the semantics of the Kubernetes RBAC authorizer (plugin/pkg/auth/authorizer/rbac). No I/O: callers resolve
// roles and bindings and hand the rules in. Usable by kapiserver's authorizer and the dev cluster alike.

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

/** What a request asks for, in the terms rules speak (a subset of the request info). */
export interface RbacAttributes {
  isResourceRequest: boolean;
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  namespace: string;
  /** Request path; only read for non-resource requests. */
  path: string;
}

/** The caller as RBAC sees it. */
export interface RbacUser {
  name: string;
  groups: string[];
}

const ALL = '*';

function strings(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter((s): s is string => typeof s === 'string');
}

/** The object entries of an untrusted JSON array; anything else has none. */
function objectsIn(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object');
}

/** Normalises untrusted JSON (a role's `rules`) into PolicyRules; malformed entries are dropped (they grant nothing). */
export function parseRules(value: unknown): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const o of objectsIn(value)) {
    const verbs = strings(o.verbs);
    if (!verbs || verbs.length === 0) continue;
    out.push({
      verbs,
      apiGroups: strings(o.apiGroups),
      resources: strings(o.resources),
      resourceNames: strings(o.resourceNames),
      nonResourceURLs: strings(o.nonResourceURLs),
    });
  }
  return out;
}

export function parseSubjects(value: unknown): Subject[] {
  const out: Subject[] = [];
  for (const o of objectsIn(value)) {
    if (typeof o.kind !== 'string' || typeof o.name !== 'string') continue;
    out.push({
      kind: o.kind,
      name: o.name,
      namespace: typeof o.namespace === 'string' ? o.namespace : undefined,
      apiGroup: typeof o.apiGroup === 'string' ? o.apiGroup : undefined,
    });
  }
  return out;
}

export function parseRoleRef(value: unknown): RoleRef | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const o = value as Record<string, unknown>;
  if (typeof o.kind !== 'string' || typeof o.name !== 'string') return undefined;
  return { kind: o.kind, name: o.name, apiGroup: typeof o.apiGroup === 'string' ? o.apiGroup : undefined };
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.includes(ALL) || rule.verbs.includes(verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups ?? [];
  return groups.includes(ALL) || groups.includes(group);
}

// `resource` or `resource/subresource`; `*` matches all, `*/sub` matches that subresource of any resource.
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource !== '' && r === `*/${subresource}`) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*` matches every path; a rule ending in `*` matches by prefix; otherwise exact. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith(ALL) && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

export function ruleAllows(attrs: RbacAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (attrs.isResourceRequest) {
    const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    return (
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, combined, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return nonResourceURLMatches(rule, attrs.path);
}

export function rulesAllow(attrs: RbacAttributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(attrs, r));
}

/** Whether a binding subject names this user (User, a Group they are in, or their ServiceAccount). */
export function subjectMatches(subject: Subject, user: RbacUser, bindingNamespace = ''): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** Keys a subject is indexed under; `subjectKeysOf(user)` yields the keys that can match a user. */
export function subjectKey(subject: Subject, bindingNamespace = ''): string | undefined {
  switch (subject.kind) {
    case 'User':
      return `User:${subject.name}`;
    case 'Group':
      return `Group:${subject.name}`;
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns ? `User:system:serviceaccount:${ns}:${subject.name}` : undefined;
    }
    default:
      return undefined;
  }
}

export function subjectKeysOf(user: RbacUser): string[] {
  return [`User:${user.name}`, ...user.groups.map((g) => `Group:${g}`)];
}

// ---- Coverage (escalation prevention, as Kubernetes' validation.Covers) ----

function has(list: readonly string[] | undefined, v: string): boolean {
  return (list ?? []).includes(v);
}

/** Does `owner` grant everything the single-verb, single-group, single-resource, single-name rule `r` grants? */
function ownerCoversAtomic(owner: PolicyRule, r: PolicyRule): boolean {
  const verb = r.verbs[0];
  if (!(has(owner.verbs, ALL) || has(owner.verbs, verb))) return false;
  if (r.nonResourceURLs && r.nonResourceURLs.length > 0) {
    const url = r.nonResourceURLs[0];
    return (owner.nonResourceURLs ?? []).some(
      (o) => o === ALL || o === url || (o.endsWith(ALL) && url.startsWith(o.slice(0, -1))),
    );
  }
  const group = (r.apiGroups ?? [])[0];
  const resource = (r.resources ?? [])[0];
  if (group === undefined || resource === undefined) return true; // grants nothing
  if (!(has(owner.apiGroups, ALL) || has(owner.apiGroups, group))) return false;
  const slash = resource.indexOf('/');
  const coversResource = (owner.resources ?? []).some(
    (o) => o === ALL || o === resource || (slash > 0 && o === `*${resource.slice(slash)}`),
  );
  if (!coversResource) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (ownerNames.length === 0) return true;
  const name = (r.resourceNames ?? [])[0];
  return name !== undefined && ownerNames.includes(name);
}

/** Splits a rule into rules of one verb, one group, one resource, one name (or one non-resource URL). */
export function atomize(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] });
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        for (const name of names) {
          out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        }
      }
    }
  }
  return out;
}

/** The parts of `requested` that `owner` does not grant (empty when fully covered). */
export function uncoveredRules(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const atom of atomize(rule)) {
      if (!owner.some((o) => ownerCoversAtomic(o, atom))) missing.push(atom);
    }
  }
  return missing;
}

/** One-line rendering of a rule for error messages. */
export function describeRule(r: PolicyRule): string {
  const parts = [`verbs=${JSON.stringify(r.verbs)}`];
  if (r.apiGroups?.length) parts.push(`apiGroups=${JSON.stringify(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`resources=${JSON.stringify(r.resources)}`);
  if (r.resourceNames?.length) parts.push(`resourceNames=${JSON.stringify(r.resourceNames)}`);
  if (r.nonResourceURLs?.length) parts.push(`nonResourceURLs=${JSON.stringify(r.nonResourceURLs)}`);
  return `{${parts.join(' ')}}`;
}

/** Kubernetes' forbidden message (`pods "x" is forbidden: User "u" cannot get resource "pods" in API group "" ...`). */
export function forbiddenMessage(user: string, attrs: RbacAttributes, reason = ''): string {
  const suffix = reason ? `: ${reason}` : '';
  if (!attrs.isResourceRequest) {
    return `forbidden: User ${JSON.stringify(user)} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}${suffix}`;
  }
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace
    ? `in the namespace ${JSON.stringify(attrs.namespace)}`
    : 'at the cluster scope';
  const what = `User ${JSON.stringify(user)} cannot ${attrs.verb} resource ${JSON.stringify(combined)} in API group ${JSON.stringify(attrs.apiGroup)} ${scope}`;
  const qualified = attrs.apiGroup ? `${attrs.resource}.${attrs.apiGroup}` : attrs.resource;
  const subject = attrs.name ? `${qualified} ${JSON.stringify(attrs.name)}` : qualified;
  return `${subject} is forbidden: ${what}${suffix}`;
}
