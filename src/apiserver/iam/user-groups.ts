// A User's spec.groups become the groups of whoever logs in as that user, so they are a privilege like a binding:
//  - `system:` groups belong to the platform (system:masters is cluster-admin through the standard binding): no User
//    may name one (422 on every write path) and authentication never takes one from a User object, so a User
//    written to the cluster behind kapiserver's back confers none either;
//  - adding a user to a group needs the right to grant what that group's bindings grant (rbac-escalation.ts).
import { invalid } from '../../k8s/status.ts';
import type { RequestInfo, UserInfo } from '../request.ts';
import type { EscalationChecker } from './rbac-escalation.ts';

const SYSTEM_PREFIX = 'system:';

const isSystemGroup = (g: string) => g.startsWith(SYSTEM_PREFIX);
const stringsOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string') : [];

/** The groups a User object confers at authentication: its own, never a `system:` one. */
export function groupsConferredBy(specGroups: unknown): string[] {
  return stringsOf(specGroups).filter((g) => !isSystemGroup(g));
}

export interface UserGroupsWrite {
  /** The user's name (for the 422 message). */
  name: string;
  /** spec.groups as the write would store them (untrusted JSON). */
  groups: unknown;
  /** spec.groups stored before the write (undefined for a new user). */
  previous?: unknown;
}

/**
 * Checks the groups a write gives a User: 422 Invalid when it names a `system:` group (whoever writes), 403 when it
 * adds a group whose bindings grant more than the writer holds (RBAC mode only: `escalation` is then given).
 */
export async function checkUserGroupsWrite(
  escalation: EscalationChecker | undefined,
  writer: UserInfo,
  info: RequestInfo,
  write: UserGroupsWrite,
): Promise<void> {
  const groups = stringsOf(write.groups);
  const system = groups.filter(isSystemGroup);
  if (system.length > 0) {
    throw invalid('iam.kubesphere.io', 'User', write.name, [
      {
        reason: 'FieldValueForbidden',
        field: 'spec.groups',
        message: `system groups are reserved and cannot be given to a user: ${system.join(', ')}`,
      },
    ]);
  }
  if (!escalation) return;
  const before = new Set(stringsOf(write.previous));
  const added = [...new Set(groups.filter((g) => !before.has(g)))];
  if (added.length > 0) await escalation.checkGroups(writer, info, added);
}
