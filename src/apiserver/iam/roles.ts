// Built-in GlobalRoles (iam.kubesphere.io/v1alpha2), created at start-up when missing, in KubeSphere's shape: the
// platform roles aggregate role templates through the `iam.kubesphere.io/aggregation-roles` annotation. Existing
// roles are never overwritten (operators may have tuned them). The `admin` binding to platform-admin is created by
// the admin bootstrap (iam/users-bootstrap.ts).
import type { Logger } from 'pino';
import type { PolicyRule } from '../../k8s/rbac.ts';
import { isConflict, type KubeRest } from '../cluster/index.ts';
import { IAM_GROUP, IAM_VERSION } from '../crds/index.ts';
import { CREATOR_ANNOTATION } from './labels.ts';
import { AGGREGATION_ANNOTATION } from './rbac.ts';

const ROLE_TEMPLATE_LABEL = 'iam.kubesphere.io/role-template';
const DISPLAY_NAME = 'kubesphere.io/alias-name';
const DESCRIPTION = 'kubesphere.io/description';
/** What KubeSphere's console reads from a user's role templates to decide which menus and buttons it shows. */
const CONSOLE_RULES = 'iam.kubesphere.io/role-template-rules';

interface BuiltinRole {
  name: string;
  description: string;
  rules: PolicyRule[];
  aggregates?: string[];
  template?: boolean;
  /** The console module and the action this template grants there (`users`: `manage`). */
  console?: [module: string, action: string];
}

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const IAM_AND_VIEWS = ['iam.kubesphere.io', 'resources.kubesphere.io'];

export const BUILTIN_GLOBAL_ROLES: BuiltinRole[] = [
  {
    name: 'platform-admin',
    description: 'Platform administrator: every action on every resource and path.',
    rules: [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ],
    // Its rules already grant everything; the templates tell the console to show every platform menu.
    aggregates: [
      'role-template-view-basic',
      'role-template-view-users',
      'role-template-manage-users',
      'role-template-view-roles',
      'role-template-manage-roles',
      'role-template-create-workspaces',
      'role-template-view-workspaces',
      'role-template-manage-workspaces',
      'role-template-view-clusters',
      'role-template-manage-clusters',
      'role-template-view-app-templates',
      'role-template-manage-app-templates',
      'role-template-manage-platform-settings',
    ],
  },
  {
    name: 'platform-regular',
    description:
      'Regular user: no platform permissions; gets access through workspace and project membership.',
    rules: [],
    aggregates: ['role-template-view-basic'],
  },
  {
    name: 'platform-self-provisioner',
    description: 'Regular user who may also create workspaces.',
    rules: [],
    aggregates: ['role-template-view-basic', 'role-template-create-workspaces'],
  },
  {
    name: 'users-manager',
    description: 'Manages users and their platform roles.',
    rules: [],
    aggregates: [
      'role-template-view-basic',
      'role-template-view-users',
      'role-template-manage-users',
      'role-template-view-roles',
      'role-template-manage-roles',
    ],
  },
  {
    name: 'workspaces-manager',
    description: 'Manages every workspace.',
    rules: [],
    aggregates: [
      'role-template-view-basic',
      'role-template-view-workspaces',
      'role-template-manage-workspaces',
    ],
  },
  // ---- role templates (aggregated by the roles above; also bindable on their own) ----
  {
    name: 'role-template-view-basic',
    description: 'Read the platform configuration.',
    template: true,
    rules: [{ verbs: ['get'], apiGroups: ['config.kubesphere.io'], resources: ['*'] }],
  },
  {
    name: 'role-template-view-users',
    description: 'View users and their login records.',
    template: true,
    console: ['users', 'view'],
    rules: [{ verbs: READ, apiGroups: IAM_AND_VIEWS, resources: ['users', 'users/*', 'loginrecords'] }],
  },
  {
    name: 'role-template-manage-users',
    description: 'Create, edit and delete users.',
    template: true,
    console: ['users', 'manage'],
    rules: [{ verbs: WRITE, apiGroups: IAM_AND_VIEWS, resources: ['users', 'users/*', 'loginrecords'] }],
  },
  {
    name: 'role-template-view-roles',
    description: 'View platform roles and their bindings.',
    template: true,
    console: ['roles', 'view'],
    rules: [
      { verbs: READ, apiGroups: ['iam.kubesphere.io'], resources: ['globalroles', 'globalrolebindings'] },
    ],
  },
  {
    name: 'role-template-manage-roles',
    description: 'Create, edit and delete platform roles and bindings (never beyond what the editor holds).',
    template: true,
    console: ['roles', 'manage'],
    rules: [
      { verbs: WRITE, apiGroups: ['iam.kubesphere.io'], resources: ['globalroles', 'globalrolebindings'] },
    ],
  },
  {
    name: 'role-template-create-workspaces',
    description: 'Create workspaces.',
    template: true,
    console: ['workspaces', 'create'],
    rules: [
      {
        verbs: ['create'],
        apiGroups: ['tenant.kubesphere.io'],
        resources: ['workspaces', 'workspacetemplates'],
      },
    ],
  },
  {
    name: 'role-template-view-workspaces',
    description: 'View every workspace.',
    template: true,
    console: ['workspaces', 'view'],
    rules: [
      { verbs: READ, apiGroups: ['tenant.kubesphere.io'], resources: ['workspaces', 'workspacetemplates'] },
    ],
  },
  {
    name: 'role-template-manage-workspaces',
    description: 'Create, edit and delete every workspace.',
    template: true,
    console: ['workspaces', 'manage'],
    rules: [
      { verbs: WRITE, apiGroups: ['tenant.kubesphere.io'], resources: ['workspaces', 'workspacetemplates'] },
    ],
  },
];

export function globalRoleObject(role: BuiltinRole): Record<string, unknown> {
  const annotations: Record<string, string> = { [DISPLAY_NAME]: role.name, [DESCRIPTION]: role.description };
  if (role.aggregates?.length) annotations[AGGREGATION_ANNOTATION] = JSON.stringify(role.aggregates);
  if (role.console) annotations[CONSOLE_RULES] = JSON.stringify({ [role.console[0]]: role.console[1] });
  // The console lists roles with `annotation=kubesphere.io/creator`, which leaves the templates out.
  if (!role.template) annotations[CREATOR_ANNOTATION] = 'system';
  return {
    apiVersion: `${IAM_GROUP}/${IAM_VERSION}`,
    kind: 'GlobalRole',
    metadata: {
      name: role.name,
      annotations,
      labels: role.template ? { [ROLE_TEMPLATE_LABEL]: 'true' } : { 'iam.kubesphere.io/builtin': 'true' },
    },
    rules: role.rules,
  };
}

/** Creates each built-in GlobalRole that does not exist yet (a concurrent replica creating it first is fine). */
export async function ensureBuiltinRoles(rest: KubeRest, logger: Logger): Promise<number> {
  let created = 0;
  for (const role of BUILTIN_GLOBAL_ROLES) {
    try {
      await rest.create(`/apis/${IAM_GROUP}/${IAM_VERSION}/globalroles`, globalRoleObject(role));
      created++;
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
  if (created > 0) logger.info({ created }, 'created built-in global roles');
  return created;
}
