// Objects shared by the RBAC tests on the full stack and on in-memory listers.

/** carol's Role in namespace "esc": reads config maps and the namespace, writes roles and bindings, nothing more. */
export const NS_ADMIN_ROLE = {
  metadata: { name: 'ns-admin', namespace: 'esc' },
  rules: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['roles', 'rolebindings'],
      verbs: ['create', 'get'],
    },
    { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
  ],
};
