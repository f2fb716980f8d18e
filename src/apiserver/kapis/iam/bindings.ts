// Who is bound to what, from binding informers (GlobalRoleBindings, ClusterRoleBindings, RoleBindings), as
// KubeSphere's member APIs see it: only `User` subjects make members, and a user's role in a scope is the role of
// their first binding there (KubeSphere keeps one binding per user and scope). Bindings of a user's groups are read
// only for a workspace member's role templates (bindingsOfGroups).
import type { Entry, Informer } from '../../cluster/index.ts';
import { type Rec, rec } from './common.ts';

const USER_INDEX = 'kapis:subjectUser';

/** Names of the subjects of kind `kind` ('User' or 'Group'). */
function subjectsOfKind(o: Rec, kind: string): string[] {
  const subjects = Array.isArray(o.subjects) ? (o.subjects as unknown[]) : [];
  return subjects
    .map(rec)
    .filter((s) => s.kind === kind && typeof s.name === 'string')
    .map((s) => s.name as string);
}

const userSubjects = (o: Rec) => subjectsOfKind(o, 'User');

export interface Binding {
  entry: Entry;
  roleKind: string;
  roleName: string;
}

function bindingOf(entry: Entry): Binding | undefined {
  const ref = rec(entry.object().roleRef);
  if (typeof ref.name !== 'string' || typeof ref.kind !== 'string') return undefined;
  return { entry, roleKind: ref.kind, roleName: ref.name };
}

const byName = (a: Binding, b: Binding) =>
  a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0;

/**
 * The user's bindings in `namespace` ('' for cluster-scoped binding types), ordered by name; `holds` narrows them
 * further (to those of one workspace).
 */
export function bindingsOfUser(
  inf: Informer,
  user: string,
  namespace = '',
  holds: (e: Entry) => boolean = () => true,
): Binding[] {
  inf.addIndex(USER_INDEX, (o) => userSubjects(o));
  const out: Binding[] = [];
  for (const key of inf.keysByIndex(USER_INDEX, user)) {
    const e = inf.getByKey(key);
    if (!e || e.namespace !== namespace || !holds(e)) continue;
    const b = bindingOf(e);
    if (b) out.push(b);
  }
  return out.sort(byName);
}

/** The name of the user's role in a scope, or undefined when they have none. */
export function roleOfUser(inf: Informer, user: string, namespace = ''): string | undefined {
  return bindingsOfUser(inf, user, namespace)[0]?.roleName;
}

/**
 * Every user bound in a scope, with their role (the first binding by name wins). `role` keeps only bindings of that
 * role. `namespace` undefined means a cluster-scoped binding type.
 */
export function membersIn(inf: Informer, namespace: string | undefined, role?: string): Map<string, string> {
  const entries =
    namespace === undefined ? inf.entries() : [...inf.keysInNamespace(namespace)].map((k) => inf.getByKey(k));
  return membersOf(entries, role);
}

/** Every user bound by one of these bindings, with their role (the first binding by name wins). */
export function membersOf(entries: Iterable<Entry | undefined>, role?: string): Map<string, string> {
  const bindings: Binding[] = [];
  for (const e of entries) {
    const b = e && bindingOf(e);
    if (b && (role === undefined || b.roleName === role)) bindings.push(b);
  }
  const members = new Map<string, string>();
  for (const b of bindings.sort(byName)) {
    for (const user of userSubjects(b.entry.object())) if (!members.has(user)) members.set(user, b.roleName);
  }
  return members;
}

/** The bindings among `entries` naming one of `groups` as a Group subject, ordered by name. */
export function bindingsOfGroups(entries: Iterable<Entry>, groups: readonly string[]): Binding[] {
  const out: Binding[] = [];
  if (groups.length === 0) return out;
  for (const e of entries) {
    const b = subjectsOfKind(e.object(), 'Group').some((g) => groups.includes(g)) && bindingOf(e);
    if (b) out.push(b);
  }
  return out.sort(byName);
}
