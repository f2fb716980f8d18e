// What goes with a deleted User or Group (reference 4.1, 4.6), the lockout ending on its own, and system namespaces
// that no workspace deletion may take along; against a real kapiserver on the dev cluster, deletes with kubectl.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isNotFound, type KubeObject, type KubeRest } from '../../../src/apiserver/cluster/index.ts';
import { hasKubectl, kubectlOk, NO_KUBECTL, writeKubeconfig } from '../../helpers/kubectl.ts';
import { createUser, devRest, eventually, login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

const opts = hasKubectl ? {} : { skip: NO_KUBECTL };
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const TENANT = '/apis/tenant.kubesphere.io';
let stack: TestStack;
let rest: KubeRest;
let dir: string;
let kubeconfig: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-cascades-'));
  stack = await startTestStack({
    configDocument: { authentication: { authenticateRateLimiterDuration: '3s' } },
  });
  rest = devRest(stack);
  const token = (await login(stack)).access_token;
  kubeconfig = writeKubeconfig(join(dir, 'admin'), { server: stack.secureUrl, caPem: stack.caPem, token });
});
after(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

const kubectl = (...args: string[]) => kubectlOk(['--kubeconfig', kubeconfig, ...args], { input: '' });
const uniq = (p: string) => `${p}-${randomBytes(3).toString('hex')}`;
type Obj = KubeObject & { metadata: { name: string; labels?: Record<string, string> }; spec?: never };
const tryGet = async (path: string) => {
  try {
    return await rest.get<Obj>(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
};
const gone = (paths: string[], what: string) =>
  eventually(async () => (await Promise.all(paths.map(tryGet))).every((o) => !o), 15_000, what);

/** One binding of every kind naming `subject` (a User or Group), labelled `label=subject`; returns their paths. */
async function bindEverywhere(label: string, kind: 'User' | 'Group', subject: string, ns: string) {
  const meta = (name: string, namespace?: string) => ({ name, namespace, labels: { [label]: subject } });
  const subjects = [{ apiGroup: 'rbac.authorization.k8s.io', kind, name: subject }];
  const made = [
    [`${IAM}/globalrolebindings`, 'GlobalRoleBinding', 'GlobalRole', 'platform-regular'],
    [`${IAM}/workspacerolebindings`, 'WorkspaceRoleBinding', 'WorkspaceRole', 'system-workspace-viewer'],
    [`${RBAC}/clusterrolebindings`, 'ClusterRoleBinding', 'ClusterRole', 'view'],
    [`${RBAC}/namespaces/${ns}/rolebindings`, 'RoleBinding', 'ClusterRole', 'view'],
  ].map(async ([path, bindingKind, roleKind, role]) => {
    const name = `${subject}-${role}`;
    const apiVersion = path.startsWith(IAM) ? 'iam.kubesphere.io/v1alpha2' : 'rbac.authorization.k8s.io/v1';
    await rest.create(path, {
      apiVersion,
      kind: bindingKind,
      metadata: meta(name, bindingKind === 'RoleBinding' ? ns : undefined),
      roleRef: { apiGroup: apiVersion.split('/')[0], kind: roleKind, name: role },
      subjects,
    });
    return `${path}/${name}`;
  });
  return Promise.all(made);
}

async function groupBinding(name: string, group: string, users: string[]): Promise<string> {
  await rest.create(`${IAM}/groupbindings`, {
    apiVersion: 'iam.kubesphere.io/v1alpha2',
    kind: 'GroupBinding',
    metadata: { name, labels: { 'iam.kubesphere.io/group-ref': group } },
    groupRef: { apiGroup: 'iam.kubesphere.io', kind: 'Group', name: group },
    users,
  });
  return `${IAM}/groupbindings/${name}`;
}

const groupsOf = async (user: string) =>
  (await rest.get<{ spec: { groups?: string[] } }>(`${IAM}/users/${user}`)).spec.groups ?? [];

test(
  'a deleted user takes its bindings of every kind, group bindings and login records along',
  opts,
  async () => {
    const user = uniq('leaver');
    const stays = uniq('stayer');
    await createUser(stack, user, 'Passw0rd-leaver');
    await createUser(stack, stays, 'Passw0rd-stayer');
    const ns = uniq('ns');
    await rest.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const label = 'iam.kubesphere.io/user-ref';
    const bindings = await bindEverywhere(label, 'User', user, ns);
    const kept = await bindEverywhere(label, 'User', stays, ns);
    const gb = await groupBinding(`${user}-devs`, 'devs', [user]);
    await rest.mergePatch(gb, { metadata: { labels: { [label]: user } } });
    const records = `${IAM}/loginrecords?labelSelector=${encodeURIComponent(`${label}=${user}`)}`;
    // Written after the login's answer, within the recorder's linger.
    await eventually(
      async () => (await rest.list(records)).items.length > 0,
      10_000,
      'the login record of createUser',
    );

    await kubectl('delete', 'users.iam.kubesphere.io', user, '--wait=true', '--timeout=30s');
    await gone([...bindings, gb], 'the user bindings and group binding deleted');
    await eventually(
      async () => (await rest.list(records)).items.length === 0,
      15_000,
      'login records deleted',
    );
    for (const p of kept) assert.ok(await tryGet(p), `another user's binding stays: ${p}`);
    assert.ok(await tryGet(`${IAM}/users/${stays}`));
  },
);

test('a deleted group takes its group bindings and bindings along; its users lose it', opts, async () => {
  const a = uniq('member');
  const b = uniq('member');
  await createUser(stack, a, 'Passw0rd-member');
  await createUser(stack, b, 'Passw0rd-member');
  const group = uniq('team');
  const other = uniq('team');
  for (const g of [group, other])
    await rest.create(`${IAM}/groups`, {
      apiVersion: 'iam.kubesphere.io/v1alpha2',
      kind: 'Group',
      metadata: { name: g, labels: { 'kubesphere.io/workspace': 'system-workspace' } },
    });
  const ns = uniq('ns');
  await rest.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const bindings = await bindEverywhere('iam.kubesphere.io/group-ref', 'Group', group, ns);
  const gbs = [await groupBinding(`${group}-a`, group, [a]), await groupBinding(`${group}-b`, group, [b])];
  await groupBinding(`${other}-a`, other, [a]);
  await eventually(
    async () => (await groupsOf(a)).includes(group) && (await groupsOf(a)).includes(other),
    15_000,
    'groups given',
  );
  await eventually(async () => (await groupsOf(b)).includes(group), 15_000, 'group given');

  await kubectl('delete', 'groups.iam.kubesphere.io', group, '--wait=true', '--timeout=30s');
  await gone([...bindings, ...gbs], 'the group bindings and role bindings deleted');
  await eventually(async () => !(await groupsOf(a)).includes(group), 15_000, 'a lost the group');
  await eventually(async () => !(await groupsOf(b)).includes(group), 15_000, 'b lost the group');
  assert.deepEqual(await groupsOf(a), [other], 'the other group stays');
});

test(
  'a locked user is unlocked by the controller once the lockout window (3 s) has passed',
  opts,
  async () => {
    const user = uniq('locked');
    await createUser(stack, user, 'Passw0rd-locked');
    const locked = {
      state: 'AuthLimitExceeded',
      reason: 'test',
      lastTransitionTime: new Date().toISOString(),
    };
    await rest.mergePatch(`${IAM}/users/${user}`, { status: locked });
    const state = async () =>
      (await rest.get<{ status: { state: string } }>(`${IAM}/users/${user}`)).status.state;
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(await state(), 'AuthLimitExceeded', 'still locked within the window');
    await eventually(async () => (await state()) === 'Active', 15_000, 'unlocked');
  },
);

test(
  'system namespaces are never owned by a workspace: deleting one they were moved into leaves them',
  opts,
  async () => {
    const ownerRefs = async (ns: string) =>
      ((await rest.get<Obj>(`/api/v1/namespaces/${ns}`)).metadata.ownerReferences ?? []) as unknown[];
    // In system-workspace, seen by the controller (it sets the namespace label), yet not owned.
    await eventually(
      async () =>
        (await rest.get<Obj>('/api/v1/namespaces/kube-public')).metadata.labels?.[
          'kubesphere.io/namespace'
        ] === 'kube-public',
      15_000,
      'kube-public reconciled',
    );
    assert.deepEqual(await ownerRefs('kube-public'), []);
    assert.deepEqual(await ownerRefs('kube-system'), []);

    const ws = uniq('ws');
    await rest.create(`${TENANT}/v1alpha2/workspacetemplates`, {
      apiVersion: 'tenant.kubesphere.io/v1alpha2',
      kind: 'WorkspaceTemplate',
      metadata: { name: ws },
      spec: { template: { spec: { manager: 'admin' } }, placement: {} },
    });
    await eventually(() => tryGet(`${TENANT}/v1alpha1/workspaces/${ws}`), 15_000, 'the Workspace');
    const project = uniq('proj');
    for (const ns of ['kube-public', project]) {
      if (ns === project)
        await rest.create('/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns },
        });
      await kubectl('label', 'namespace', ns, `kubesphere.io/workspace=${ws}`, '--overwrite');
    }
    // The ordinary namespace is owned by the workspace; the system one is not.
    await eventually(async () => (await ownerRefs(project)).length === 1, 15_000, 'the project owned');
    assert.deepEqual(await ownerRefs('kube-public'), []);

    await kubectl('delete', 'workspacetemplate', ws, '--wait=true', '--timeout=30s');
    await eventually(
      async () => {
        const p = await tryGet(`/api/v1/namespaces/${project}`);
        return !p || !!p.metadata.deletionTimestamp;
      },
      15_000,
      'the project deleted with its workspace',
    );
    const survivor = await rest.get<Obj>('/api/v1/namespaces/kube-public');
    assert.ok(!survivor.metadata.deletionTimestamp, 'kube-public survives');
    await kubectl(
      'label',
      'namespace',
      'kube-public',
      'kubesphere.io/workspace=system-workspace',
      '--overwrite',
    );
  },
);
