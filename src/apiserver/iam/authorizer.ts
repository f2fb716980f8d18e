// The authorization seam, shaped like Kubernetes' (k8s.io/apiserver/pkg/authorization/authorizer): an `Authorizer`
// answers `authorize(user, attributes)`; `newAuthorizer(mode, resolver)` builds one for a configured mode. Attributes
// carry the request's scope in KubeSphere's terms (global, cluster, workspace, namespace), which decides the bindings
// that may grant it.
import type { RbacAttributes } from '../../k8s/rbac.ts';
import type { RequestInfo, UserInfo } from '../request.ts';
import { isClusterScopedResource } from '../resource-scope.ts';
import { RbacAuthorizer } from './rbac.ts';
import type { RuleResolver } from './rbac-resolver.ts';

export type AuthorizationMode = 'RBAC' | 'AlwaysAllow' | 'AlwaysDeny';

/**
 * Where a request or an object lives. `global`: KubeSphere's platform objects (users, global roles, workspaces) and
 * non-resource URLs; `cluster`: Kubernetes cluster-scoped objects and requests across every namespace (`name` is
 * the member cluster, '' for this one); `workspace` and `namespace` name theirs (a namespace may sit in a workspace).
 */
export type Scope =
  | { kind: 'global'; name: '' }
  | { kind: 'cluster'; name: string }
  | { kind: 'workspace'; name: string }
  | { kind: 'namespace'; name: string; workspace: string };

/** What a request asks for: rule-matching attributes and the scope whose bindings may grant it. */
export interface AuthorizationAttributes extends RbacAttributes {
  scope: Scope;
}

export interface AuthorizationDecision {
  allowed: boolean;
  /** Why: which binding allowed it, or why nothing did (safe to show the caller). */
  reason: string;
}

export interface Authorizer {
  /** The decision for one request; may throw a 503 StatusError while its data is loading. */
  authorize(user: UserInfo, attributes: AuthorizationAttributes): Promise<AuthorizationDecision>;
}

const alwaysAllow: Authorizer = {
  authorize: async () => ({ allowed: true, reason: 'authorization mode AlwaysAllow' }),
};
const alwaysDeny: Authorizer = {
  authorize: async () => ({ allowed: false, reason: 'authorization mode AlwaysDeny' }),
};

/**
 * The authorizer of a mode; RBAC asks `resolver` which rules apply (as Kubernetes builds an authorizer and its rule
 * resolver together: the escalation checker and rules reviews share the same one).
 */
export function newAuthorizer(mode: AuthorizationMode, resolver: RuleResolver): Authorizer {
  if (mode === 'AlwaysAllow') return alwaysAllow;
  if (mode === 'AlwaysDeny') return alwaysDeny;
  return new RbacAuthorizer(resolver);
}

/** The most specific scope of an object in `namespace` and `workspace` ('' when none). */
export function scopeOf(namespace: string, workspace: string, cluster = ''): Scope {
  if (namespace !== '') return { kind: 'namespace', name: namespace, workspace };
  if (workspace !== '') return { kind: 'workspace', name: workspace };
  return { kind: 'cluster', name: cluster };
}

/** The scope a request is judged at: a cluster-scoped resource never takes the namespace or workspace its path names. */
function requestScope(info: RequestInfo): Scope {
  if (!info.isResourceRequest) return { kind: 'global', name: '' };
  if (isClusterScopedResource(info)) {
    return info.isKubernetesRequest || info.cluster !== ''
      ? { kind: 'cluster', name: info.cluster }
      : { kind: 'global', name: '' };
  }
  return scopeOf(info.namespace, info.workspace, info.cluster);
}

/** Request attributes for rule matching; exec/attach/portforward need `create` whatever the method (as Kubernetes). */
export function attributesOf(info: RequestInfo): AuthorizationAttributes {
  let verb = info.verb;
  if (
    info.isResourceRequest &&
    ['exec', 'attach', 'portforward'].includes(info.subresource) &&
    verb === 'get'
  ) {
    verb = 'create';
  }
  return {
    isResourceRequest: info.isResourceRequest,
    verb,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    namespace: info.namespace,
    path: info.path,
    scope: requestScope(info),
  };
}
