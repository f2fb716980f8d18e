// Members of iam.kubesphere.io/v1alpha2, as KubeSphere v3 has them: `/clustermembers` (users bound through
// ClusterRoleBindings to ClusterRoles), `/namespaces/{namespace}/members` (users bound through RoleBindings to Roles of
// the namespace) and `/workspaces/{workspace}/workspacemembers` (users bound through the workspace's
// WorkspaceRoleBindings to its WorkspaceRoles). A member has one role per scope (binding-writes.ts); a workspace
// member's role templates also come from the roles bound to the user's groups, as KubeSphere's do.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { badRequest, notFound } from '../../../k8s/status.ts';
import type { Entry } from '../../cluster/index.ts';
import { groupsConferredBy } from '../../iam/user-groups.ts';
import { parseListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, listResult } from '../schemas.ts';
import { inWorkspace } from '../workspaces.ts';
import { bindingWriter } from './binding-writes.ts';
import { bindingsOfGroups, bindingsOfUser, membersIn, membersOf } from './bindings.ts';
import {
  BASE,
  checkName,
  GROUP,
  type IamDeps,
  json,
  nameMismatch,
  restrictNames,
  searchOf,
  success,
  TAG,
  USERS,
} from './common.ts';
import { checkEscalation } from './escalation.ts';
import { templatesOf } from './role-body.ts';
import { Member, memberListQuery, SuccessSchema, UserSchema } from './schemas.ts';
import type { Scoping } from './scoping.ts';
import { presentUser } from './users.ts';

export interface MemberScope {
  scoping: Scoping;
  /** The member collection below the scoping's prefix: `clustermembers`, `members` or `workspacemembers`. */
  collection: string;
  /** Path parameter naming one member. */
  param: 'clustermember' | 'member' | 'workspacemember';
  bindings: ResourceDef;
  roles: ResourceDef;
  roleKind: 'ClusterRole' | 'Role' | 'WorkspaceRole';
  /** Query parameter narrowing the list to one role, and the user annotation naming the member's role. */
  roleFilter: string;
  annotation: string;
  /** Operation id stem: ClusterMember, NamespaceMember or WorkspaceMember. */
  op: string;
}

interface Wanted {
  username: string;
  roleRef: string;
}

/** A member the route schema let through: both names are strings; they must also be object names. */
function parseMember(v: Wanted, where: string): Wanted {
  return {
    username: checkName(`${where}.username`, v.username),
    roleRef: checkName(`${where}.roleRef`, v.roleRef),
  };
}

export function registerMemberRoutes(app: FastifyInstance, deps: IamDeps, scope: MemberScope): void {
  const { synced, ctx } = deps;
  const { bindings, roles, roleKind, param, scoping } = scope;
  const collection = `${BASE}${scoping.prefix}/${scope.collection}`;
  const one = `${collection}/:${param}`;
  const where = scoping.where;
  const CollectionParams = Type.Object(scoping.params);
  const OneParams = Type.Object({
    ...scoping.params,
    [param]: Type.String({ description: "Member's user name" }),
  });

  /** The scope (namespace or workspace; 404 for a missing workspace), its namespace, and the member named. */
  const params = async (request: FastifyRequest) => {
    const place = await scoping.of(request);
    return {
      place,
      namespace: scoping.namespace(place),
      member: (request.params as Record<string, string>)[param] as string | undefined,
    };
  };
  const writer = bindingWriter(deps, {
    def: bindings,
    kind: `${roleKind}Binding`,
    roleKind,
    scoping,
  });
  const membersHere = async (place: string, role?: string) => {
    const inf = await synced(bindings);
    if (scoping.kind === 'workspace') return membersOf(inWorkspace(inf, place), role);
    return membersIn(inf, bindings.namespaced ? place : undefined, role);
  };

  /** Refuses unknown users and roles of the scope (404) and bindings granting more than the caller holds (403). */
  const check = async (request: FastifyRequest, place: string, wanted: Wanted[]) => {
    const users = await synced(USERS);
    const roleInf = await synced(roles);
    const namespace = scoping.namespace(place);
    for (const m of wanted) {
      if (!users.get('', m.username)) throw notFound(GROUP, 'users', m.username);
      const role = roleInf.get(namespace, m.roleRef);
      if (!role || !scoping.holds(role.labels, place)) throw notFound(roles.ref.group, roles.name, m.roleRef);
      await checkEscalation(
        ctx,
        request,
        {
          group: bindings.ref.group,
          resource: bindings.name,
          namespace,
          workspace: scoping.kind === 'workspace' ? place : '',
          name: `${m.username}-${m.roleRef}`,
          verb: 'create',
        },
        writer.object(place, m.username, m.roleRef),
      );
    }
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
      const { place } = await params(request);
      const q = parseListQuery(searchOf(request), USERS.sortFields);
      const role = q.filters.get(scope.roleFilter) || undefined; // empty: no filter (KubeSphere)
      q.filters.delete(scope.roleFilter);
      const members = await membersHere(place, role);
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
      const { place, member } = await params(request);
      const role = (await membersHere(place)).get(member!);
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
      description: `The ${roleKind}s that the member's role aggregates${scoping.kind === 'workspace' ? " (also the roles bound to the user's groups)" : ''}; an empty list when the user is no member.`,
      operationId: `Retrieve${scope.op}RoleTemplates`,
      params: OneParams,
      response: { 200: Type.Array(KubeObjectSchema), ...errors(503) },
    },
    handler: async (request, reply) => {
      const { place, namespace, member } = await params(request);
      const roleInf = await synced(roles);
      const bindingInf = await synced(bindings);
      const seen = new Set<string>();
      const out: string[] = [];
      const here = (e: Entry) => scoping.holds(e.labels, place);
      const found = bindingsOfUser(bindingInf, member!, namespace, here);
      if (scoping.kind === 'workspace') {
        // KubeSphere counts the workspace roles reached through the user's groups too (reference 3.2).
        const user = (await synced(USERS)).get('', member!)?.object() as { spec?: { groups?: unknown } };
        found.push(
          ...bindingsOfGroups(inWorkspace(bindingInf, place), groupsConferredBy(user?.spec?.groups)),
        );
      }
      for (const b of found) {
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
      const { place } = await params(request);
      const wanted = (request.body as Wanted[]).map((m, i) => parseMember(m, `[${i}]`));
      const names = new Set(wanted.map((m) => m.username));
      if (names.size !== wanted.length) throw badRequest('each user may appear only once');
      await check(request, place, wanted);
      for (const m of wanted) await writer.setRole(place, m.username, m.roleRef);
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
      const { place, member } = await params(request);
      const m = parseMember(request.body as Wanted, 'the body');
      if (m.username !== member) {
        throw nameMismatch(m.username, member);
      }
      await check(request, place, [m]);
      await writer.setRole(place, m.username, m.roleRef);
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
      const { place, member } = await params(request);
      const user = checkName('member', member);
      await writer.removeUser(place, user);
      return success;
    },
  });
}
