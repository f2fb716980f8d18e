// What the filter chain attaches to each request, read by every later filter and handler. Types only: filters,
// handlers and the authorizer all import them from here, and this module imports nothing of theirs.

/** KubeSphere's scope of a request (reference 3.5): which bindings may grant it (src/apiserver/resource-scope.ts). */
export type ResourceScope = 'Global' | 'Cluster' | 'Workspace' | 'Namespace';

export interface RequestInfo {
  /** True for /api, /apis, /kapi, /kapis paths that name a resource (not discovery). */
  isResourceRequest: boolean;
  /** True when the request goes to the orchestrator (/api, /apis). */
  isKubernetesRequest: boolean;
  path: string;
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection, proxy; or the lower-cased HTTP method for non-resource requests. */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  cluster: string;
  workspace: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
  resourceScope: ResourceScope;
}

/** The authenticated caller, as Kubernetes' user.Info. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
  /** Set when a bearer token of a kind other than an access token proved the user: it may act, not sign in. */
  tokenKind?: 'kubeconfig';
}

declare module 'fastify' {
  interface FastifyRequest {
    requestInfo: RequestInfo;
    /** Set by the authentication filter; undefined only on the anonymous allow-list. */
    user?: UserInfo;
    /** The authenticated caller when the request impersonates someone (request.user is then the impersonated one). */
    impersonator?: UserInfo;
  }
}
