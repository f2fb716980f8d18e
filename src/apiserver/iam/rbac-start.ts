// Builds the server's authorizer: `authorize` (the authorizer of the configured mode, read per request), the rule
// resolver and the escalation checker beside it, the listers' informers started at once, and the built-in
// GlobalRoles created once the KubeSphere CRDs are installed.

import { KubeRest } from '../cluster/index.ts';
import type { BaseContext, RequestAuthorizer } from '../context.ts';
import { retryUntilDone } from '../startup-retry.ts';
import { type AuthorizationMode, attributesOf, newAuthorizer } from './authorizer.ts';
import { EscalationChecker } from './rbac-escalation.ts';
import { InformerRbacListers } from './rbac-listers.ts';
import { RuleResolver } from './rbac-resolver.ts';
import { ensureBuiltinRoles } from './roles.ts';

const MODES: AuthorizationMode[] = ['RBAC', 'AlwaysAllow', 'AlwaysDeny'];

/** `crdsReady` resolves once the iam.kubesphere.io CRDs exist (the token service installs them). */
export function startAuthorization(
  ctx: BaseContext,
  crdsReady: Promise<unknown>,
): { authorizer: RequestAuthorizer; synced: () => boolean; rolesReady: Promise<void> } {
  const listers = new InformerRbacListers(ctx.cache);
  const resolver = new RuleResolver(listers);
  // The mode is read per request: it may change while the server runs.
  const byMode = new Map(MODES.map((mode) => [mode, newAuthorizer(mode, resolver)]));
  const authorizer: RequestAuthorizer = {
    authorize: (user, info) =>
      byMode.get(ctx.config.current().authorization.mode)!.authorize(user, attributesOf(info)),
    rules: resolver,
    escalation: new EscalationChecker(byMode.get('RBAC')!, resolver),
  };

  const rest = new KubeRest(ctx.cluster);
  const rolesReady = retryUntilDone(ctx, crdsReady, 'built-in global roles', async () => {
    await ensureBuiltinRoles(rest, ctx.logger);
    // Let the informer see them, so the first request after start-up is judged with the built-in roles.
    for (let i = 0; i < 100 && !listers.role('GlobalRole', '', 'platform-admin'); i++) {
      await new Promise((r) => setTimeout(r, 50).unref());
    }
  });
  return { authorizer, synced: () => listers.hasSynced(), rolesReady };
}
