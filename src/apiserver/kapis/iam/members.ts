// Members of iam.kubesphere.io/v1alpha2, as KubeSphere v3 has them: `/clustermembers` (users bound through
// ClusterRoleBindings to ClusterRoles) and `/namespaces/{namespace}/members` (users bound through RoleBindings to
// Roles of the namespace). A member has one role per scope: adding or updating a member binds them with a
// `<user>-<role>` binding and takes them out of their other bindings in that scope. Unlike KubeSphere, a binding
// that also names other subjects loses only this user instead of being deleted.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { badRequest, notFound } from '../../../k8s/status.ts';
import type { KubeObject } from '../../cluster/index.ts';
import { KubeError } from '../../crds/rest.ts';
import { parseListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, listResult } from '../schemas.ts';
import { bindingsOfUser, membersIn } from './bindings.ts';
import {
  BASE,
  checkName,
  fromKube,
  GROUP,
  type IamDeps,
  isObject,
  json,
  nativePath,
  RBAC_GROUP,
  type Rec,
  rec,
  restrictNames,
  searchOf,
  success,
  TAG,
  USER_REF_LABEL,
  USERS,
} from './common.ts';
import { checkEscalation } from './escalation.ts';
import { templatesOf } from './role-body.ts';
import { Member, memberListQuery, SuccessSchema, UserSchema } from './schemas.ts';
import { presentUser } from './users.ts';

export interface MemberScope {
  /** Path below BASE of the member collection, e.g. `/clustermembers` or `/namespaces/:namespace/members`. */
  collection: string;
  /** Path parameter naming one member. */
  param: 'clustermember' | 'member';
  bindings: ResourceDef;
  roles: ResourceDef;
  roleKind: 'ClusterRole' | 'Role';
  /** Query parameter narrowing the list to one role, and the user annotation naming the member's role. */
  roleFilter: string;
  annotation: string;
  /** Operation id stem: ClusterMember or NamespaceMember. */
  op: string;
}

interface Wanted {
  username: string;
  roleRef: string;
}

const RETRIES = 3;

function parseMember(v: unknown, where: string): Wanted {
  if (!isObject(v)) throw badRequest(`${where} must be an object {username, roleRef}`);
  return {
    username: checkName(`${where}.username`, v.username),
    roleRef: checkName(`${where}.roleRef`, v.roleRef),
  };
}

