// Writes of the bindings behind KubeSphere's one-role-per-scope model (a user's global role, cluster role, role in a
// namespace, or workspace role): binding a user with a `<user>-<role>` binding takes them out of their other bindings in that scope.
// Unlike KubeSphere, a binding that also names other subjects loses only this user instead of being deleted.
// Bindings are read from the orchestrator (not the cache) so that consecutive writes see each other.
import type { KubeObject } from '../../cluster/index.ts';
import { KubeError } from '../../cluster/index.ts';
import { USER_REF_LABEL } from '../../iam/labels.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { fromKube, type IamDeps, nativePath, RBAC_GROUP, type Rec, rec } from './common.ts';
import type { Scoping } from './scoping.ts';

export interface BindingType {
  def: ResourceDef;
  kind: 'GlobalRoleBinding' | 'ClusterRoleBinding' | 'RoleBinding' | 'WorkspaceRoleBinding';
  roleKind: 'GlobalRole' | 'ClusterRole' | 'Role' | 'WorkspaceRole';
  /** Workspace bindings: the `scope` argument of the writer's methods is then the workspace, not a namespace. */
  scoping?: Scoping;
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

  /** The binding that gives `user` the role `role` in `scope` (a namespace, or a workspace). */
  const object = (scope: string, user: string, role: string): Rec => {
    const metadata: Rec = {
      name: `${user}-${role}`,
      ...(def.namespaced ? { namespace: scope } : {}),
      labels: { [USER_REF_LABEL]: user },
    };
    type.scoping?.stamp(metadata, scope);
    return {
      apiVersion: `${group}/${def.ref.version}`,
      kind: type.kind,
      metadata,
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: user }],
      roleRef: { apiGroup: group, kind: type.roleKind, name: role },
    };
  };
  /** The orchestrator path of the bindings of `scope` (or of one of them). */
  const pathIn = (scope: string, name?: string) => nativePath(def, def.namespaced ? scope : '', name);

  const bindingsOf = async (scope: string, user: string): Promise<KubeObject[]> => {
    const selector = type.scoping?.selector(scope) ?? '';
    const query = selector ? `?labelSelector=${encodeURIComponent(selector)}` : '';
    const list = await rest.list(`${pathIn(scope)}${query}`).catch(fail(''));
    return (list.items as KubeObject[]).filter(
      (b) => Array.isArray(b.subjects) && (b.subjects as unknown[]).some(namesUser(user)),
    );
  };

  /** Takes the user out of a binding: deletes it when they were its only subject. */
  const removeFrom = async (scope: string, binding: KubeObject, user: string) => {
    const name = binding.metadata?.name ?? '';
    const path = pathIn(scope, name);
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
    async setRole(scope: string, user: string, role: string): Promise<void> {
      let bound = false;
      for (const b of await bindingsOf(scope, user)) {
        const ref = rec(b.roleRef);
        if (!bound && ref.kind === type.roleKind && ref.name === role) {
          bound = true;
          continue;
        }
        await removeFrom(scope, b, user);
      }
      if (!bound) await rest.create(pathIn(scope), object(scope, user, role)).catch(fail(`${user}-${role}`));
    },
    /** Takes the user out of every binding in the scope. */
    async removeUser(scope: string, user: string): Promise<void> {
      for (const b of await bindingsOf(scope, user)) await removeFrom(scope, b, user);
    },
  };
}
