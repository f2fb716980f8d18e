// The RBAC authorizer: decides whether a user may do what the attributes describe, from Kubernetes RBAC objects
// (ClusterRoles, ClusterRoleBindings, Roles, RoleBindings) and KubeSphere's GlobalRoles, GlobalRoleBindings,
// WorkspaceRoles and WorkspaceRoleBindings, as the RuleResolver finds them for the attributes' scope. Rule matching
// itself is the pure src/k8s/rbac.ts.
//
// Order of evaluation (first allow wins; RBAC never denies explicitly):
//   1. paths exempt from authorization (path-policy.ts) and the rules every authenticated user has (discovery, self-reviews, own user);
//   2. tenant reads through the aggregated API by membership (reference section 10 item 3, instead of KubeSphere's
//      `authenticated` role reading all of tenant.kubesphere.io): a list of workspaces or namespaces (the routes
//      return only the caller's: their workspaces, the namespaces they are bound in; a workspace's namespaces only
//      to its members) and a get of a workspace the caller is a member of; never through /apis;
//   3. the rules of the user's bindings at the request's scope (rbac-resolver.ts).
import { rulesAllow } from '../../k8s/rbac.ts';
import { IAM_GROUP, TENANT_GROUP } from '../crds/definitions.ts';
import { isAuthorizationExempt } from '../path-policy.ts';
import type { UserInfo } from '../request.ts';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from './authorizer.ts';
import { SELF_SERVICE_RULES } from './rbac-policy.ts';
import type { RuleResolver } from './rbac-resolver.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export { IAM_GROUP };
export const AGGREGATION_ANNOTATION = 'iam.kubesphere.io/aggregation-roles';
/** Resources named after a user, which that user may read (and, for `users`, partly write): SELF_SERVICE_RULES.ownUser. */
const OWN_RESOURCES = new Set(['users', 'clustermembers', 'workspacemembers', 'members']);
/** The tenant API's workspace collections (v1alpha2 workspaces; v1alpha3 workspacetemplates and workspaces). */
const WORKSPACE_RESOURCES = new Set(['workspaces', 'workspacetemplates']);

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly resolver: RuleResolver) {}

  /** Throws a 503 StatusError while roles and bindings have not loaded yet. */
  async authorize(user: UserInfo, attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    if (isAuthorizationExempt(attrs.path)) return { allowed: true, reason: 'path needs no permission' };
    if (rulesAllow(attrs, SELF_SERVICE_RULES.common))
      return { allowed: true, reason: 'allowed to every user' };
    if (
      attrs.isResourceRequest &&
      OWN_RESOURCES.has(attrs.resource) &&
      attrs.name === user.name &&
      rulesAllow({ ...attrs, name: '' }, SELF_SERVICE_RULES.ownUser)
    ) {
      return { allowed: true, reason: 'own user' };
    }
    const membership = await this.tenantRead(user, attrs);
    if (membership) return { allowed: true, reason: membership };
    let reason = '';
    const allowed = await this.resolver.visitRulesFor(user, attrs.scope, (source, rules) => {
      if (!rulesAllow(attrs, rules)) return false;
      reason = `RBAC: allowed by ${source}`;
      return true;
    });
    return { allowed, reason };
  }

  /** Why a read of the tenant API is allowed by membership; undefined when it is not such a read. */
  private async tenantRead(user: UserInfo, attrs: AuthorizationAttributes): Promise<string | undefined> {
    if (
      attrs.isKubernetesRequest ||
      !attrs.isResourceRequest ||
      attrs.apiGroup !== TENANT_GROUP ||
      attrs.subresource !== ''
    )
      return undefined;
    const list = attrs.verb === 'list' && attrs.name === '';
    if (WORKSPACE_RESOURCES.has(attrs.resource)) {
      if (list) return 'the list holds only the workspaces of your memberships';
      if (attrs.verb === 'get' && (await this.resolver.isWorkspaceMember(user, attrs.name)))
        return `member of workspace "${attrs.name}"`;
      return undefined;
    }
    if (attrs.resource !== 'namespaces' || !list) return undefined;
    if (attrs.scope.kind === 'cluster') return 'the list holds only the namespaces you are bound in';
    if (attrs.scope.kind === 'workspace' && (await this.resolver.isWorkspaceMember(user, attrs.scope.name)))
      return `member of workspace "${attrs.scope.name}": the list holds only the namespaces you are bound in`;
    return undefined;
  }
}
