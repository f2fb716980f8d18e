// iam.kubesphere.io/v1alpha2 member routes end to end (dev cluster + kapiserver, real tokens): cluster members
// (ClusterRoleBindings) and namespace members (RoleBindings) as KubeSphere returns them, one role per member and scope,
// escalation refusals, 403 for users without rights, 4xx Status answers for bad input, and the effect of membership
// on what the member may do.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { createUser, login } from '../helpers/oauth.ts';

const I = '/kapis/iam.kubesphere.io/v1alpha2';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const AGG = 'iam.kubesphere.io/aggregation-roles';
const SUBJECT = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
let s: KapisStack;
const tok: Record<string, string> = {};

const created = (r: { status: number; body: Json }) => assert.equal(r.status, 201, JSON.stringify(r.body));
const eventually = (who: string, path: string, status = 200) =>
  until(async () => {
    const r = await s.call('GET', path, undefined, tok[who]);
    return r.status === status ? r : undefined;
  }, `${who} GET ${path} -> ${status}`);
/** Names of the cluster's bindings that name `user` (read from the dev cluster itself). */
async function bindingsOf(path: string, user: string): Promise<string[]> {
  const list = (await s.kube('GET', path)).body;
  return list.items
    .filter((b: Json) => (b.subjects ?? []).some((x: Json) => x.kind === 'User' && x.name === user))
    .map((b: Json) => b.metadata.name)
    .sort();
}

