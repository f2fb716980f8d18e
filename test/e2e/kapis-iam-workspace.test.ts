// iam.kubesphere.io/v1alpha2 workspace routes end to end (dev cluster + kapiserver with its controllers, real tokens):
// workspace members, workspace roles (templates, aggregation), groups and group bindings, workspace and namespace role
// bindings; bad input answered with a 4xx Status naming the problem (missing workspace, a role of another workspace,
// a looping group, an empty binding), and escalation: a workspace roles manager cannot grant what it does not hold.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { createUser, login } from '../helpers/oauth.ts';

const I = '/kapis/iam.kubesphere.io/v1alpha2';
const W = `${I}/workspaces/alpha`;
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const WS_LABEL = 'kubesphere.io/workspace';
const AGG = 'iam.kubesphere.io/aggregation-roles';
const USER = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
let s: KapisStack;
const tok: Record<string, string> = {};

const ok = (r: { status: number; body: Json }, status = 200) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
};
/** A 4xx Status whose message names `what`. */
function refused(r: { status: number; body: Json }, status: number, what: string) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.kind, 'Status');
  assert.equal(r.body.code, status);
  assert.ok(String(r.body.message).includes(what), `${what} in ${r.body.message}`);
}
/** Names of the WorkspaceRoleBindings naming `user`, read from the dev cluster itself. */
async function workspaceBindingsOf(user: string): Promise<Json[]> {
  const list = ok(await s.kube('GET', `${IAM}/workspacerolebindings`));
  return list.items.filter((b: Json) => b.subjects?.some((x: Json) => x.kind === 'User' && x.name === user));
}
const workspace = (name: string, manager?: string) =>
  s.kube('POST', '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates', {
    metadata: { name },
    spec: { template: { spec: manager ? { manager } : {} }, placement: {} },
  });

before(async () => {
  s = await startKapisStack();
  for (const name of ['mia', 'ray', 'otto']) {
    await createUser(s, name, `${name}-Passw0rd`);
    tok[name] = (await login(s, name, `${name}-Passw0rd`)).access_token;
  }
  ok(await workspace('alpha'), 201);
  ok(await workspace('beta'), 201);
  // The workspacetemplate controller makes the initial roles from the built-in RoleBases.
  for (const role of ['alpha-viewer', 'alpha-regular', 'alpha-admin', 'beta-viewer']) {
    const ws = role.split('-')[0];
    await until(
      async () => (await s.call('GET', `${I}/workspaces/${ws}/workspaceroles/${role}`)).status === 200,
      role,
    );
  }
});

after(async () => {
  await s?.close();
});

test('members: add with <ws>-viewer, list, get, role templates, change role, remove', async () => {
  assert.deepEqual(
    ok(await s.call('POST', `${W}/workspacemembers`, [{ username: 'mia', roleRef: 'alpha-viewer' }])),
    [{ username: 'mia', roleRef: 'alpha-viewer' }],
  );
  const [binding] = await workspaceBindingsOf('mia');
  assert.equal(binding.metadata.name, 'mia-alpha-viewer');
  assert.equal(binding.metadata.labels[WS_LABEL], 'alpha');
  assert.equal(binding.metadata.labels['iam.kubesphere.io/user-ref'], 'mia');
  assert.deepEqual(binding.roleRef, {
    apiGroup: 'iam.kubesphere.io',
    kind: 'WorkspaceRole',
    name: 'alpha-viewer',
  });
  assert.equal(binding.metadata.ownerReferences[0].kind, 'WorkspaceTemplate', 'deleted with the workspace');

  const list = await until(async () => {
    const r = await s.call('GET', `${W}/workspacemembers`);
    return r.body.items?.some((u: Json) => u.metadata.name === 'mia') ? r.body : undefined;
  }, 'mia among the members');
  const mia = list.items.find((u: Json) => u.metadata.name === 'mia');
  assert.equal(mia.metadata.annotations['iam.kubesphere.io/workspacerole'], 'alpha-viewer');
  assert.ok(!JSON.stringify(list).includes('$2'), 'no password hash');
  assert.equal(mia.spec.password, undefined);
  const byRole = ok(await s.call('GET', `${W}/workspacemembers?workspacerole=alpha-regular`));
  assert.ok(!byRole.items.some((u: Json) => u.metadata.name === 'mia'));
  assert.equal(ok(await s.call('GET', `${W}/workspacemembers/mia`)).metadata.name, 'mia');
  refused(await s.call('GET', `${W}/workspacemembers/otto`), 404, '"otto" not found');
  const templates = ok(await s.call('GET', `${W}/workspacemembers/mia/workspaceroles`));
  assert.ok(templates.length > 0, 'alpha-viewer aggregates role templates');
  for (const t of templates)
    assert.equal(t.metadata.labels?.[WS_LABEL], undefined, 'templates belong to no workspace');
  // Not a member of beta: the viewer role of alpha gives nothing there.
  assert.equal(
    (await s.call('GET', `${I}/workspaces/beta/workspacemembers`, undefined, tok.mia)).status,
    403,
  );

  ok(await s.call('PUT', `${W}/workspacemembers/mia`, { username: 'mia', roleRef: 'alpha-regular' }));
  assert.deepEqual(
    (await workspaceBindingsOf('mia')).map((b) => b.metadata.name),
    ['mia-alpha-regular'],
  );
  // The regular role lets her read the members.
  await until(
    async () => (await s.call('GET', `${W}/workspacemembers`, undefined, tok.mia)).status === 200,
    'mia reads the members of alpha',
  );

  assert.deepEqual(ok(await s.call('DELETE', `${W}/workspacemembers/mia`)), { message: 'success' });
  assert.deepEqual(await workspaceBindingsOf('mia'), []);
});

