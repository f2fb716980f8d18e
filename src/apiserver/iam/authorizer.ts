// The authorization seam, shaped like Kubernetes' (k8s.io/apiserver/pkg/authorization/authorizer): an `Authorizer`
// answers `authorize(user, attributes)`; `newAuthorizer(mode, resolver)` builds one for a configured mode. Attributes
// carry the request's scope in KubeSphere's terms (global, cluster, workspace, namespace: resource-scope.ts), which
// decides the bindings that may grant it (rbac-resolver.ts).
import type { RbacAttributes } from '../../k8s/rbac.ts';
import type { RequestInfo, UserInfo } from '../request.ts';
import { resourceScopeOf } from '../resource-scope.ts';
import { CachingAuthorizer } from './decision-cache.ts';
import { RbacAuthorizer } from './rbac.ts';
import type { RuleResolver } from './rbac-resolver.ts';

export type AuthorizationMode = 'RBAC' | 'AlwaysAllow' | 'AlwaysDeny';

/**
 * Where a request or an object lives. `global`: KubeSphere's platform objects (users, global roles, workspaces);
 * `cluster`: other cluster-scoped objects, requests across every namespace and non-resource URLs (`name` is the
 * member cluster, '' for this one); `workspace` and `namespace` name theirs (the workspace of a namespace is its
 * label, which the resolver reads: never a workspace the path names).
 */
export type Scope =
  | { kind: 'global'; name: '' }
  | { kind: 'cluster'; name: string }
  | { kind: 'workspace'; name: string }
  | { kind: 'namespace'; name: string };

export const GLOBAL: Scope = { kind: 'global', name: '' };

/** What a request asks for: rule-matching attributes and the scope whose bindings may grant it. */
export interface AuthorizationAttributes extends RbacAttributes {
  scope: Scope;
  /** True when the request goes to the orchestrator (/api, /apis), false for the aggregated APIs. */
  isKubernetesRequest: boolean;
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
 * resolver together: the escalation checker and rules reviews share the same one), its decisions cached until a role,
 * binding or namespace changes (decision-cache.ts).
 */
export function newAuthorizer(mode: AuthorizationMode, resolver: RuleResolver): Authorizer {
  if (mode === 'AlwaysAllow') return alwaysAllow;
  if (mode === 'AlwaysDeny') return alwaysDeny;
  return new CachingAuthorizer(new RbacAuthorizer(resolver), () => resolver.revision());
}

/** The most specific scope of an object in `namespace` and `workspace` ('' when none). */
export function scopeOf(namespace: string, workspace: string, cluster = ''): Scope {
  if (namespace !== '') return { kind: 'namespace', name: namespace };
  if (workspace !== '') return { kind: 'workspace', name: workspace };
  return { kind: 'cluster', name: cluster };
}

/**
 * The scope a request is judged at, computed from its fields (callers also hand-build request info for sub-checks,
 * so the stored resourceScope is not trusted here).
 */
function requestScope(info: RequestInfo): Scope {
  switch (resourceScopeOf(info)) {
    case 'Global':
      return GLOBAL;
    case 'Namespace':
      return scopeOf(info.namespace, '');
    case 'Workspace':
      return scopeOf('', info.workspace);
    default:
      return { kind: 'cluster', name: info.cluster };
  }
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
    isKubernetesRequest: info.isKubernetesRequest,
  };
}
