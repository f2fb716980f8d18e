// The RBAC authorizer: decides whether a user may do what the attributes describe, from Kubernetes RBAC objects
// (ClusterRoles, ClusterRoleBindings, Roles, RoleBindings) and KubeSphere's GlobalRoles, GlobalRoleBindings,
// WorkspaceRoles and WorkspaceRoleBindings, as the RuleResolver finds them for the attributes' scope. Rule matching
// itself is the pure src/k8s/rbac.ts.
//
// Order of evaluation (first allow wins; RBAC never denies explicitly):
//   1. paths exempt from authorization (path-policy.ts) and the rules every authenticated user has (discovery, self-reviews, own user);
//   2. the rules of the user's bindings at the request's scope (rbac-resolver.ts).
import { rulesAllow } from '../../k8s/rbac.ts';
import { isAuthorizationExempt } from '../path-policy.ts';
import type { UserInfo } from '../request.ts';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from './authorizer.ts';
import { SELF_SERVICE_RULES } from './rbac-policy.ts';
import type { RuleResolver } from './rbac-resolver.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const IAM_GROUP = 'iam.kubesphere.io';
export const AGGREGATION_ANNOTATION = 'iam.kubesphere.io/aggregation-roles';
export const WORKSPACE_LABEL = 'kubesphere.io/workspace';

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly resolver: RuleResolver) {}

  /** Throws a 503 StatusError while roles and bindings have not loaded yet. */
  async authorize(user: UserInfo, attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    if (isAuthorizationExempt(attrs.path)) return { allowed: true, reason: 'path needs no permission' };
    if (rulesAllow(attrs, SELF_SERVICE_RULES.common))
      return { allowed: true, reason: 'allowed to every user' };
    if (
      attrs.isResourceRequest &&
      attrs.resource === 'users' &&
      attrs.name === user.name &&
      rulesAllow({ ...attrs, name: '' }, SELF_SERVICE_RULES.ownUser)
    ) {
      return { allowed: true, reason: 'own user' };
    }
    let reason = '';
    const allowed = await this.resolver.visitRulesFor(user, attrs.scope, (source, rules) => {
      if (!rulesAllow(attrs, rules)) return false;
      reason = `RBAC: allowed by ${source}`;
      return true;
    });
    return { allowed, reason };
  }
}