test('workspace roles: own roles only, templates on request, aggregation resolved on write, delete', async () => {
  const own = ok(await s.call('GET', `${W}/workspaceroles`));
  assert.ok(own.items.length >= 3);
  for (const r of own.items) assert.equal(r.metadata.labels[WS_LABEL], 'alpha');
  const templates = ok(await s.call('GET', `${W}/workspaceroles?label=iam.kubesphere.io/role-template=true`));
  assert.ok(templates.items.length > 0);
  for (const r of templates.items) assert.equal(r.metadata.labels[WS_LABEL], undefined);
  const viewerTemplates = ok(await s.call('GET', `${W}/workspaceroles?aggregateTo=alpha-viewer`));
  assert.ok(viewerTemplates.items.length > 0);
  // Another workspace's role is not found here, whatever the query.
  refused(await s.call('GET', `${W}/workspaceroles/beta-viewer`), 404, '"beta-viewer" not found');
  const anyLabel = ok(
    await s.call('GET', `${W}/workspaceroles?labelSelector=iam.kubesphere.io/role-template!=x`),
  );
  assert.ok(!anyLabel.items.some((r: Json) => r.metadata.labels?.[WS_LABEL] === 'beta'));

  const template = templates.items[0];
  const created = ok(
    await s.call('POST', `${W}/workspaceroles`, {
      metadata: {
        name: 'alpha-custom',
        labels: { [WS_LABEL]: 'beta' },
        annotations: { [AGG]: JSON.stringify([template.metadata.name]) },
      },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    }),
  );
  assert.equal(created.metadata.labels[WS_LABEL], 'alpha', 'the path decides the workspace');
  assert.deepEqual(created.rules, template.rules, 'client rules are replaced by the templates');
  refused(
    await s.call('POST', `${W}/workspaceroles`, {
      metadata: { name: 'alpha-borrow', annotations: { [AGG]: '["beta-viewer"]' } },
    }),
    404,
    '"beta-viewer" not found',
  );
  refused(await s.call('DELETE', `${W}/workspaceroles/beta-viewer`), 404, '"beta-viewer" not found');
  ok(await s.call('DELETE', `${W}/workspaceroles/alpha-custom`));
  assert.equal((await s.kube('GET', `${IAM}/workspaceroles/alpha-custom`)).status, 404);
});

