// Writes of the bindings behind KubeSphere's one-role-per-scope model (a user's global role, cluster role, or role in
// a namespace): binding a user with a `<user>-<role>` binding takes them out of their other bindings in that scope.
// Unlike KubeSphere, a binding that also names other subjects loses only this user instead of being deleted.
// Bindings are read from the orchestrator (not the cache) so that consecutive writes see each other.
import type { KubeObject } from '../../cluster/index.ts';
import { KubeError } from '../../cluster/index.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { fromKube, type IamDeps, nativePath, RBAC_GROUP, type Rec, rec, USER_REF_LABEL } from './common.ts';

export interface BindingType {
  def: ResourceDef;
  kind: 'GlobalRoleBinding' | 'ClusterRoleBinding' | 'RoleBinding';
  roleKind: 'GlobalRole' | 'ClusterRole' | 'Role';
}

const RETRIES = 3;

const namesUser = (user: string) => (s: unknown) => {
  const r = rec(s);
  return r.kind === 'User' && r.name === user;
};

export function bindingWriter(deps: IamDeps, type: BindingType) {
  const { rest } = deps;
  const { def } = type;
  const group = def.ref.group;
  const fail = (name: string) => (e: unknown) => fromKube(e, group, def.name, name);

  /** The binding that gives `user` the role `role`. */
  const object = (namespace: string, user: string, role: string): Rec => ({
    apiVersion: `${group}/${def.ref.version}`,
    kind: type.kind,
    metadata: {
      name: `${user}-${role}`,
      ...(def.namespaced ? { namespace } : {}),
      labels: { [USER_REF_LABEL]: user },
    },
    subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: user }],
    roleRef: { apiGroup: group, kind: type.roleKind, name: role },
  });

  const bindingsOf = async (namespace: string, user: string): Promise<KubeObject[]> => {
    const list = await rest.list(nativePath(def, namespace)).catch(fail(''));
    return (list.items as KubeObject[]).filter(
      (b) => Array.isArray(b.subjects) && (b.subjects as unknown[]).some(namesUser(user)),
    );
  };

  /** Takes the user out of a binding: deletes it when they were its only subject. */
  const removeFrom = async (namespace: string, binding: KubeObject, user: string) => {
    const name = binding.metadata?.name ?? '';
    const path = nativePath(def, namespace, name);
    for (let attempt = 0, b = binding; ; attempt++) {
      const subjects = (Array.isArray(b.subjects) ? (b.subjects as unknown[]) : []).filter(
        (s) => !namesUser(user)(s),
      );
      try {
        if (subjects.length === 0) await rest.delete(path);
        else await rest.replace(path, { ...b, subjects });
        return;
      } catch (err) {
        if (err instanceof KubeError && err.code === 404) return;
        if (err instanceof KubeError && err.code === 409 && attempt < RETRIES) {
          b = (await rest.get(path).catch(fail(name))) as KubeObject;
          continue;
        }
        fail(name)(err);
      }
    }
  };

  return {
    object,
    /** Makes `role` the user's one role in the scope. */
    async setRole(namespace: string, user: string, role: string): Promise<void> {
      let bound = false;
      for (const b of await bindingsOf(namespace, user)) {
        const ref = rec(b.roleRef);
        if (!bound && ref.kind === type.roleKind && ref.name === role) {
          bound = true;
          continue;
        }
        await removeFrom(namespace, b, user);
      }
      if (!bound)
        await rest
          .create(nativePath(def, namespace), object(namespace, user, role))
          .catch(fail(`${user}-${role}`));
    },
    /** Takes the user out of every binding in the scope. */
    async removeUser(namespace: string, user: string): Promise<void> {
      for (const b of await bindingsOf(namespace, user)) await removeFrom(namespace, b, user);
    },
  };
}
