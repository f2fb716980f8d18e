// The KubeSphere CustomResourceDefinitions kapiserver installs when missing (shapes as KubeSphere v3 defines them).
// Other units read the definitions from here (e.g. the CRD swagger document).

export interface CrdDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    names: {
      plural: string;
      singular: string;
      kind: string;
      listKind: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Cluster' | 'Namespaced';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: Record<string, unknown> };
      additionalPrinterColumns?: { name: string; type: string; jsonPath: string; description?: string }[];
      subresources?: Record<string, unknown>;
    }[];
  };
}

const str = { type: 'string' };
const free = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
// metadata is validated by the API server itself; declaring it here would only invite pruning of its fields.
const meta = { apiVersion: str, kind: str };
const age = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

function object(properties: Record<string, unknown>, description: string): Record<string, unknown> {
  return { type: 'object', description, properties: { ...meta, ...properties } };
}

const strings = { type: 'array', items: str };
const stringMap = { type: 'object', additionalProperties: str };
// Kubernetes' rbac PolicyRule, as KubeSphere's role CRDs declare it (verbs required).
const policyRules = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      apiGroups: strings,
      nonResourceURLs: strings,
      resourceNames: strings,
      resources: strings,
      verbs: strings,
    },
    required: ['verbs'],
  },
};
const subjects = {
  type: 'array',
  items: {
    type: 'object',
    properties: { apiGroup: str, kind: str, name: str, namespace: str },
    required: ['kind', 'name'],
  },
};
const roleRef = {
  type: 'object',
  properties: { apiGroup: str, kind: str, name: str },
  required: ['apiGroup', 'kind', 'name'],
};
const workspaceColumn = {
  name: 'Workspace',
  type: 'string',
  jsonPath: '.metadata.labels.kubesphere\\.io/workspace',
};
/** The spec a Workspace has and a WorkspaceTemplate carries in spec.template.spec. */
const workspaceSpec = { type: 'object', properties: { manager: str, networkIsolation: { type: 'boolean' } } };

function crd(
  group: string,
  version: string,
  kind: string,
  plural: string,
  scope: 'Cluster' | 'Namespaced',
  schema: Record<string, unknown>,
  columns: { name: string; type: string; jsonPath: string }[] = [],
  extra: { shortNames?: string[]; categories?: string[] } = {},
): CrdDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, labels: { 'app.kubernetes.io/managed-by': 'kapiserver' } },
    spec: {
      group,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, ...extra },
      scope,
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          additionalPrinterColumns: [...columns, age],
        },
      ],
    },
  };
}

export const IAM_GROUP = 'iam.kubesphere.io';
export const IAM_VERSION = 'v1alpha2';

export const USER_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'User',
  'users',
  'Cluster',
  object(
    {
      spec: {
        type: 'object',
        properties: {
          email: str,
          lang: str,
          description: str,
          displayName: str,
          groups: { type: 'array', items: str },
          password: { ...str, description: 'bcrypt hash; a plaintext value is hashed by kapiserver' },
        },
      },
      status: {
        type: 'object',
        properties: {
          state: { type: 'string', enum: ['Active', 'Disabled', 'AuthLimitExceeded'] },
          reason: str,
          lastTransitionTime: { type: 'string', format: 'date-time' },
          lastLoginTime: { type: 'string', format: 'date-time' },
        },
      },
    },
    'User is a KubeSphere account that can log in with a password.',
  ),
  [
    { name: 'Email', type: 'string', jsonPath: '.spec.email' },
    { name: 'Status', type: 'string', jsonPath: '.status.state' },
  ],
  { categories: ['iam'] },
);

export const LOGIN_RECORD_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'LoginRecord',
  'loginrecords',
  'Cluster',
  object(
    {
      spec: {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['Token', 'Password', 'OAuth'] },
          provider: str,
          sourceIP: str,
          userAgent: str,
          success: { type: 'boolean' },
          reason: str,
        },
        required: ['type', 'success'],
      },
    },
    'LoginRecord is one login attempt of a user (labelled iam.kubesphere.io/user-ref).',
  ),
  [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Provider', type: 'string', jsonPath: '.spec.provider' },
    { name: 'From', type: 'string', jsonPath: '.spec.sourceIP' },
    { name: 'Success', type: 'string', jsonPath: '.spec.success' },
    { name: 'Reason', type: 'string', jsonPath: '.spec.reason' },
  ],
  { categories: ['iam'] },
);

export const GLOBAL_ROLE_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'GlobalRole',
  'globalroles',
  'Cluster',
  object({ rules: policyRules }, 'GlobalRole is a platform-wide set of Kubernetes PolicyRules.'),
  [],
  { categories: ['iam'] },
);

export const GLOBAL_ROLE_BINDING_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'GlobalRoleBinding',
  'globalrolebindings',
  'Cluster',
  object({ roleRef, subjects }, 'GlobalRoleBinding grants a GlobalRole to users or groups.'),
  [],
  { categories: ['iam'] },
);