test('groups: generateName, parent in the workspace, loops refused; group bindings reach the user', async () => {
  refused(await s.call('POST', `${W}/groups`, { metadata: { name: 'devs' } }), 422, 'metadata.generateName');
  const devs = ok(await s.call('POST', `${W}/groups`, { metadata: { generateName: 'devs-' } }));
  assert.match(devs.metadata.name, /^devs-.+/);
  assert.equal(devs.metadata.labels[WS_LABEL], 'alpha');
  await until(async () => (await s.call('GET', `${W}/groups/${devs.metadata.name}`)).status === 200, 'devs');
  refused(await s.call('POST', `${W}/groups`, { metadata: { generateName: 'devs-' } }), 409, 'devs-');
  const child = ok(
    await s.call('POST', `${W}/groups`, {
      metadata: { generateName: 'web-', labels: { 'iam.kubesphere.io/group-parent': devs.metadata.name } },
    }),
  );
  await until(
    async () => (await s.call('GET', `${W}/groups/${child.metadata.name}`)).status === 200,
    'child',
  );
  refused(
    await s.call('PATCH', `${W}/groups/${devs.metadata.name}`, {
      metadata: { labels: { 'iam.kubesphere.io/group-parent': child.metadata.name } },
    }),
    422,
    'loops',
  );
  const listed = ok(await s.call('GET', `${W}/groups`));
  assert.deepEqual(
    listed.items.map((g: Json) => g.metadata.name).sort(),
    [devs.metadata.name, child.metadata.name].sort(),
  );
  assert.equal(ok(await s.call('GET', `${I}/workspaces/beta/groups`)).totalItems, 0);
  refused(await s.call('GET', `${I}/workspaces/beta/groups/${devs.metadata.name}`), 404, 'not found');

  const bound = ok(
    await s.call('POST', `${W}/groupbindings`, [{ userName: 'mia', groupName: devs.metadata.name }]),
  );
  assert.equal(bound.length, 1);
  assert.equal(bound[0].metadata.labels[WS_LABEL], 'alpha');
  assert.equal(bound[0].metadata.labels['iam.kubesphere.io/group-ref'], devs.metadata.name);
  assert.deepEqual(bound[0].users, ['mia']);
  await until(async () => {
    const u = await s.kube('GET', `${IAM}/users/mia`);
    return u.body.spec?.groups?.includes(devs.metadata.name);
  }, 'the group in mia spec.groups');
  refused(
    await s.call('POST', `${I}/workspaces/beta/groupbindings`, [
      { userName: 'mia', groupName: devs.metadata.name },
    ]),
    404,
    `"${devs.metadata.name}" not found`,
  );
  refused(
    await s.call('POST', `${W}/groupbindings`, [{ userName: 'ghost', groupName: devs.metadata.name }]),
    404,
    '"ghost" not found',
  );
  await until(
    async () => (await s.call('GET', `${W}/groupbindings`)).body.totalItems === 1,
    'listed binding',
  );
  ok(await s.call('DELETE', `${W}/groupbindings/${bound[0].metadata.name}`));
  ok(await s.call('DELETE', `${W}/groups/${child.metadata.name}`));
});

test('bad input: a missing workspace, a role of another workspace, an empty binding (4xx Status)', async () => {
  const missing = '"nope" not found';
  refused(
    await s.call('POST', `${I}/workspaces/nope/workspacemembers`, [
      { username: 'mia', roleRef: 'nope-viewer' },
    ]),
    404,
    missing,
  );
  assert.equal(
    (await s.call('GET', `${I}/workspaces/nope/workspaceroles`)).body.message,
    'workspaces.tenant.kubesphere.io "nope" not found',
  );
  refused(
    await s.call('POST', `${I}/workspaces/nope/groups`, { metadata: { generateName: 'g-' } }),
    404,
    missing,
  );
  refused(
    await s.call('POST', `${W}/workspacemembers`, [{ username: 'mia', roleRef: 'beta-viewer' }]),
    404,
    '"beta-viewer" not found',
  );
  refused(
    await s.call('POST', `${W}/workspacerolebindings`, [
      { roleRef: { name: 'beta-viewer' }, subjects: [USER('mia')] },
    ]),
    404,
    '"beta-viewer" not found',
  );
  refused(
    await s.call('POST', `${W}/workspacerolebindings`, [{ roleRef: { name: 'alpha-viewer' }, subjects: [] }]),
    422,
    'subject',
  );
  assert.deepEqual(await workspaceBindingsOf('mia'), [], 'nothing written');

  // A binding of beta cannot be deleted through alpha (KubeSphere deletes by name without a workspace check).
  const [betaBinding] = ok(
    await s.call('POST', `${I}/workspaces/beta/workspacerolebindings`, [
      { roleRef: { name: 'beta-viewer' }, subjects: [USER('otto')] },
    ]),
  );
  assert.match(betaBinding.metadata.name, /^otto-beta-viewer-/);
  assert.equal(betaBinding.metadata.labels['iam.kubesphere.io/user-ref'], 'otto');
  await until(
    async () => (await s.call('GET', `${I}/workspaces/beta/workspacerolebindings`)).body.totalItems >= 1,
    'listed',
  );
  assert.ok(
    !ok(await s.call('GET', `${W}/workspacerolebindings`)).items.some(
      (b: Json) => b.metadata.labels[WS_LABEL] !== 'alpha',
    ),
  );
  refused(
    await s.call('DELETE', `${W}/workspacerolebindings/${betaBinding.metadata.name}`),
    404,
    'not found',
  );
  ok(await s.call('DELETE', `${I}/workspaces/beta/workspacerolebindings/${betaBinding.metadata.name}`));
});

