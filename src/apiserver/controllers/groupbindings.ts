// GroupBinding -> User spec.groups (reference 4.6): a binding adds its group to each listed user that exists, and its
// deletion (held back by a finalizer until done) takes the group away again, unless another binding still gives it.
// A `system:` group is never written into a User (iam/user-groups.ts): such a binding is ignored.
import type { ClusterCache, KubeRest } from '../cluster/index.ts';
import { groupsConferredBy } from '../iam/user-groups.ts';
import { USERS_PATH, USERS_REF, type UserObject } from '../iam/users.ts';
import {
  GROUP_BINDING_FINALIZER,
  GROUP_BINDINGS,
  hasFinalizer,
  isDeleting,
  type Obj,
  objectPath,
} from './resources.ts';
import { type Controller, enqueueKeys } from './runner.ts';

interface GroupBinding extends Obj {
  groupRef?: { name?: string };
  users?: string[];
}

/** Index of live bindings by `<group>/<user>`: is a user still in a group through some binding? */
const MEMBERSHIP_INDEX = 'controllers.groupbindings.membership';
const USER_INDEX = 'controllers.groupbindings.user';

export function groupBindingController(cache: ClusterCache, rest: KubeRest): Controller {
  const bindings = cache.informer(GROUP_BINDINGS);
  const users = cache.informer(USERS_REF);
  const usersOf = (b: GroupBinding) =>
    Array.isArray(b.users) ? b.users.filter((u) => typeof u === 'string') : [];
  bindings.addIndex(USER_INDEX, (o) => usersOf(o as GroupBinding));
  bindings.addIndex(MEMBERSHIP_INDEX, (o) => {
    const b = o as GroupBinding;
    return isDeleting(b) || !b.groupRef?.name ? [] : usersOf(b).map((u) => `${b.groupRef?.name}/${u}`);
  });

  /** Writes the user's groups with `group` added or removed; a 409 (the user changed meanwhile) retries. */
  async function setMembership(userName: string, group: string, member: boolean): Promise<void> {
    const user = users.get('', userName)?.object() as UserObject | undefined;
    if (!user || isDeleting(user as Obj)) return;
    const groups = user.spec?.groups ?? [];
    if (groups.includes(group) === member) return;
    const next = member ? [...groups, group] : groups.filter((g) => g !== group);
    await rest.mergePatch(`${USERS_PATH}/${encodeURIComponent(userName)}`, {
      metadata: { resourceVersion: user.metadata.resourceVersion },
      spec: { groups: next },
    });
  }

  return {
    name: 'groupbinding',
    informers: [bindings, users],
    watch(enqueue) {
      return [
        bindings.addEventHandler(enqueueKeys(enqueue, (o) => [String(o.metadata?.name)])),
        // A binding may name a user before the user exists.
        users.addEventHandler(
          enqueueKeys(enqueue, (o) => bindings.keysByIndex(USER_INDEX, String(o.metadata?.name))),
        ),
      ];
    },
    async reconcile(name) {
      const binding = bindings.get('', name)?.object() as GroupBinding | undefined;
      if (!binding) return undefined;
      const group = binding.groupRef?.name ?? '';
      const path = objectPath(GROUP_BINDINGS, name);
      const finalizers = binding.metadata.finalizers ?? [];
      if (isDeleting(binding)) {
        if (!hasFinalizer(binding, GROUP_BINDING_FINALIZER)) return undefined;
        for (const user of usersOf(binding)) {
          const stillBound = bindings.keysByIndex(MEMBERSHIP_INDEX, `${group}/${user}`).size > 0;
          if (group && !stillBound) await setMembership(user, group, false);
        }
        const remaining = finalizers.filter((f) => f !== GROUP_BINDING_FINALIZER);
        await rest.replace(path, { ...binding, metadata: { ...binding.metadata, finalizers: remaining } });
        return undefined;
      }
      if (!hasFinalizer(binding, GROUP_BINDING_FINALIZER)) {
        await rest.replace(path, {
          ...binding,
          metadata: { ...binding.metadata, finalizers: [...finalizers, GROUP_BINDING_FINALIZER] },
        });
        return undefined;
      }
      if (groupsConferredBy([group]).length === 0) return undefined; // empty or a system: group
      for (const user of usersOf(binding)) await setMembership(user, group, true);
      return undefined;
    },
  };
}
