// iam.kubesphere.io/v1alpha2: users (users.ts), global, cluster, namespace and workspace roles (roles.ts), cluster,
// namespace and workspace members (members.ts), groups, group bindings and role bindings (rolebindings.ts,
// groups.ts), and read access to global role bindings. Registered in their own fastify scope, which also parses the
// merge-patch content types the PATCH routes accept.
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { notFound } from '../../../k8s/status.ts';
import type { ServerContext } from '../../context.ts';
import { BUILTIN_GLOBAL_ROLES } from '../../iam/roles.ts';
import { parseListQuery } from '../query.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, ListQueryString, listResult } from '../schemas.ts';
import { WORKSPACE_ROLE_BINDINGS, WORKSPACE_TEMPLATES } from '../workspaces.ts';
import {
  BASE,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  GLOBAL_ROLE_BINDINGS,
  GLOBAL_ROLES,
  GROUP,
  GROUP_BINDINGS,
  GROUPS,
  iamDeps,
  json,
  LOGIN_RECORDS,
  NAMESPACES,
  ROLE_BINDINGS,
  ROLES,
  searchOf,
  TAG,
  USERS,
  WORKSPACE_ROLES,
} from './common.ts';
import { registerGroupRoutes } from './groups.ts';
import { registerMemberRoutes } from './members.ts';
import { registerRoleBindingRoutes } from './rolebindings.ts';
import { registerRoleRoutes } from './roles.ts';
import { CLUSTER, NAMESPACE, workspaceScoping } from './scoping.ts';
import { registerUserRoutes } from './users.ts';

const MERGE_PATCH_TYPES = ['application/merge-patch+json', 'application/strategic-merge-patch+json'];

export function registerIamRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const deps = iamDeps(ctx);
  for (const d of [
    USERS,
    GLOBAL_ROLES,
    GLOBAL_ROLE_BINDINGS,
    LOGIN_RECORDS,
    CLUSTER_ROLES,
    CLUSTER_ROLE_BINDINGS,
    ROLES,
    ROLE_BINDINGS,
    WORKSPACE_TEMPLATES,
    WORKSPACE_ROLES,
    WORKSPACE_ROLE_BINDINGS,
    GROUPS,
    GROUP_BINDINGS,
    NAMESPACES,
  ]) {
    ctx.cache.informer(d.ref);
  }

  app.register(async (scope) => {
    // A strategic merge patch of a role or binding is a merge patch: none of their lists has a merge key.
    scope.addContentTypeParser(
      MERGE_PATCH_TYPES,
      { parseAs: 'string' },
      scope.getDefaultJsonParser('error', 'error'),
    );

    const workspace = workspaceScoping(ctx.cache, deps.synced);
    registerUserRoutes(scope, deps);
    registerRoleRoutes(scope, deps, {
      def: GLOBAL_ROLES,
      kind: 'GlobalRole',
      param: 'globalrole',
      scoping: CLUSTER,
      builtin: new Set(BUILTIN_GLOBAL_ROLES.map((r) => r.name)),
    });
    registerRoleRoutes(scope, deps, {
      def: CLUSTER_ROLES,
      kind: 'ClusterRole',
      param: 'clusterrole',
      scoping: CLUSTER,
    });
    registerRoleRoutes(scope, deps, { def: ROLES, kind: 'Role', param: 'role', scoping: NAMESPACE });
    registerRoleRoutes(scope, deps, {
      def: WORKSPACE_ROLES,
      kind: 'WorkspaceRole',
      param: 'workspacerole',
      scoping: workspace,
    });
    registerMemberRoutes(scope, deps, {
      scoping: CLUSTER,
      collection: 'clustermembers',
      param: 'clustermember',
      bindings: CLUSTER_ROLE_BINDINGS,
      roles: CLUSTER_ROLES,
      roleKind: 'ClusterRole',
      roleFilter: 'clusterrole',
      annotation: 'iam.kubesphere.io/clusterrole',
      op: 'ClusterMember',
    });
    registerMemberRoutes(scope, deps, {
      scoping: NAMESPACE,
      collection: 'members',
      param: 'member',
      bindings: ROLE_BINDINGS,
      roles: ROLES,
      roleKind: 'Role',
      roleFilter: 'role',
      annotation: 'iam.kubesphere.io/role',
      op: 'NamespaceMember',
    });
    registerMemberRoutes(scope, deps, {
      scoping: workspace,
      collection: 'workspacemembers',
      param: 'workspacemember',
      bindings: WORKSPACE_ROLE_BINDINGS,
      roles: WORKSPACE_ROLES,
      roleKind: 'WorkspaceRole',
      roleFilter: 'workspacerole',
      annotation: 'iam.kubesphere.io/workspacerole',
      op: 'WorkspaceMember',
    });
    registerGroupRoutes(scope, deps, workspace);
    registerRoleBindingRoutes(scope, deps, workspace);

    // Global role bindings: read-only here (KubeSphere binds global roles through the user's globalrole annotation).
    registerKapisRoute(scope, {
      method: 'GET',
      path: `${BASE}/globalrolebindings`,
      schema: {
        tags: [TAG],
        summary: 'List globalrolebindings',
        operationId: 'ListGlobalRoleBindings',
        querystring: ListQueryString,
        response: { 200: listResult(KubeObjectSchema, 'GlobalRoleBindings'), ...errors(400, 503) },
      },
      handler: async (request, reply) => {
        const q = parseListQuery(searchOf(request), GLOBAL_ROLE_BINDINGS.sortFields);
        const page = listPage(await deps.synced(GLOBAL_ROLE_BINDINGS), GLOBAL_ROLE_BINDINGS, q);
        json(reply);
        return listBody(page);
      },
    });
    registerKapisRoute(scope, {
      method: 'GET',
      path: `${BASE}/globalrolebindings/:name`,
      schema: {
        tags: [TAG],
        summary: 'Get a GlobalRoleBinding',
        operationId: 'DescribeGlobalRoleBinding',
        params: Type.Object({ name: Type.String() }),
        response: { 200: KubeObjectSchema, ...errors(404, 503) },
      },
      handler: async (request, reply) => {
        const { name } = request.params as { name: string };
        const e = (await deps.synced(GLOBAL_ROLE_BINDINGS)).get('', name);
        if (!e) throw notFound(GROUP, GLOBAL_ROLE_BINDINGS.name, name);
        json(reply);
        return e.json;
      },
    });
  });
}
