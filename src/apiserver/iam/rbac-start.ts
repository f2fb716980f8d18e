// Wires authorization into a running API server: the RBAC authorizer on ctx (`authorize`, `authorizer`), its
// informers started at once, and the built-in GlobalRoles created once the KubeSphere CRDs are installed.

import { KubeRest } from '../cluster/index.ts';
import type { ServerContext } from '../context.ts';
import { RbacAuthorizer } from './rbac.ts';
import { ensureBuiltinRoles } from './roles.ts';

const RETRY_MS = 2000;

/** `crdsReady` resolves once the iam.kubesphere.io CRDs exist (the token service installs them). */
export function startAuthorization(
  ctx: ServerContext,
  crdsReady: Promise<unknown>,
): { authorizer: RbacAuthorizer; rolesReady: Promise<void> } {
  if (!ctx.cache) throw new Error('startAuthorization needs the informer cache on ctx');
  const authorizer = new RbacAuthorizer(ctx.cache, () => ctx.config.authorization.mode, ctx.logger);
  authorizer.start();
  ctx.authorizer = authorizer;
  ctx.authorize = (user, info) => authorizer.authorize(user, info);
  ctx.readiness.register('authorization', () => authorizer.synced());

  let closed = false;
  ctx.onClose(() => {
    closed = true;
  });
  const rest = new KubeRest(ctx.cluster);
  const rolesReady = (async () => {
    try {
      await crdsReady;
    } catch {
      return; // shutting down
    }
    while (!closed) {
      try {
        await ensureBuiltinRoles(rest, ctx.logger);
        // Let the informer see them, so the first request after start-up is judged with the built-in roles.
        for (let i = 0; i < 100 && !authorizer.hasGlobalRole('platform-admin'); i++) {
          await new Promise((r) => setTimeout(r, 50).unref());
        }
        return;
      } catch (err) {
        ctx.logger.warn({ err: (err as Error).message }, 'built-in global roles not created yet; retrying');
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      }
    }
  })();
  return { authorizer, rolesReady };
}
