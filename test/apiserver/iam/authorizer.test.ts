// The RBAC authorizer on the full stack (dev cluster + kapiserver, real tokens, real HTTP): built-in global roles and
// their aggregation, own-user access, namespace bindings never granting cluster-scoped objects, escalation checks on
// role and binding writes, non-resource URLs, and the AlwaysAllow/AlwaysDeny modes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bearer, createUser, devRest, eventually, login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { NS_ADMIN_ROLE } from './fixtures.ts';

let stack: TestStack;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const KIAM = '/kapis/iam.kubesphere.io/v1alpha2';
const tokens: Record<string, string> = {};

async function call(user: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { ...bearer(tokens[user]), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
}

/** Waits until a change made in the cluster reaches kapiserver's RBAC cache. */
const until = (user: string, method: string, path: string, status: number) =>
  eventually(
    async () => (await call(user, method, path)).status === status,
    20_000,
    `${user} ${method} ${path} -> ${status}`,
  );

before(async () => {
  stack = await startTestStack();
  tokens.admin = (await login(stack)).access_token;
  for (const name of ['bob', 'carol', 'dave']) {
    await createUser(stack, name, `${name}-Passw0rd`);
    tokens[name] = (await login(stack, name, `${name}-Passw0rd`)).access_token;
  }
  const rest = devRest(stack);
  // bob manages users (a built-in GlobalRole made of aggregated role templates).
  await rest.create(`${IAM}/globalrolebindings`, {
    metadata: { name: 'bob-users-manager' },
    roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'users-manager' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
  });
  // carol administers namespace "esc" through a Role that may write roles and bindings, nothing cluster-wide.
  await rest.create('/api/v1/namespaces', { metadata: { name: 'esc' } });
  await rest.create(`${RBAC}/namespaces/esc/roles`, NS_ADMIN_ROLE);
  await rest.create(`${RBAC}/namespaces/esc/rolebindings`, {
    metadata: { name: 'carol-ns-admin', namespace: 'esc' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ns-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
  });
  // dave holds every verb on every resource, but only inside namespace "wide" (a Role, not a ClusterRole binding).
  await rest.create('/api/v1/namespaces', { metadata: { name: 'wide' } });
  await rest.create(`${RBAC}/namespaces/wide/roles`, {
    metadata: { name: 'everything', namespace: 'wide' },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  await rest.create(`${RBAC}/namespaces/wide/rolebindings`, {
    metadata: { name: 'dave-everything', namespace: 'wide' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'everything' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dave' }],
  });
  await until('bob', 'GET', `${KIAM}/users`, 200);
  await until('carol', 'GET', '/api/v1/namespaces/esc/configmaps', 200);
  await until('dave', 'GET', '/api/v1/namespaces/wide/configmaps', 200);
});

after(async () => {
  await stack?.close();
});

test("built-in global roles exist, in KubeSphere's aggregated shape", { timeout: 30_000 }, async () => {
  const list = await call('admin', 'GET', `${IAM}/globalroles`);
  const byName = new Map(
    (list.body.items as { metadata: { name: string; annotations?: Record<string, string> } }[]).map((r) => [
      r.metadata.name,
      r,
    ]),
  );
  for (const name of [
    'platform-admin',
    'platform-regular',
    'platform-self-provisioner',
    'users-manager',
    'workspaces-manager',
  ]) {
    assert.ok(byName.has(name), `GlobalRole ${name}`);
  }
  const agg = JSON.parse(
    byName.get('users-manager')!.metadata.annotations!['iam.kubesphere.io/aggregation-roles'],
  ) as string[];
  assert.ok(agg.includes('role-template-view-users'));
});

test('aggregated global role: users-manager reads users but not cluster resources; losing the binding revokes', {
  timeout: 60_000,
}, async () => {
  assert.equal((await call('bob', 'GET', `${KIAM}/users`)).status, 200);
  assert.equal((await call('bob', 'GET', `${IAM}/users/carol`)).status, 200);
  const nodes = await call('bob', 'GET', '/api/v1/nodes');
  assert.equal(nodes.status, 403);
  assert.equal(
    nodes.body.message,
    'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope',
  );
  assert.deepEqual(nodes.body.details, { kind: 'nodes' });
  // The aggregated template named in the annotation is what grants it: without the binding, nothing.
  await devRest(stack).delete(`${IAM}/globalrolebindings/bob-users-manager`);
  await until('bob', 'GET', `${KIAM}/users`, 403);
  await devRest(stack).create(`${IAM}/globalrolebindings`, {
    metadata: { name: 'bob-users-manager' },
    roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'users-manager' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
  });
  await until('bob', 'GET', `${KIAM}/users`, 200);
});

test("every user reads their own user object and kubeconfig, not other users'", {
  timeout: 30_000,
}, async () => {
  assert.equal((await call('carol', 'GET', `${KIAM}/users/carol`)).status, 200);
  assert.equal(
    (
      await fetch(`${stack.url}/kapis/resources.kubesphere.io/v1alpha2/users/carol/kubeconfig`, {
        headers: bearer(tokens.carol),
      })
    ).status,
    200,
  );
  const other = await call('carol', 'GET', `${KIAM}/users/dave`);
  assert.equal(other.status, 403);
  assert.match(
    String(other.body.message),
    /users.iam.kubesphere.io "dave" is forbidden: User "carol" cannot get resource "users"/,
  );
  assert.equal((await call('carol', 'GET', `${KIAM}/users`)).status, 403);
  // KubeSphere's allow-list needs no permission.
  assert.equal(
    (await call('carol', 'GET', '/kapis/config.kubesphere.io/v1alpha2/configs/oauth')).status,
    200,
  );
});

test('namespace-scoped permissions never grant cluster-scoped objects', { timeout: 30_000 }, async () => {
  assert.equal((await call('dave', 'GET', '/api/v1/namespaces/wide/configmaps')).status, 200);
  assert.equal(
    (await call('dave', 'GET', '/api/v1/namespaces/wide')).status,
    200,
    'the namespace itself, as in Kubernetes',
  );
  for (const path of [
    '/api/v1/nodes',
    '/api/v1/namespaces',
    '/api/v1/namespaces/wide/nodes',
    `${RBAC}/clusterroles`,
    `${RBAC}/namespaces/wide/clusterrolebindings`,
    '/kapis/resources.kubesphere.io/v1alpha3/namespaces/wide/nodes',
    '/kapis/resources.kubesphere.io/v1alpha3/nodes',
    `${KIAM}/users`,
    `${IAM}/namespaces/wide/globalroles`,
    '/api/v1/namespaces/default/configmaps',
    '/metrics',
  ]) {
    assert.equal((await call('dave', 'GET', path)).status, 403, path);
  }
});

test('escalation: roles and bindings written through /apis grant nothing beyond what the writer holds', {
  timeout: 60_000,
}, async () => {
  const ok = await call('carol', 'POST', `${RBAC}/namespaces/esc/roles`, {
    metadata: { name: 'cm-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  const wider = await call('carol', 'POST', `${RBAC}/namespaces/esc/roles`, {
    metadata: { name: 'secret-reader' },
    rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
  });
  assert.equal(wider.status, 403);
  assert.match(
    String(wider.body.message),
    /User "carol" is attempting to grant RBAC permissions not currently held/,
  );
  const aggregated = await call('carol', 'POST', `${RBAC}/namespaces/esc/roles`, {
    metadata: { name: 'sneaky', annotations: { 'iam.kubesphere.io/aggregation-roles': '["ns-admin"]' } },
    rules: [],
  });
  assert.equal(aggregated.status, 201, 'aggregating a role she holds is fine');
  // Binding: a role within her rights is fine; a wide ClusterRole is not, nor a role that does not exist.
  await devRest(stack).create(`${RBAC}/clusterroles`, {
    metadata: { name: 'all-powerful' },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  await until('admin', 'GET', `${RBAC}/clusterroles/all-powerful`, 200);
  const bindOk = await call('carol', 'POST', `${RBAC}/namespaces/esc/rolebindings`, {
    metadata: { name: 'dave-cm' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dave' }],
  });
  assert.equal(bindOk.status, 201, JSON.stringify(bindOk.body));
  await eventually(
    async () =>
      (
        await call('carol', 'POST', `${RBAC}/namespaces/esc/rolebindings`, {
          metadata: { name: 'self-powerful' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'all-powerful' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
        })
      ).status === 403,
    20_000,
    'binding all-powerful refused',
  );
  const missing = await call('carol', 'POST', `${RBAC}/namespaces/esc/rolebindings`, {
    metadata: { name: 'to-nothing' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'not-there-yet' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
  });
  assert.equal(missing.status, 403);
  // users-manager may write global role bindings, but not hand out platform-admin (which bob does not hold).
  const grab = await call('bob', 'POST', `${IAM}/globalrolebindings`, {
    metadata: { name: 'bob-admin' },
    roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'platform-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
  });
  assert.equal(grab.status, 403);
  assert.match(String(grab.body.message), /not currently held/);
  const fine = await call('bob', 'POST', `${IAM}/globalrolebindings`, {
    metadata: { name: 'carol-regular' },
    roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'platform-regular' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
  });
  assert.equal(fine.status, 201, JSON.stringify(fine.body));
  // The admin holds everything (escalate/bind): no check, no buffering.
  const adminBind = await call('admin', 'POST', `${RBAC}/namespaces/esc/rolebindings`, {
    metadata: { name: 'carol-powerful' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'all-powerful' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
  });
  assert.equal(adminBind.status, 201);
});

test('non-resource URLs: granted by a ClusterRole with nonResourceURLs bound cluster-wide', {
  timeout: 60_000,
}, async () => {
  assert.equal((await call('dave', 'GET', '/metrics')).status, 403);
  const rest = devRest(stack);
  await rest.create(`${RBAC}/clusterroles`, {
    metadata: { name: 'metrics-reader' },
    rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
  });
  await rest.create(`${RBAC}/clusterrolebindings`, {
    metadata: { name: 'dave-metrics' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dave' }],
  });
  await until('dave', 'GET', '/metrics', 200);
  assert.equal((await call('dave', 'GET', '/api/v1/nodes')).status, 403);
});

test('authorization.mode AlwaysDeny refuses everything but the allow-list; AlwaysAllow lets everyone through', {
  timeout: 30_000,
}, async () => {
  const config = stack.api.context.config.current();
  try {
    config.authorization.mode = 'AlwaysDeny';
    assert.equal((await call('admin', 'GET', '/api/v1/nodes')).status, 403);
    assert.equal((await call('admin', 'GET', '/kapis/version')).status, 200);
    config.authorization.mode = 'AlwaysAllow';
    assert.equal((await call('dave', 'GET', '/api/v1/nodes')).status, 200);
  } finally {
    config.authorization.mode = 'RBAC';
  }
  assert.equal((await call('dave', 'GET', '/api/v1/nodes')).status, 403);
});