export const WORKSPACE_ROLE_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'WorkspaceRole',
  'workspaceroles',
  'Cluster',
  object(
    { rules: policyRules },
    'WorkspaceRole is a set of PolicyRules within one workspace (label kubesphere.io/workspace).',
  ),
  [
    workspaceColumn,
    { name: 'Alias', type: 'string', jsonPath: '.metadata.annotations.kubesphere\\.io/alias-name' },
  ],
  { categories: ['iam'] },
);

export const WORKSPACE_ROLE_BINDING_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'WorkspaceRoleBinding',
  'workspacerolebindings',
  'Cluster',
  {
    ...object({ roleRef, subjects }, 'WorkspaceRoleBinding grants a WorkspaceRole to users or groups.'),
    required: ['roleRef'],
  },
  [workspaceColumn],
  { categories: ['iam'] },
);

export const GROUP_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'Group',
  'groups',
  'Cluster',
  // KubeSphere's Group has empty spec and status; both are declared objects without fields, as there.
  object(
    { spec: { type: 'object' }, status: { type: 'object' } },
    'Group is a set of users in a workspace (label kubesphere.io/workspace; iam.kubesphere.io/group-parent for a subgroup).',
  ),
  [workspaceColumn],
  { categories: ['group'] },
);

export const GROUP_BINDING_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'GroupBinding',
  'groupbindings',
  'Cluster',
  object(
    { groupRef: { type: 'object', properties: { apiGroup: str, kind: str, name: str } }, users: strings },
    'GroupBinding makes users members of a group.',
  ),
  [
    { name: 'Group', type: 'string', jsonPath: '.groupRef.name' },
    { name: 'Users', type: 'string', jsonPath: '.users' },
  ],
  { categories: ['group'] },
);

export const ROLE_BASE_CRD = crd(
  IAM_GROUP,
  IAM_VERSION,
  'RoleBase',
  'rolebases',
  'Cluster',
  {
    ...object(
      {
        role: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
      'RoleBase is the template of a role created in every new workspace (a WorkspaceRole) or project (a Role).',
    ),
    required: ['role'],
  },
  [],
  { categories: ['iam'] },
);

export const TENANT_GROUP = 'tenant.kubesphere.io';

export const WORKSPACE_TEMPLATE_CRD = crd(
  TENANT_GROUP,
  'v1alpha2',
  'WorkspaceTemplate',
  'workspacetemplates',
  'Cluster',
  object(
    {
      spec: {
        type: 'object',
        properties: {
          template: {
            type: 'object',
            properties: {
              // Labels become the Workspace's; the console also sends annotations (creator, alias) here.
              metadata: { type: 'object', properties: { labels: stringMap, annotations: stringMap } },
              spec: workspaceSpec,
            },
          },
          placement: {
            type: 'object',
            properties: {
              clusters: {
                type: 'array',
                items: { type: 'object', properties: { name: str }, required: ['name'] },
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['name'],
              },
              clusterSelector: {
                type: 'object',
                properties: {
                  matchLabels: stringMap,
                  matchExpressions: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: { key: str, operator: str, values: strings },
                      required: ['key', 'operator'],
                    },
                  },
                },
                'x-kubernetes-map-type': 'atomic',
              },
            },
          },
          overrides: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                clusterName: str,
                clusterOverrides: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { op: str, path: str, value: free },
                    required: ['path'],
                  },
                },
              },
              required: ['clusterName'],
            },
          },
        },
        required: ['placement', 'template'],
      },
    },
    'WorkspaceTemplate is a workspace as clients create it; the workspace controller makes its Workspace from it.',
  ),
  [],
  { categories: ['tenant'] },
);

export const WORKSPACE_CRD = crd(
  TENANT_GROUP,
  'v1alpha1',
  'Workspace',
  'workspaces',
  'Cluster',
  object(
    { spec: workspaceSpec, status: { type: 'object' } },
    'Workspace groups namespaces (label kubesphere.io/workspace) under one manager.',
  ),
  [],
  { categories: ['tenant'] },
);

export const CLUSTER_CONFIGURATION_CRD = crd(
  'installer.kubesphere.io',
  'v1alpha1',
  'ClusterConfiguration',
  'clusterconfigurations',
  'Namespaced',
  object(
    { spec: free, status: free },
    'ClusterConfiguration is the KubeSphere installer configuration; kapiserver reads spec.authentication from ks-installer.',
  ),
  [],
  { shortNames: ['cc'] },
);

/** Every CRD kapiserver installs, in installation order. */
export const KUBESPHERE_CRDS: CrdDefinition[] = [
  USER_CRD,
  LOGIN_RECORD_CRD,
  GLOBAL_ROLE_CRD,
  GLOBAL_ROLE_BINDING_CRD,
  WORKSPACE_ROLE_CRD,
  WORKSPACE_ROLE_BINDING_CRD,
  GROUP_CRD,
  GROUP_BINDING_CRD,
  ROLE_BASE_CRD,
  WORKSPACE_TEMPLATE_CRD,
  WORKSPACE_CRD,
  CLUSTER_CONFIGURATION_CRD,
];
