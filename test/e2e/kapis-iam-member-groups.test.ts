// A workspace member's role templates (GET .../workspacemembers/{user}/workspaceroles) count the workspace roles
// reached through the user's groups, as KubeSphere's do (reference 3.2): a user in a group bound to a workspace role
// gets that role's templates, added to those of their own role; bindings of the group in another workspace, and of a
// `system:` group a User names behind kapiserver's back, count for nothing there.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { createUser } from '../helpers/oauth.ts';

const I = '/kapis/iam.kubesphere.io/v1alpha2';
const W = `${I}/workspaces/gamma`;
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const AGG = 'iam.kubesphere.io/aggregation-roles';
const GROUP = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name });
const USER = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
let s: KapisStack;
let devs = '';

const ok = (r: { status: number; body: Json }, status = 200) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
};
const workspace = (name: string) =>
  s.kube('POST', '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates', {
    metadata: { name },
    spec: { template: { spec: {} }, placement: {} },
  });
/** The template names a workspace role aggregates, as its annotation lists them. */
async function aggregated(role: string): Promise<string[]> {
  const r = ok(await s.kube('GET', `${IAM}/workspaceroles/${role}`));
  return JSON.parse(r.metadata.annotations[AGG]);
}
const union = (...lists: string[][]) => [...new Set(lists.flat())].sort();

before(async () => {
  s = await startKapisStack();
  for (const name of ['gus', 'hal']) await createUser(s, name, `${name}-Passw0rd`);
  await createUser(s, 'ivy', 'ivy-Passw0rd', { spec: { groups: ['system:masters'] } });
  ok(await workspace('gamma'), 201);
  ok(await workspace('delta'), 201);
  for (const role of ['gamma-viewer', 'gamma-admin', 'delta-admin']) {
    const ws = role.split('-')[0];
    await until(
      async () => (await s.call('GET', `${I}/workspaces/${ws}/workspaceroles/${role}`)).status === 200,
      role,
    );
  }
  // gus joins the group "devs-..." of gamma through a GroupBinding (the controller adds it to his spec.groups).
  devs = ok(await s.call('POST', `${W}/groups`, { metadata: { generateName: 'devs-' } })).metadata.name;
  await until(async () => (await s.call('GET', `${W}/groups/${devs}`)).status === 200, 'the group');
  ok(await s.call('POST', `${W}/groupbindings`, [{ userName: 'gus', groupName: devs }]));
  await until(
    async () => (await s.kube('GET', `${IAM}/users/gus`)).body.spec?.groups?.includes(devs),
    'the group in gus spec.groups',
  );
});

after(async () => {
  await s?.close();
});

/** The names of the role templates the member route answers for `user` in `ws`, sorted. */
async function templatesIn(ws: string, user: string): Promise<string[]> {
  const body = ok(await s.call('GET', `${I}/workspaces/${ws}/workspacemembers/${user}/workspaceroles`));
  const names = body.map((t: Json) => t.metadata.name);
  assert.equal(new Set(names).size, names.length, `no template twice: ${names}`);
  return names.sort();
}

test('a group bound in another workspace gives nothing here', async () => {
  ok(
    await s.call('POST', `${I}/workspaces/delta/workspacerolebindings`, [
      { roleRef: { name: 'delta-admin' }, subjects: [GROUP(devs)] },
    ]),
  );
  await until(async () => (await templatesIn('delta', 'gus')).length > 0, 'the group binding seen in delta');
  assert.deepEqual(await templatesIn('delta', 'gus'), union(await aggregated('delta-admin')));
  assert.deepEqual(await templatesIn('gamma', 'gus'), []);
});

test('the roles a workspace binds to the user groups count, with the user own role, each template once', async () => {
  const viewer = await aggregated('gamma-viewer');
  const admin = await aggregated('gamma-admin');
  assert.ok(
    admin.some((t) => !viewer.includes(t)),
    'admin aggregates more than viewer',
  );
  ok(
    await s.call('POST', `${W}/workspacerolebindings`, [
      { roleRef: { name: 'gamma-admin' }, subjects: [GROUP(devs)] },
    ]),
  );
  // Through the group only: gus is no member (members are User subjects), yet his role templates are admin's.
  await until(async () => (await templatesIn('gamma', 'gus')).length > 0, 'the group binding seen');
  assert.deepEqual(await templatesIn('gamma', 'gus'), union(admin));
  assert.equal((await s.call('GET', `${W}/workspacemembers/gus`)).status, 404);
  // hal is not in the group.
  assert.deepEqual(await templatesIn('gamma', 'hal'), []);

  // His own role adds its templates, each once.
  ok(await s.call('POST', `${W}/workspacemembers`, [{ username: 'gus', roleRef: 'gamma-viewer' }]));
  await until(async () => (await s.call('GET', `${W}/workspacemembers/gus`)).status === 200, 'gus a member');
  assert.deepEqual(await templatesIn('gamma', 'gus'), union(viewer, admin));
});

test('a system group a User names behind kapiserver counts for nothing', async () => {
  ok(
    await s.kube('POST', `${IAM}/workspacerolebindings`, {
      metadata: { name: 'masters-gamma-admin', labels: { 'kubesphere.io/workspace': 'gamma' } },
      roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'WorkspaceRole', name: 'gamma-admin' },
      subjects: [GROUP('system:masters'), USER('nobody-here')],
    }),
    201,
  );
  await until(async () => (await templatesIn('gamma', 'nobody-here')).length > 0, 'the binding seen');
  assert.deepEqual(await templatesIn('gamma', 'ivy'), []);
});