before(async () => {
  s = await startKapisStack();
  tok.admin = s.token;
  for (const name of ['rita', 'sam', 'cole', 'nina']) {
    await createUser(s, name, `${name}-Passw0rd`);
    tok[name] = (await login(s, name, `${name}-Passw0rd`)).access_token;
  }
  const role = (name: string, rules: Json[], extra: Json = {}) =>
    s.kube('POST', `${RBAC}/clusterroles`, { metadata: { name, ...extra }, rules });
  // A role reading nodes and the one role template it aggregates (names of their own: kapiserver's built-in
  // cluster-viewer reads everything and aggregates many templates).
  created(
    await role(
      'role-template-view-test-nodes',
      [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
      { labels: { 'iam.kubesphere.io/role-template': 'true' } },
    ),
  );
  created(
    await role('nodes-viewer', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }], {
      annotations: { [AGG]: '["role-template-view-test-nodes"]' },
    }),
  );
  // The role granting everything: kapiserver's built-in cluster-admin (tenancy/builtins.ts), created at start.
  const clusterAdmin = await until(async () => {
    const r = await s.kube('GET', `${RBAC}/clusterroles/cluster-admin`);
    return r.status === 200 && r.body;
  }, 'the built-in cluster-admin ClusterRole');
  assert.deepEqual(clusterAdmin.rules[0], { apiGroups: ['*'], resources: ['*'], verbs: ['*'] });
  // cole may manage cluster members and read nodes, nothing more.
  created(
    await role('members-manager', [
      {
        apiGroups: ['iam.kubesphere.io'],
        resources: ['clustermembers', 'clustermembers/clusterroles'],
        verbs: ['*'],
      },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] },
    ]),
  );
  created(
    await s.kube('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'cole-members-manager' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'members-manager' },
      subjects: [SUBJECT('cole')],
    }),
  );
  // Namespace "team": nina manages its members and reads pods; roles "viewer" (pods) and "admin" (everything).
  created(await s.kube('POST', '/api/v1/namespaces', { metadata: { name: 'team' } }));
  const nsRole = (name: string, rules: Json[]) =>
    s.kube('POST', `${RBAC}/namespaces/team/roles`, { metadata: { name, namespace: 'team' }, rules });
  created(
    await nsRole('members-admin', [
      { apiGroups: ['iam.kubesphere.io'], resources: ['members', 'members/roles'], verbs: ['*'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ]),
  );
  created(await nsRole('viewer', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]));
  created(await nsRole('admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
  created(
    await s.kube('POST', `${RBAC}/namespaces/team/rolebindings`, {
      metadata: { name: 'nina-members-admin', namespace: 'team' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'members-admin' },
      subjects: [SUBJECT('nina')],
    }),
  );
  await eventually('cole', `${I}/clustermembers`);
  await eventually('nina', `${I}/namespaces/team/members`);
  await eventually('admin', `${I}/clusterroles/nodes-viewer`);
  await eventually('admin', `${I}/namespaces/team/roles/admin`);
});

after(async () => {
  await s?.close();
});

test('cluster members: add, list with the clusterrole annotation, get, role templates, change, remove', async () => {
  const add = await s.call('POST', `${I}/clustermembers`, [{ username: 'rita', roleRef: 'nodes-viewer' }]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  assert.deepEqual(add.body, [{ username: 'rita', roleRef: 'nodes-viewer' }]);
  assert.deepEqual(await bindingsOf(`${RBAC}/clusterrolebindings`, 'rita'), ['rita-nodes-viewer']);

  const list = await until(async () => {
    const r = await s.call('GET', `${I}/clustermembers?sortBy=name&ascending=true`);
    return r.body.items?.some((u: Json) => u.metadata.name === 'rita') ? r : undefined;
  }, 'rita among the cluster members');
  const names = list.body.items.map((u: Json) => u.metadata.name);
  assert.deepEqual(names, ['cole', 'rita'], 'only users bound through ClusterRoleBindings');
  const rita = list.body.items.find((u: Json) => u.metadata.name === 'rita');
  assert.equal(rita.metadata.annotations['iam.kubesphere.io/clusterrole'], 'nodes-viewer');
  assert.ok(!JSON.stringify(list.body).includes('$2'), 'no password hash');
  const byRole = await s.call('GET', `${I}/clustermembers?clusterrole=nodes-viewer`);
  assert.deepEqual(
    byRole.body.items.map((u: Json) => u.metadata.name),
    ['rita'],
  );
  assert.equal((await s.call('GET', `${I}/clustermembers?name=ri&limit=1`)).body.totalItems, 1);
  assert.equal((await s.call('GET', `${I}/clustermembers?clusterrole=`)).body.totalItems, 2);
  assert.equal((await s.call('GET', `${I}/clustermembers?clusterrole=nope`)).body.totalItems, 0);

  const one = await s.call('GET', `${I}/clustermembers/rita`);
  assert.equal(one.status, 200);
  assert.equal(one.body.metadata.annotations['iam.kubesphere.io/clusterrole'], 'nodes-viewer');
  const templates = await s.call('GET', `${I}/clustermembers/rita/clusterroles`);
  assert.deepEqual(
    templates.body.map((t: Json) => t.metadata.name),
    ['role-template-view-test-nodes'],
  );
  assert.deepEqual((await s.call('GET', `${I}/clustermembers/sam/clusterroles`)).body, []);
  assert.equal((await s.call('GET', `${I}/clustermembers/sam`)).status, 404);
  // Membership works: rita may now list nodes through the proxy.
  await eventually('rita', '/api/v1/nodes');

  // One role per member: a new role replaces the old binding.
  const upd = await s.call('PUT', `${I}/clustermembers/rita`, {
    username: 'rita',
    roleRef: 'members-manager',
  });
  assert.equal(upd.status, 200, JSON.stringify(upd.body));
  assert.deepEqual(await bindingsOf(`${RBAC}/clusterrolebindings`, 'rita'), ['rita-members-manager']);
  const again = await s.call('POST', `${I}/clustermembers`, [
    { username: 'rita', roleRef: 'members-manager' },
  ]);
  assert.equal(again.status, 200);
  assert.deepEqual(await bindingsOf(`${RBAC}/clusterrolebindings`, 'rita'), ['rita-members-manager']);

  // Removing a member from a binding shared with another user keeps the other user's binding.
  created(
    await s.kube('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'shared-viewers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nodes-viewer' },
      subjects: [SUBJECT('rita'), SUBJECT('sam')],
    }),
  );
  const del = await s.call('DELETE', `${I}/clustermembers/rita`);
  assert.equal(del.status, 200, JSON.stringify(del.body));
  assert.deepEqual(del.body, { message: 'success' });
  assert.deepEqual(await bindingsOf(`${RBAC}/clusterrolebindings`, 'rita'), []);
  assert.deepEqual(await bindingsOf(`${RBAC}/clusterrolebindings`, 'sam'), ['shared-viewers']);
  await eventually('admin', `${I}/clustermembers/rita`, 404);
  assert.equal(
    (await s.call('DELETE', `${I}/clustermembers/rita`)).status,
    200,
    'removing a non-member succeeds',
  );
});

test('cluster members: 403 without rights; a members manager cannot bind more than they hold', async () => {
  for (const [method, path, body] of [
    ['GET', `${I}/clustermembers`, undefined],
    ['GET', `${I}/clustermembers/cole`, undefined],
    ['POST', `${I}/clustermembers`, [{ username: 'rita', roleRef: 'nodes-viewer' }]],
    ['PUT', `${I}/clustermembers/rita`, { username: 'rita', roleRef: 'nodes-viewer' }],
    ['DELETE', `${I}/clustermembers/cole`, undefined],
  ] as const) {
    const r = await s.call(method, path, body, tok.sam);
    assert.equal(r.status, 403, `${method} ${path}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.kind, 'Status');
  }
  const esc = await s.call(
    'POST',
    `${I}/clustermembers`,
    [{ username: 'sam', roleRef: 'cluster-admin' }],
    tok.cole,
  );
  assert.equal(esc.status, 403, JSON.stringify(esc.body));
  assert.match(esc.body.message, /not currently held/);
  assert.deepEqual(
    await bindingsOf(`${RBAC}/clusterrolebindings`, 'sam'),
    ['shared-viewers'],
    'nothing written',
  );
  const ok = await s.call(
    'PUT',
    `${I}/clustermembers/sam`,
    { username: 'sam', roleRef: 'nodes-viewer' },
    tok.cole,
  );
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual(await bindingsOf(`${RBAC}/clusterrolebindings`, 'sam'), ['shared-viewers']);
  assert.equal((await s.call('DELETE', `${I}/clustermembers/sam`, undefined, tok.cole)).status, 200);
});

test('cluster members: bad input is a 4xx Status', async () => {
  const cases: [string, string, unknown, number][] = [
    ['POST', `${I}/clustermembers`, { username: 'rita', roleRef: 'nodes-viewer' }, 400],
    ['POST', `${I}/clustermembers`, [{ username: 'rita' }], 400],
    ['POST', `${I}/clustermembers`, [{ username: 'Rita!', roleRef: 'nodes-viewer' }], 400],
    ['POST', `${I}/clustermembers`, ['rita'], 400],
    [
      'POST',
      `${I}/clustermembers`,
      [
        { username: 'rita', roleRef: 'nodes-viewer' },
        { username: 'rita', roleRef: 'cluster-admin' },
      ],
      400,
    ],
    ['POST', `${I}/clustermembers`, [{ username: 'rita', roleRef: 'no-such-role' }], 404],
    ['POST', `${I}/clustermembers`, [{ username: 'nobody', roleRef: 'nodes-viewer' }], 404],
    ['PUT', `${I}/clustermembers/rita`, { username: 'sam', roleRef: 'nodes-viewer' }, 400],
    ['PUT', `${I}/clustermembers/rita`, 'x', 400],
    ['GET', `${I}/clustermembers?sortBy=email`, undefined, 400],
  ];
  for (const [method, path, body, status] of cases) {
    const r = await s.call(method, path, body);
    assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.kind, 'Status');
  }
  assert.deepEqual(await bindingsOf(`${RBAC}/clusterrolebindings`, 'rita'), [], 'nothing was written');
});

test('namespace members: add, list, get, role templates, remove; escalation and 403', async () => {
  const M = `${I}/namespaces/team/members`;
  const add = await s.call('POST', M, [{ username: 'rita', roleRef: 'viewer' }], tok.nina);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  assert.deepEqual(await bindingsOf(`${RBAC}/namespaces/team/rolebindings`, 'rita'), ['rita-viewer']);
  // Membership works: rita may list pods in "team", and still nothing else.
  await eventually('rita', '/api/v1/namespaces/team/pods');
  assert.equal((await s.call('GET', M, undefined, tok.rita)).status, 403);
  assert.equal((await s.call('GET', '/api/v1/namespaces/team/secrets', undefined, tok.rita)).status, 403);

  const list = await until(async () => {
    const r = await s.call('GET', `${M}?sortBy=name&ascending=true`, undefined, tok.nina);
    return r.body.totalItems === 2 ? r : undefined;
  }, 'two members in team');
  assert.deepEqual(
    list.body.items.map((u: Json) => [u.metadata.name, u.metadata.annotations['iam.kubesphere.io/role']]),
    [
      ['nina', 'members-admin'],
      ['rita', 'viewer'],
    ],
  );
  assert.deepEqual(
    (await s.call('GET', `${M}?role=viewer`, undefined, tok.nina)).body.items.map(
      (u: Json) => u.metadata.name,
    ),
    ['rita'],
  );
  const one = await s.call('GET', `${M}/rita`, undefined, tok.nina);
  assert.equal(one.body.metadata.annotations['iam.kubesphere.io/role'], 'viewer');
  assert.equal((await s.call('GET', `${M}/sam`, undefined, tok.nina)).status, 404);
  assert.deepEqual((await s.call('GET', `${M}/rita/roles`, undefined, tok.nina)).body, []);

  // nina holds pods get/list only: binding "admin" (everything) is refused, before anything is written.
  const esc = await s.call('PUT', `${M}/rita`, { username: 'rita', roleRef: 'admin' }, tok.nina);
  assert.equal(esc.status, 403, JSON.stringify(esc.body));
  assert.deepEqual(await bindingsOf(`${RBAC}/namespaces/team/rolebindings`, 'rita'), ['rita-viewer']);
  // The platform admin may.
  assert.equal((await s.call('PUT', `${M}/rita`, { username: 'rita', roleRef: 'admin' })).status, 200);
  assert.deepEqual(await bindingsOf(`${RBAC}/namespaces/team/rolebindings`, 'rita'), ['rita-admin']);

  // Members of other namespaces are out of nina's reach; other users see nothing.
  await s.kube('POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
  assert.equal((await s.call('GET', `${I}/namespaces/other/members`, undefined, tok.nina)).status, 403);
  assert.equal(
    (
      await s.call(
        'POST',
        `${I}/namespaces/other/members`,
        [{ username: 'sam', roleRef: 'viewer' }],
        tok.nina,
      )
    ).status,
    403,
  );
  assert.equal((await s.call('GET', M, undefined, tok.sam)).status, 403);
  assert.equal((await s.call('DELETE', `${M}/rita`, undefined, tok.sam)).status, 403);
  assert.equal((await s.call('POST', M, [{ username: 'sam', roleRef: 'no-such' }], tok.nina)).status, 404);
  assert.equal((await s.call('POST', M, { username: 'sam' }, tok.nina)).status, 400);

  const del = await s.call('DELETE', `${M}/rita`, undefined, tok.nina);
  assert.equal(del.status, 200, JSON.stringify(del.body));
  assert.deepEqual(await bindingsOf(`${RBAC}/namespaces/team/rolebindings`, 'rita'), []);
  await eventually('rita', '/api/v1/namespaces/team/pods', 403);
});