export function registerMemberRoutes(app: FastifyInstance, deps: IamDeps, scope: MemberScope): void {
  const { rest, synced, ctx } = deps;
  const { bindings, roles, roleKind, param } = scope;
  const namespaced = bindings.namespaced;
  const collection = `${BASE}${scope.collection}`;
  const one = `${collection}/:${param}`;
  const where = namespaced ? ' of a namespace' : ' of the cluster';
  const scopeParams: Record<string, TSchema> = namespaced
    ? { namespace: Type.String({ description: 'Namespace' }) }
    : {};
  const CollectionParams = Type.Object(scopeParams);
  const OneParams = Type.Object({
    ...scopeParams,
    [param]: Type.String({ description: "Member's user name" }),
  });

  const params = (request: FastifyRequest) => {
    const p = request.params as Record<string, string>;
    return {
      namespace: namespaced ? checkName('namespace', p.namespace) : '',
      member: p[param] as string | undefined,
    };
  };
  const membersOf = async (namespace: string, role?: string) =>
    membersIn(await synced(bindings), namespaced ? namespace : undefined, role);

  /** Refuses unknown users and roles (404) and bindings that would grant more than the caller holds (403). */
  const check = async (request: FastifyRequest, namespace: string, wanted: Wanted[]) => {
    const users = await synced(USERS);
    const roleInf = await synced(roles);
    for (const m of wanted) {
      if (!users.get('', m.username)) throw notFound(GROUP, 'users', m.username);
      if (!roleInf.get(namespace, m.roleRef)) throw notFound(RBAC_GROUP, roles.name, m.roleRef);
      await checkEscalation(
        ctx,
        request,
        {
          group: RBAC_GROUP,
          resource: bindings.name,
          namespace,
          name: `${m.username}-${m.roleRef}`,
          verb: 'create',
        },
        bindingObject(namespace, m),
      );
    }
  };

  const bindingObject = (namespace: string, m: Wanted): Rec => ({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: namespaced ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: {
      name: `${m.username}-${m.roleRef}`,
      ...(namespaced ? { namespace } : {}),
      labels: { [USER_REF_LABEL]: m.username },
    },
    subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: m.username }],
    roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name: m.roleRef },
  });

  /** The user's bindings in the scope, read from the orchestrator (not the cache) so writes see each other. */
  const currentBindings = async (namespace: string, user: string): Promise<KubeObject[]> => {
    const list = await rest
      .list(nativePath(bindings, namespace))
      .catch((e: unknown) => fromKube(e, RBAC_GROUP, bindings.name, ''));
    return (list.items as KubeObject[]).filter((b) =>
      (Array.isArray(b.subjects) ? (b.subjects as unknown[]) : [])
        .map(rec)
        .some((s) => s.kind === 'User' && s.name === user),
    );
  };

  /** Takes the user out of a binding: deletes it when they were its only subject. */
  const removeFrom = async (namespace: string, binding: KubeObject, user: string) => {
    const name = binding.metadata?.name ?? '';
    const path = nativePath(bindings, namespace, name);
    for (let attempt = 0, b = binding; ; attempt++) {
      const subjects = (Array.isArray(b.subjects) ? (b.subjects as unknown[]) : []).filter((s) => {
        const r = rec(s);
        return !(r.kind === 'User' && r.name === user);
      });
      try {
        if (subjects.length === 0) await rest.delete(path);
        else await rest.replace(path, { ...b, subjects });
        return;
      } catch (err) {
        if (err instanceof KubeError && err.code === 404) return;
        if (err instanceof KubeError && err.code === 409 && attempt < RETRIES) {
          b = (await rest
            .get(path)
            .catch((e: unknown) => fromKube(e, RBAC_GROUP, bindings.name, name))) as KubeObject;
          continue;
        }
        fromKube(err, RBAC_GROUP, bindings.name, name);
      }
    }
  };

  /** Makes `role` the user's one role in the scope. */
  const setRole = async (namespace: string, m: Wanted) => {
    let bound = false;
    for (const b of await currentBindings(namespace, m.username)) {
      const ref = rec(b.roleRef);
      if (!bound && ref.kind === roleKind && ref.name === m.roleRef) {
        bound = true;
        continue;
      }
      await removeFrom(namespace, b, m.username);
    }
    if (bound) return;
    const obj = bindingObject(namespace, m);
    await rest
      .create(nativePath(bindings, namespace), obj)
      .catch((e: unknown) => fromKube(e, RBAC_GROUP, bindings.name, rec(obj.metadata).name as string));
  };

  registerKapisRoute(app, {
    method: 'GET',
    path: collection,
    schema: {
      tags: [TAG],
      summary: `List the members${where}`,
      description: `Users bound in this scope, each annotated ${scope.annotation}=<role>. ${scope.roleFilter}=<name> keeps the members of one role.`,
      operationId: `List${scope.op}s`,
      params: CollectionParams,
      querystring: memberListQuery(scope.roleFilter),
      response: { 200: listResult(UserSchema, 'Users'), ...errors(400, 503) },
    },
    handler: async (request, reply) => {
      const { namespace } = params(request);
      const q = parseListQuery(searchOf(request), USERS.sortFields);
      const role = q.filters.get(scope.roleFilter) || undefined; // empty: no filter (KubeSphere)
      q.filters.delete(scope.roleFilter);
      const members = await membersOf(namespace, role);
      restrictNames(q, members.keys());
      const page = listPage(await synced(USERS), USERS, q);
      json(reply);
      return listBody(page, (o) => presentUser(o, scope.annotation, members.get(o.metadata?.name ?? '')));
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: one,
    schema: {
      tags: [TAG],
      summary: `Get a member${where}`,
      description: `The user, annotated ${scope.annotation}=<role>; 404 when the user is not a member.`,
      operationId: `Describe${scope.op}`,
      params: OneParams,
      response: { 200: UserSchema, ...errors(404, 503) },
    },
    handler: async (request) => {
      const { namespace, member } = params(request);
      const role = (await membersOf(namespace)).get(member!);
      const e = role && (await synced(USERS)).get('', member!);
      if (!e) throw notFound(GROUP, 'users', member!);
      return presentUser(e.object(), scope.annotation, role);
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${one}/${roles.name}`,
    schema: {
      tags: [TAG],
      summary: `The role templates of a member's ${roleKind}`,
      description: `The ${roleKind}s that the member's role aggregates; an empty list when the user is no member.`,
      operationId: `Retrieve${scope.op}RoleTemplates`,
      params: OneParams,
      response: { 200: Type.Array(KubeObjectSchema), ...errors(503) },
    },
    handler: async (request, reply) => {
      const { namespace, member } = params(request);
      const roleInf = await synced(roles);
      const seen = new Set<string>();
      const out: string[] = [];
      for (const b of bindingsOfUser(await synced(bindings), member!, namespace)) {
        if (b.roleKind !== roleKind) continue;
        for (const t of templatesOf(roleInf, namespace, b.roleName)) {
          if (!seen.has(t.key)) out.push(t.json);
          seen.add(t.key);
        }
      }
      json(reply);
      return `[${out.join(',')}]`;
    },
  });
  registerKapisRoute(app, {
    method: 'POST',
    path: collection,
    schema: {
      tags: [TAG],
      summary: `Add members${where}`,
      description: `Binds each user to the ${roleKind} named by roleRef (replacing their other bindings here). Nobody may bind a role granting more than they hold. Every member is checked before anything is written.`,
      operationId: `Create${scope.op}s`,
      params: CollectionParams,
      body: Type.Array(Member),
      response: { 200: Type.Array(Member), ...errors(400, 404, 409, 503) },
    },
    handler: async (request) => {
      const { namespace } = params(request);
      if (!Array.isArray(request.body))
        throw badRequest('the body must be a list of members {username, roleRef}');
      const wanted = request.body.map((m, i) => parseMember(m, `[${i}]`));
      const names = new Set(wanted.map((m) => m.username));
      if (names.size !== wanted.length) throw badRequest('each user may appear only once');
      await check(request, namespace, wanted);
      for (const m of wanted) await setRole(namespace, m);
      return wanted;
    },
  });
  registerKapisRoute(app, {
    method: 'PUT',
    path: one,
    schema: {
      tags: [TAG],
      summary: `Change the role of a member${where}`,
      operationId: `Update${scope.op}`,
      params: OneParams,
      body: Member,
      response: { 200: Member, ...errors(400, 404, 409, 503) },
    },
    handler: async (request) => {
      const { namespace, member } = params(request);
      const m = parseMember(request.body, 'the body');
      if (m.username !== member) {
        throw badRequest(
          `the name of the object (${m.username}) does not match the name on the URL (${member})`,
        );
      }
      await check(request, namespace, [m]);
      await setRole(namespace, m);
      return m;
    },
  });
  registerKapisRoute(app, {
    method: 'DELETE',
    path: one,
    schema: {
      tags: [TAG],
      summary: `Remove a member${where}`,
      description: 'Takes the user out of every binding in this scope (succeeds when there is none).',
      operationId: `Remove${scope.op}`,
      params: OneParams,
      response: { 200: SuccessSchema, ...errors(400, 503) },
    },
    handler: async (request) => {
      const { namespace, member } = params(request);
      const user = checkName('member', member);
      for (const b of await currentBindings(namespace, user)) await removeFrom(namespace, b, user);
      return success;
    },
  });
}
