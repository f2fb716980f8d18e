// A name parameter of a /kapis route that is empty (`.../users/`) or not one plain path segment (`%2F`, `..`) never
// reaches the orchestrator as a collection path: it is a 404 (or a 400 for a non-canonical path), and nothing is
// deleted, even for a users-manager who may delete users and platform roles one by one.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { createUser, login } from '../helpers/oauth.ts';

const I = '/kapis/iam.kubesphere.io/v1alpha2';
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
let s: KapisStack;
let uma = '';

/** A request with the path sent exactly as written (fetch would resolve `..` before sending). */
function raw(method: string, path: string, token: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const body = method === 'PUT' || method === 'PATCH' ? '{}' : undefined;
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body)
      headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const req = httpRequest({ hostname, port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Names of the objects in each collection a stray collection delete could empty. */
async function snapshot(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const path of [
    `${IAM}/users`,
    `${IAM}/globalroles`,
    `${IAM}/globalrolebindings`,
    `${RBAC}/clusterroles`,
    `${RBAC}/clusterrolebindings`,
    `${RBAC}/namespaces/team/roles`,
    `${RBAC}/namespaces/team/rolebindings`,
  ]) {
    const r = await s.kube('GET', path);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    out[path] = r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
  }
  return out;
}

before(async () => {
  s = await startKapisStack();
  await createUser(s, 'uma', 'uma-Passw0rd');
  await createUser(s, 'vic', 'vic-Passw0rd');
  uma = (await login(s, 'uma', 'uma-Passw0rd')).access_token;
  const created = (r: { status: number; body: unknown }) =>
    assert.equal(r.status, 201, JSON.stringify(r.body));
  created(
    await s.kube('POST', `${IAM}/globalrolebindings`, {
      metadata: { name: 'uma-users-manager' },
      roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'users-manager' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'uma' }],
    }),
  );
  created(await s.kube('POST', '/api/v1/namespaces', { metadata: { name: 'team' } }));
  created(
    await s.kube('POST', `${RBAC}/namespaces/team/roles`, {
      metadata: { name: 'reader', namespace: 'team' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    }),
  );
  created(
    await s.kube('POST', `${RBAC}/namespaces/team/rolebindings`, {
      metadata: { name: 'vic-reader', namespace: 'team' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'vic' }],
    }),
  );
  created(
    await s.kube('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'spare' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    }),
  );
  await until(async () => (await s.call('GET', `${I}/users/uma`, undefined, uma)).status === 200, 'uma');
  await until(
    async () => (await s.call('GET', `${I}/namespaces/team/roles/reader`)).status === 200,
    'team roles in the cache',
  );
});

after(async () => {
  await s?.close();
});

const EMPTY_NAMES: [string, string][] = [
  ['DELETE', `${I}/users/`],
  ['DELETE', `${I}/globalroles/`],
  ['DELETE', `${I}/clusterroles/`],
  ['DELETE', `${I}/namespaces/team/roles/`],
  ['DELETE', `${I}/clustermembers/`],
  ['DELETE', `${I}/namespaces/team/members/`],
  ['DELETE', `${I}/globalrolebindings/`],
  ['GET', `${I}/users/`],
  ['GET', `${I}/globalroles/`],
  ['GET', `${I}/globalrolebindings/`],
  ['PUT', `${I}/users/`],
  ['PATCH', `${I}/globalroles/`],
  ['PUT', `${I}/clustermembers/`],
  ['DELETE', `/kapi/iam.kubesphere.io/v1alpha2/users/`],
];

for (const who of ['users-manager', 'admin'] as const) {
  test(`an empty name is a 404 or 405 Status for a ${who}, never a collection delete`, async () => {
    const token = who === 'admin' ? s.token : uma;
    // The users-manager may also be refused (403) where it holds no right on the collection at all.
    const refusals = who === 'admin' ? [404, 405] : [403, 404, 405];
    const before = await snapshot();
    for (const [method, path] of EMPTY_NAMES) {
      const r = await raw(method, path, token);
      assert.ok(refusals.includes(r.status), `${method} ${path}: ${r.status} ${r.body}`);
      assert.equal(JSON.parse(r.body).kind, 'Status', `${method} ${path}: ${r.body}`);
    }
    // Empty inner segments and names that are not one plain segment: refused before anything is looked up.
    for (const path of [
      `${I}/users//password`,
      `${I}/users//loginrecords`,
      `${I}/namespaces//roles`,
      `${I}/namespaces//roles/reader`,
      `${I}/users/%2F`,
      `${I}/users/..`,
      `${I}/users/.`,
      `${I}/users/%2e%2e`,
      `${I}/globalroles/%2F`,
      `${I}/namespaces/team/roles/..`,
      `${I}/users/a%2Fb`,
    ]) {
      const r = await raw('DELETE', path, token);
      assert.ok([400, ...refusals].includes(r.status), `DELETE ${path}: ${r.status} ${r.body}`);
      assert.equal(JSON.parse(r.body).kind, 'Status', `DELETE ${path}: ${r.body}`);
    }
    assert.deepEqual(await snapshot(), before);
    assert.ok(before[`${IAM}/users`].includes('admin'));
    assert.ok(before[`${IAM}/globalroles`].includes('platform-admin'));
  });
}

test('named deletes still work, and built-in platform roles are still refused by name', async () => {
  const refused = await raw('DELETE', `${I}/clusterroles/spare`, uma);
  assert.equal(refused.status, 403, refused.body);
  const del = await raw('DELETE', `${I}/clusterroles/spare`, s.token);
  assert.equal(del.status, 200, del.body);
  assert.equal((await s.kube('GET', `${RBAC}/clusterroles/spare`)).status, 404);
  const builtin = await raw('DELETE', `${I}/globalroles/platform-admin`, uma);
  assert.equal(builtin.status, 403, builtin.body);
  assert.equal((await s.kube('GET', `${IAM}/globalroles/platform-admin`)).status, 200);
});

test('through /apis too: no collection delete of users or global roles, no delete of a built-in role', async () => {
  const before = await snapshot();
  for (const token of [uma, s.token]) {
    for (const path of [`${IAM}/users`, `${IAM}/globalroles`, `${IAM}/globalroles?labelSelector=`]) {
      const r = await raw('DELETE', path, token);
      assert.equal(r.status, 405, `DELETE ${path}: ${r.body}`);
      assert.equal(JSON.parse(r.body).kind, 'Status');
    }
    for (const role of ['platform-admin', 'users-manager', 'role-template-manage-users']) {
      const r = await raw('DELETE', `${IAM}/globalroles/${role}`, token);
      assert.equal(r.status, 403, `DELETE ${role}: ${r.body}`);
    }
  }
  assert.deepEqual(await snapshot(), before);
});
