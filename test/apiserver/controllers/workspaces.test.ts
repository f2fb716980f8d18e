// The tenancy controllers against a real kapiserver on the dev cluster, driven with kubectl as an admin would:
// a WorkspaceTemplate yields its Workspace, the four initial roles and the manager's binding; a namespace labelled
// with the workspace is owned by it and its creator becomes its admin; group bindings reach the users; deleting a
// workspace deletes its namespaces unless orphaned.
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
const TENANT = '/apis/tenant.kubesphere.io';
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
let stack: TestStack;
let rest: KubeRest;
let dir: string;
let kubeconfig: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-controllers-'));
  stack = await startTestStack();
  rest = devRest(stack);
  const token = (await login(stack)).access_token;
  kubeconfig = writeKubeconfig(join(dir, 'admin'), { server: stack.secureUrl, caPem: stack.caPem, token });
});
after(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

const kubectl = (input: string, ...args: string[]) =>
  kubectlOk(['--kubeconfig', kubeconfig, ...args], { input });
const uniq = (p: string) => `${p}-${randomBytes(3).toString('hex')}`;
type Obj = KubeObject & { metadata: { name: string; uid: string; labels?: Record<string, string> } };
const tryGet = async (path: string) => {
  try {
    return await rest.get<Obj>(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
};

async function createWorkspace(ws: string, manager: string): Promise<void> {
  await kubectl(
    JSON.stringify({
      apiVersion: 'tenant.kubesphere.io/v1alpha2',
      kind: 'WorkspaceTemplate',
      metadata: { name: ws },
      spec: { template: { metadata: { labels: { team: 'blue' } }, spec: { manager } }, placement: {} },
    }),
    'create',
    '-f',
    '-',
  );
}

/** Written straight to the orchestrator: through kapiserver the creator would be the caller (proxy/creator-guard.ts). */
async function createNamespace(name: string, ws: string, creator: string): Promise<void> {
  await rest.create('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      labels: { 'kubesphere.io/workspace': ws },
      annotations: { 'kubesphere.io/creator': creator },
    },
  });
}

/** The namespace once it is owned by the workspace's Workspace. */
const ownedNamespace = (name: string, ws: Obj) =>
  eventually(
    async () => {
      const ns = await rest.get<Obj>(`/api/v1/namespaces/${name}`);
      const refs = (ns.metadata.ownerReferences ?? []) as { uid?: string; kind?: string }[];
      return refs.some((r) => r.kind === 'Workspace' && r.uid === ws.metadata.uid) && ns;
    },
    15_000,
    `namespace ${name} owned by its workspace`,
  );

test(
  'a WorkspaceTemplate created with kubectl yields its Workspace, the four roles and the manager binding',
  opts,
  async () => {
    const ws = uniq('ws');
    const manager = uniq('mgr');
    await createUser(stack, manager, 'Passw0rd-mgr');
    await createWorkspace(ws, manager);
    const workspace = await eventually(
      () => tryGet(`${TENANT}/v1alpha1/workspaces/${ws}`),
      15_000,
      'the Workspace',
    );
    assert.deepEqual(workspace.metadata.labels, { team: 'blue' });
    assert.equal((workspace.spec as { manager: string }).manager, manager);
    const template = await rest.get<Obj>(`${TENANT}/v1alpha2/workspacetemplates/${ws}`);
    assert.ok(
      (template.metadata.finalizers as string[]).includes('finalizers.workspacetemplate.kubesphere.io'),
    );
    for (const role of ['admin', 'regular', 'viewer', 'self-provisioner']) {
      const r = await eventually(
        () => tryGet(`${IAM}/workspaceroles/${ws}-${role}`),
        15_000,
        `${ws}-${role}`,
      );
      assert.equal(r.metadata.labels?.['kubesphere.io/workspace'], ws);
      const owner = (r.metadata.ownerReferences as { kind: string; uid: string }[])[0];
      assert.deepEqual([owner.kind, owner.uid], ['WorkspaceTemplate', template.metadata.uid]);
    }
    const binding = await eventually(
      () => tryGet(`${IAM}/workspacerolebindings/${ws}-admin`),
      15_000,
      'manager binding',
    );
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'iam.kubesphere.io',
      kind: 'WorkspaceRole',
      name: `${ws}-admin`,
    });
    assert.deepEqual(
      (binding.subjects as { name: string }[]).map((s) => s.name),
      [manager],
    );
    assert.equal(binding.metadata.labels?.['iam.kubesphere.io/user-ref'], manager);

    // An edit to an initial role is reverted; a deleted one comes back.
    await kubectl('', 'patch', 'workspacerole', `${ws}-viewer`, '--type=merge', '-p', '{"rules":[]}');
    await eventually(
      async () => ((await rest.get<Obj>(`${IAM}/workspaceroles/${ws}-viewer`)).rules as unknown[]).length > 0,
      15_000,
      'the viewer rules restored',
    );
    await kubectl('', 'delete', 'workspacerole', `${ws}-regular`);
    await eventually(
      () => tryGet(`${IAM}/workspaceroles/${ws}-regular`),
      15_000,
      'the regular role recreated',
    );

    // A new manager replaces the old one in the binding.
    const next = uniq('mgr');
    await createUser(stack, next, 'Passw0rd-mgr');
    await kubectl(
      '',
      'patch',
      'workspacetemplate',
      ws,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { template: { spec: { manager: next } } } }),
    );
    await eventually(
      async () => {
        const b = await rest.get<Obj>(`${IAM}/workspacerolebindings/${ws}-admin`);
        return (b.subjects as { name: string }[])[0].name === next;
      },
      15_000,
      'the binding names the new manager',
    );
  },
);

