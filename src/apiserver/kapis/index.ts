// The aggregated API groups kapiserver serves under /kapis (and the /kapi alias). version.ts is registered by the
// server shell itself.
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.ts';
import { registerConfigRoutes } from './config/routes.ts';
import { registerKapisFallback } from './fallback/index.ts';
import { registerIamRoutes } from './iam/routes.ts';
import { registerMonitoringRoutes } from './monitoring/routes.ts';
import { registerResourceRoutes } from './resources/routes.ts';
import { registerTenantRoutes } from './tenant/routes.ts';
import { registerTerminalRoutes } from './terminal/routes.ts';

export function registerKapis(app: FastifyInstance, ctx: ServerContext): void {
  // First: it records the routes registered after it, to answer only paths none of them matches.
  registerKapisFallback(app, ctx);
  registerResourceRoutes(app, ctx);
  registerIamRoutes(app, ctx);
  registerConfigRoutes(app, ctx);
  registerTenantRoutes(app, ctx);
  registerMonitoringRoutes(app, ctx);
  registerTerminalRoutes(app, ctx);
}