test('escalation: a workspace roles manager cannot create a role or bind a member beyond what it holds', async () => {
  ok(
    await s.call('POST', `${W}/workspaceroles`, {
      metadata: { name: 'alpha-roles-manager' },
      rules: [
        {
          apiGroups: ['*'],
          resources: ['workspaceroles', 'workspacemembers'],
          verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      ],
    }),
  );
  ok(await s.call('POST', `${W}/workspacemembers`, [{ username: 'ray', roleRef: 'alpha-roles-manager' }]));
  await until(
    async () => (await s.call('GET', `${W}/workspaceroles`, undefined, tok.ray)).status === 200,
    'ray reads the roles of alpha',
  );
  const grant = (name: string, verbs: string[]) =>
    s.call(
      'POST',
      `${W}/workspaceroles`,
      { metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs }] },
      tok.ray,
    );
  refused(await grant('alpha-pod-killer', ['delete']), 403, 'not currently held');
  assert.equal((await s.kube('GET', `${IAM}/workspaceroles/alpha-pod-killer`)).status, 404);
  const held = ok(await grant('alpha-pod-reader', ['get']));
  assert.equal(held.metadata.labels[WS_LABEL], 'alpha');
  refused(
    await s.call('POST', `${W}/workspacemembers`, [{ username: 'otto', roleRef: 'alpha-admin' }], tok.ray),
    403,
    'not currently held',
  );
  assert.deepEqual(await workspaceBindingsOf('otto'), []);
});

test('namespace role bindings: create an array, list them through the workspace, delete', async () => {
  ok(
    await s.kube('POST', '/api/v1/namespaces', {
      metadata: { name: 'alpha-web', labels: { [WS_LABEL]: 'alpha' } },
    }),
    201,
  );
  ok(
    await s.kube('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/alpha-web/roles', {
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    }),
    201,
  );
  await until(
    async () => (await s.call('GET', `${I}/namespaces/alpha-web/roles/reader`)).status === 200,
    'reader',
  );
  const path = `${I}/namespaces/alpha-web/rolebindings`;
  refused(
    await s.call('POST', path, [{ roleRef: { name: 'writer' }, subjects: [USER('mia')] }]),
    404,
    '"writer" not found',
  );
  const [rb] = ok(await s.call('POST', path, [{ roleRef: { name: 'reader' }, subjects: [USER('mia')] }]));
  assert.match(rb.metadata.name, /^mia-reader-/);
  assert.equal(rb.metadata.namespace, 'alpha-web');
  const listed = await until(async () => {
    const r = ok(await s.call('GET', `${W}/rolebindings`));
    return r.some((b: Json) => b.metadata.name === rb.metadata.name) ? r : undefined;
  }, 'the binding among the workspace role bindings');
  assert.ok(Array.isArray(listed), 'a plain array, as KubeSphere');
  ok(await s.call('DELETE', `${path}/${rb.metadata.name}`));
  refused(await s.call('DELETE', `${path}/${rb.metadata.name}`), 404, 'not found');
});