test(
  'a namespace labelled with the workspace gets the owner reference, the namespace roles and its creator binding',
  opts,
  async () => {
    const ws = uniq('ws');
    const creator = uniq('dev');
    await createUser(stack, creator, 'Passw0rd-dev');
    await createWorkspace(ws, 'admin');
    const workspace = await eventually(
      () => tryGet(`${TENANT}/v1alpha1/workspaces/${ws}`),
      15_000,
      'the Workspace',
    );
    const ns = uniq('proj');
    await createNamespace(ns, ws, creator);
    const owned = await ownedNamespace(ns, workspace);
    assert.equal(owned.metadata.labels?.['kubesphere.io/namespace'], ns);
    const rb = await eventually(
      () => tryGet(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/${creator}-admin`),
      15_000,
      'the creator binding',
    );
    assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'admin' });
    assert.deepEqual(
      (rb.subjects as { kind: string; name: string }[]).map((s) => [s.kind, s.name]),
      [['User', creator]],
    );
    await eventually(
      () => tryGet(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/admin`),
      15_000,
      'the namespace admin role',
    );

    // A creator that is no user binds nobody; a namespace pointing at a missing workspace is left alone.
    const stray = uniq('stray');
    await createNamespace(stray, uniq('nows'), 'nobody-at-all');
    await eventually(
      async () =>
        (await rest.get<Obj>(`/api/v1/namespaces/${stray}`)).metadata.labels?.['kubesphere.io/namespace'] ===
        stray,
      15_000,
      'the stray namespace seen',
    );
    const strayNs = await rest.get<Obj>(`/api/v1/namespaces/${stray}`);
    assert.equal(strayNs.metadata.ownerReferences, undefined);
    assert.equal(
      await tryGet(`/apis/rbac.authorization.k8s.io/v1/namespaces/${stray}/rolebindings/nobody-at-all-admin`),
      undefined,
    );
  },
);

test('deleting a workspace deletes its namespaces; with the orphan finalizer they stay', opts, async () => {
  const ws = uniq('ws');
  const kept = uniq('ws');
  await createWorkspace(ws, 'admin');
  await createWorkspace(kept, 'admin');
  const a = await eventually(() => tryGet(`${TENANT}/v1alpha1/workspaces/${ws}`), 15_000, 'workspace');
  const b = await eventually(() => tryGet(`${TENANT}/v1alpha1/workspaces/${kept}`), 15_000, 'workspace');
  const doomed = uniq('proj');
  const orphan = uniq('proj');
  await createNamespace(doomed, ws, 'admin');
  await createNamespace(orphan, kept, 'admin');
  await ownedNamespace(doomed, a);
  await ownedNamespace(orphan, b);

  await kubectl('', 'delete', 'workspacetemplate', ws, '--wait=true', '--timeout=30s');
  await eventually(
    async () => !(await tryGet(`/api/v1/namespaces/${doomed}`)),
    15_000,
    'the namespace deleted',
  );
  assert.equal(await tryGet(`${TENANT}/v1alpha1/workspaces/${ws}`), undefined);
  assert.equal(await tryGet(`${IAM}/workspaceroles/${ws}-admin`), undefined, 'roles go with the template');

  // What the tenant API does for DELETE with propagationPolicy Orphan: the orphan finalizer, then the delete.
  await kubectl(
    '',
    'patch',
    'workspacetemplate',
    kept,
    '--type=json',
    '-p',
    JSON.stringify([{ op: 'add', path: '/metadata/finalizers/-', value: 'orphan.finalizers.kubesphere.io' }]),
  );
  await kubectl('', 'delete', 'workspacetemplate', kept, '--wait=true', '--timeout=30s');
  await eventually(
    async () => !(await tryGet(`${TENANT}/v1alpha1/workspaces/${kept}`)),
    15_000,
    'the Workspace deleted',
  );
  const survivor = await rest.get<Obj>(`/api/v1/namespaces/${orphan}`);
  assert.ok(!survivor.metadata.deletionTimestamp, 'the orphaned namespace is not deleted');
  assert.equal(survivor.metadata.ownerReferences, undefined);
});

test(
  'a GroupBinding adds its group to the users and takes it away on delete; system: groups are never given',
  opts,
  async () => {
    const user = uniq('member');
    await createUser(stack, user, 'Passw0rd-member');
    const groups = async () =>
      (await rest.get<{ spec: { groups?: string[] } }>(`${IAM}/users/${user}`)).spec.groups ?? [];
    const bind = (name: string, group: string) =>
      kubectl(
        JSON.stringify({
          apiVersion: 'iam.kubesphere.io/v1alpha2',
          kind: 'GroupBinding',
          metadata: { name },
          groupRef: { apiGroup: 'iam.kubesphere.io', kind: 'Group', name: group },
          users: [user],
        }),
        'create',
        '-f',
        '-',
      );
    await bind(`${user}-devs`, 'devs');
    await bind(`${user}-devs-again`, 'devs');
    await bind(`${user}-masters`, 'system:masters');
    await eventually(async () => (await groups()).includes('devs'), 15_000, 'the group added');
    await kubectl('', 'delete', 'groupbinding', `${user}-devs`, '--wait=true', '--timeout=30s');
    assert.deepEqual(await groups(), ['devs'], 'still given by the other binding');
    await kubectl('', 'delete', 'groupbinding', `${user}-devs-again`, '--wait=true', '--timeout=30s');
    await eventually(async () => (await groups()).length === 0, 15_000, 'the group removed');
    await kubectl('', 'delete', 'groupbinding', `${user}-masters`, '--wait=true', '--timeout=30s');
    assert.deepEqual(await groups(), []);
  },
);
