// tenant.kubesphere.io v1alpha2 and v1alpha3: workspaces (workspaces.ts), namespaces of workspaces (namespaces.ts),
// clusters and the routes whose backends kapiserver does not run (absent.ts). Registered in their own fastify scope,
// which also parses the patch content types the PATCH routes accept.
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../context.ts';
import { iamDeps } from '../iam/common.ts';
import { WORKSPACE_TEMPLATES } from '../workspaces.ts';
import { registerAbsentRoutes } from './absent.ts';
import { tenantAccess } from './access.ts';
import { NAMESPACES, WORKSPACES } from './common.ts';
import { registerNamespaceRoutes } from './namespaces.ts';
import { registerWorkspaceRoutes } from './workspaces.ts';

const PATCH_TYPES = [
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
];

export function registerTenantRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const deps = iamDeps(ctx);
  for (const d of [WORKSPACE_TEMPLATES, WORKSPACES, NAMESPACES]) ctx.cache.informer(d.ref);
  const access = tenantAccess(ctx);

  app.register(async (scope) => {
    scope.addContentTypeParser(
      PATCH_TYPES,
      { parseAs: 'string' },
      scope.getDefaultJsonParser('error', 'error'),
    );
    registerWorkspaceRoutes(scope, deps, access);
    registerNamespaceRoutes(scope, deps, access);
    registerAbsentRoutes(scope, deps);
  });
}
