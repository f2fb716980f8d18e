// iam.kubesphere.io/v1alpha2 and config.kubesphere.io/v1alpha2 end to end, with real tokens.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { login } from '../helpers/oauth.ts';

const I = '/kapis/iam.kubesphere.io/v1alpha2';
const C = '/kapis/config.kubesphere.io/v1alpha2';
let s: KapisStack;

const noPassword = (body: Json) => {
  const text = JSON.stringify(body);
  assert.ok(!/"password"|\$2[aby]\$/.test(text), `a password leaked: ${text.slice(0, 300)}`);
};

before(async () => {
  s = await startKapisStack();
});
after(async () => {
  await s?.close();
});

test('users: create, get, list with query parameters, update, never a password', async () => {
  const created = await s.call('POST', `${I}/users`, {
    apiVersion: 'iam.kubesphere.io/v1alpha2',
    kind: 'User',
    metadata: { name: 'alice', labels: { team: 'a' } },
    spec: { email: 'alice@example.com', password: 'Alice-pass-1', displayName: 'Alice' },
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  noPassword(created.body);
  assert.equal(created.body.metadata.name, 'alice');

  const dup = await s.call('POST', `${I}/users`, { metadata: { name: 'alice' }, spec: { email: 'a@b.io' } });
  assert.equal(dup.status, 409);
  assert.equal(dup.body.kind, 'Status');
  for (const bad of [
    { metadata: { name: 'Bad_Name' }, spec: {} },
    { metadata: { name: 'bob' }, spec: { email: 'not-an-email' } },
    { metadata: { name: 'bob' }, spec: { password: '123' } },
  ]) {
    const r = await s.call('POST', `${I}/users`, bad);
    assert.equal(r.status, 400, JSON.stringify(bad));
    assert.equal(r.body.kind, 'Status');
  }

  const one = await until(async () => {
    const r = await s.call('GET', `${I}/users/alice`);
    return r.status === 200 ? r : undefined;
  }, 'alice in the cache');
  noPassword(one.body);
  assert.equal(one.body.spec.email, 'alice@example.com');

  const list = await s.call('GET', `${I}/users?sortBy=name&ascending=true`);
  assert.equal(list.status, 200);
  noPassword(list.body);
  const names = list.body.items.map((u: Json) => u.metadata.name);
  assert.ok(names.includes('admin') && names.includes('alice'));
  const admin = list.body.items.find((u: Json) => u.metadata.name === 'admin');
  assert.equal(admin.metadata.annotations['iam.kubesphere.io/globalrole'], 'platform-admin');
  assert.deepEqual(
    (await s.call('GET', `${I}/users?label=team=a`)).body.items.map((u: Json) => u.metadata.name),
    ['alice'],
  );
  assert.equal((await s.call('GET', `${I}/users?limit=0`)).status, 400);

  const upd = await s.call('PUT', `${I}/users/alice`, {
    metadata: { name: 'alice', labels: { team: 'b' } },
    spec: { email: 'alice@example.org', password: 'ignored-here' },
  });
  assert.equal(upd.status, 200, JSON.stringify(upd.body));
  noPassword(upd.body);
  assert.equal(upd.body.spec.email, 'alice@example.org');
  // The password was not changed by the update: the old one still logs in.
  await until(async () => {
    try {
      return (await login(s, 'alice', 'Alice-pass-1')).access_token;
    } catch {
      return undefined;
    }
  }, 'alice can log in with her initial password');
  assert.equal((await s.call('PUT', `${I}/users/bob`, { metadata: { name: 'bob' }, spec: {} })).status, 404);
  assert.equal(
    (await s.call('PUT', `${I}/users/alice`, { metadata: { name: 'eve' }, spec: {} })).status,
    400,
  );
});

test('password change: own password needs currentPassword; login records; global role', async () => {
  const token = (await login(s, 'alice', 'Alice-pass-1')).access_token;
  const wrong = await s.call(
    'PUT',
    `${I}/users/alice/password`,
    { currentPassword: 'nope-nope', password: 'Alice-pass-2' },
    token,
  );
  assert.equal(wrong.status, 400);
  assert.match(wrong.body.message, /incorrect old password/);
  const ok = await s.call(
    'PUT',
    `${I}/users/alice/password`,
    { currentPassword: 'Alice-pass-1', password: 'Alice-pass-2' },
    token,
  );
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual(ok.body, { message: 'success' });
  await until(async () => {
    try {
      return (await login(s, 'alice', 'Alice-pass-2')).access_token;
    } catch {
      return undefined;
    }
  }, 'login with the new password');
  assert.equal((await s.call('PUT', `${I}/users/alice/password`, { password: 'x' })).status, 400);
  // The admin may leave currentPassword out, but a wrong one is refused whoever sends it; nothing changes.
  const adminWrong = await s.call('PUT', `${I}/users/alice/password`, {
    currentPassword: 'Alice-pass-1',
    password: 'Alice-pass-3',
  });
  assert.equal(adminWrong.status, 400);
  assert.match(adminWrong.body.message, /incorrect old password/);
  assert.ok((await login(s, 'alice', 'Alice-pass-2')).access_token, 'the password is unchanged');

  const records = await until(async () => {
    const r = await s.call('GET', `${I}/users/alice/loginrecords`);
    return r.status === 200 && r.body.totalItems >= 2 ? r : undefined;
  }, 'login records of alice');
  for (const rec of records.body.items)
    assert.equal(rec.metadata.labels['iam.kubesphere.io/user-ref'], 'alice');
  noPassword(records.body);

  // Built-in global roles come from the authorization unit; create platform-admin here when it is not there yet.
  const native = '/apis/iam.kubesphere.io/v1alpha2/globalroles';
  if ((await s.kube('GET', `${native}/platform-admin`)).status === 404) {
    const r = await s.kube('POST', native, {
      apiVersion: 'iam.kubesphere.io/v1alpha2',
      kind: 'GlobalRole',
      metadata: { name: 'platform-admin' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    });
    assert.ok(r.status === 201 || r.status === 409, JSON.stringify(r.body));
  }
  // KubeSphere answers with the role templates the user's global role aggregates; the console shows a platform
  // menu only when a template's `role-template-rules` names its module, so platform-admin's name every one.
  const templates = await until(async () => {
    const r = await s.call('GET', `${I}/users/admin/globalroles`);
    return r.status === 200 ? r : undefined;
  }, 'role templates of admin');
  const actions = new Set<string>();
  for (const t of templates.body) {
    const rules = JSON.parse(t.metadata.annotations?.['iam.kubesphere.io/role-template-rules'] ?? '{}');
    for (const [module, action] of Object.entries(rules)) actions.add(`${module}:${action}`);
  }
  for (const module of ['users', 'roles', 'workspaces', 'clusters', 'platform-settings'])
    assert.ok(actions.has(`${module}:manage`), `${module}:manage in ${[...actions]}`);
  // The console's role lists and pickers ask for roles with a creator, which leaves the templates out.
  const listed = await s.call('GET', `${I}/globalroles?limit=-1&annotation=kubesphere.io/creator`);
  const roleNames = listed.body.items.map((r: Json) => r.metadata.name);
  for (const role of ['platform-admin', 'platform-regular', 'platform-self-provisioner'])
    assert.ok(roleNames.includes(role), `${role} in ${roleNames}`);
  assert.ok(!roleNames.some((n: string) => n.startsWith('role-template-')), `${roleNames}`);
  assert.equal(
    (await s.call('GET', `${I}/users/admin`)).body.metadata.annotations['iam.kubesphere.io/globalrole'],
    'platform-admin',
  );
  assert.equal((await s.call('GET', `${I}/users/nobody/globalroles`)).status, 404);
  const roles = await s.call('GET', `${I}/globalroles?name=platform`);
  assert.ok(roles.body.totalItems >= 1);
  const bindings = await s.call('GET', `${I}/globalrolebindings`);
  assert.ok(bindings.body.items.some((b: Json) => b.roleRef?.name === 'platform-admin'));
  assert.equal((await s.call('GET', `${I}/globalroles/platform-admin`)).status, 200);
  assert.equal((await s.call('GET', `${I}/globalroles/nope`)).status, 404);
});

test('delete a user', async () => {
  const del = await s.call('DELETE', `${I}/users/alice`);
  assert.equal(del.status, 200);
  await until(async () => (await s.call('GET', `${I}/users/alice`)).status === 404, 'alice gone');
  assert.equal((await s.call('DELETE', `${I}/users/alice`)).status, 404);
});

test('configs/oauth and configs/configz carry no secrets', async () => {
  const oauth = await s.call('GET', `${C}/configs/oauth`);
  assert.equal(oauth.status, 200);
  assert.equal(oauth.body.accessTokenMaxAge, 7200 * 1e9);
  assert.ok(oauth.body.clients.some((c: Json) => c.name === 'kubesphere'));
  const configz = await s.call('GET', `${C}/configs/configz`);
  assert.equal(configz.status, 200);
  assert.equal(configz.body.authentication, true);
  for (const body of [oauth.body, configz.body]) {
    const text = JSON.stringify(body);
    assert.ok(!/secret|password/i.test(text), text);
    assert.ok(!text.includes(s.adminPassword));
  }
});
