// The rules every authenticated user holds, whatever their bindings (Kubernetes' system:discovery /
// system:basic-user equivalents, and access to one's own user object and kubeconfig). Paths that need no permission
// at all are in the path policy table (path-policy.ts).
import type { PolicyRule } from '../../k8s/rbac.ts';

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
    // From KubeSphere's `authenticated` GlobalRole (ks-installer v3.4.1): any user reads storage classes (a project
    // member's volume page reads its claim's class). That role also reads nodes, which kapiserver does not grant.
    { verbs: ['get', 'list'], apiGroups: ['*'], resources: ['storageclasses', 'storageclasscapabilities'] },
  ],
  // Applied only when the request names the caller's own user: read it, its kubeconfig and login records, change
  // its password (the password API itself demands the current password); and read one's own membership anywhere
  // (the console asks every workspace and project page for the caller's roles there: workspacemembers/{me}/
  // workspaceroles, members/{me}/roles), as KubeSphere's `authenticated` role allows.
  ownUser: [
    {
      verbs: ['get', 'list'],
      apiGroups: ['iam.kubesphere.io', 'resources.kubesphere.io'],
      resources: ['users', 'users/kubeconfig', 'users/loginrecords', 'users/globalroles'],
    },
    { verbs: ['update'], apiGroups: ['iam.kubesphere.io'], resources: ['users/password'] },
    {
      verbs: ['get', 'list', 'watch'],
      apiGroups: ['iam.kubesphere.io', 'tenant.kubesphere.io'],
      resources: [
        'clustermembers',
        'clustermembers/clusterroles',
        'workspacemembers',
        'workspacemembers/workspaceroles',
        'workspacemembers/namespaces',
        'members',
        'members/roles',
      ],
    },
  ],
};
