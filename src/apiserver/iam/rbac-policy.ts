// Fixed parts of the authorization policy: KubeSphere's path allow-list (no permission needed once authenticated)
// and the rules every authenticated user holds (Kubernetes' system:discovery / system:basic-user equivalents, and
// access to one's own user object and kubeconfig).
import type { PolicyRule } from '../../k8s/rbac.ts';

/** Exact paths that need no permission (KubeSphere's path authorizer, plus the Kubernetes health endpoints). */
const ALLOWED_PATHS = new Set([
  '/healthz',
  '/livez',
  '/readyz',
  '/version',
  '/kapis/version',
  '/kapi/version',
]);
/** Prefixes that need no permission. */
const ALLOWED_PREFIXES = ['/oauth/', '/kapis/config.kubesphere.io/', '/kapi/config.kubesphere.io/'];

/**
 * True when the raw path needs no permission. Paths with dot segments, doubled slashes or encoded dots, slashes or
 * backslashes never match a prefix, so `/oauth/../api/v1/secrets`-style tricks cannot borrow an allowed prefix.
 */
export function isAllowListedPath(path: string): boolean {
  if (ALLOWED_PATHS.has(path)) return true;
  if (/(^|\/)\.\.?(\/|$)|\/\/|%2e|%2f|%5c|\\/i.test(path)) return false;
  return ALLOWED_PREFIXES.some((p) => path.startsWith(p));
}

export const SELF_SERVICE_RULES: { common: PolicyRule[]; ownUser: PolicyRule[] } = {
  // Every authenticated user: API discovery and OpenAPI (kubectl needs them before anything else), and asking what
  // they may do (kubectl auth can-i / whoami), which kapiserver answers itself.
  common: [
    {
      verbs: ['get'],
      nonResourceURLs: [
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
        '/openapi',
        '/openapi/*',
        '/version',
        '/version/',
      ],
    },
    {
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ],
  // Applied only when the request names the caller's own user: read it, its kubeconfig and login records, change
  // its password (the password API itself demands the current password).
  ownUser: [
    {
      verbs: ['get', 'list'],
      apiGroups: ['iam.kubesphere.io', 'resources.kubesphere.io'],
      resources: ['users', 'users/kubeconfig', 'users/loginrecords', 'users/globalroles'],
    },
    { verbs: ['update'], apiGroups: ['iam.kubesphere.io'], resources: ['users/password'] },
  ],
};
