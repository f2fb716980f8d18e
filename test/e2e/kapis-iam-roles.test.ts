// iam.kubesphere.io/v1alpha2 role routes end to end (dev cluster + kapiserver, real tokens): global roles, cluster
// roles and namespace roles with KubeSphere's aggregation annotation, merge patch, escalation refusals, built-in
// protection, 403 for users without rights, and 4xx Status answers for bad input.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { createUser, login } from '../helpers/oauth.ts';

const I = '/kapis/iam.kubesphere.io/v1alpha2';
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const AGG = 'iam.kubesphere.io/aggregation-roles';
let s: KapisStack;
const tok: Record<string, string> = {};

/** A call with a chosen content type (merge patches). */
async function send(method: string, path: string, body: unknown, token: string, type: string) {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

const created = (r: { status: number; body: Json }) => {
  assert.equal(r.status, 201, JSON.stringify(r.body));
};
/** Waits until a kapis read by `who` answers `status` (the informer cache and RBAC cache are eventually fresh). */
const eventually = (who: string, path: string, status = 200) =>
  until(async () => {
    const r = await s.call('GET', path, undefined, tok[who]);
    return r.status === status ? r : undefined;
  }, `${who} GET ${path} -> ${status}`);

before(async () => {
  s = await startKapisStack();
  tok.admin = s.token;
  for (const name of ['rita', 'uma', 'cole', 'nina']) {
    await createUser(s, name, `${name}-Passw0rd`);
    tok[name] = (await login(s, name, `${name}-Passw0rd`)).access_token;
  }
  // uma manages users and platform roles (users-manager); cole may write cluster roles of the aggregated API only;
  // nina administers roles in namespace "team"; rita has no rights at all.
  created(
    await s.kube('POST', `${IAM}/globalrolebindings`, {
      metadata: { name: 'uma-users-manager' },
      roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'users-manager' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'uma' }],
    }),
  );
  created(
    await s.kube('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'kapis-clusterrole-writer' },
      rules: [
        { apiGroups: ['iam.kubesphere.io'], resources: ['clusterroles'], verbs: ['*'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      ],
    }),
  );
  created(
    await s.kube('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'cole-writer' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'kapis-clusterrole-writer',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'cole' }],
    }),
  );
  created(await s.kube('POST', '/api/v1/namespaces', { metadata: { name: 'team' } }));
  created(
    await s.kube('POST', `${RBAC}/namespaces/team/roles`, {
      metadata: { name: 'ns-roles-admin', namespace: 'team' },
      rules: [
        { apiGroups: ['iam.kubesphere.io'], resources: ['roles'], verbs: ['*'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      ],
    }),
  );
  created(
    await s.kube('POST', `${RBAC}/namespaces/team/rolebindings`, {
      metadata: { name: 'nina-roles-admin', namespace: 'team' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ns-roles-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'nina' }],
    }),
  );
  await eventually('uma', `${I}/globalroles`);
  await eventually('cole', `${I}/clusterroles`);
  await eventually('nina', `${I}/namespaces/team/roles`);
});

after(async () => {
  await s?.close();
});

test('global roles: create from role templates, get, list aggregateTo, update, merge patch, delete', async () => {
  const r = await s.call('POST', `${I}/globalroles`, {
    apiVersion: 'iam.kubesphere.io/v1alpha2',
    kind: 'GlobalRole',
    metadata: {
      name: 'viewer-of-users',
      annotations: { [AGG]: '["role-template-view-users"]', 'kubesphere.io/description': 'sees users' },
    },
    // Ignored: with the annotation the rules are those of the templates (KubeSphere).
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.metadata.name, 'viewer-of-users');
  assert.ok(r.body.rules.length > 0);
  assert.ok(
    r.body.rules.every((rule: Json) => !rule.verbs.includes('*')),
    JSON.stringify(r.body.rules),
  );
  assert.ok(r.body.rules.some((rule: Json) => rule.resources.includes('users')));

  const one = await eventually('admin', `${I}/globalroles/viewer-of-users`);
  assert.equal(one.body.metadata.annotations['kubesphere.io/description'], 'sees users');
  const templates = await s.call('GET', `${I}/globalroles?aggregateTo=viewer-of-users`);
  assert.deepEqual(
    templates.body.items.map((i: Json) => i.metadata.name),
    ['role-template-view-users'],
  );
  assert.equal(templates.body.totalItems, 1);
  assert.equal((await s.call('GET', `${I}/globalroles?aggregateTo=nope`)).body.totalItems, 0);

  const put = await s.call('PUT', `${I}/globalroles/viewer-of-users`, {
    metadata: {
      name: 'viewer-of-users',
      annotations: { [AGG]: '["role-template-view-users","role-template-view-roles"]' },
    },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.ok(put.body.rules.some((rule: Json) => rule.resources.includes('globalroles')));

  // A patch that leaves the annotation alone keeps the rules; one that sets it re-resolves them.
  const described = await send(
    'PATCH',
    `${I}/globalroles/viewer-of-users`,
    { metadata: { annotations: { 'kubesphere.io/alias-name': 'Viewer' } }, rules: [] },
    tok.admin,
    'application/merge-patch+json',
  );
  assert.equal(described.status, 200, JSON.stringify(described.body));
  assert.equal(described.body.metadata.annotations['kubesphere.io/alias-name'], 'Viewer');
  assert.deepEqual(described.body.rules, put.body.rules);
  const narrowed = await send(
    'PATCH',
    `${I}/globalroles/viewer-of-users`,
    { metadata: { annotations: { [AGG]: '["role-template-view-basic"]' } } },
    tok.admin,
    'application/merge-patch+json',
  );
  assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
  assert.deepEqual(
    narrowed.body.rules.map((rule: Json) => rule.apiGroups),
    [['config.kubesphere.io']],
  );

  // Without the annotation, a role carries its own rules (and a JSON body patches too).
  const plain = await s.call('POST', `${I}/globalroles`, {
    metadata: { name: 'plain-role' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  const patched = await s.call('PATCH', `${I}/globalroles/plain-role`, {
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
  });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.deepEqual(patched.body.rules[0].verbs, ['get', 'list']);

  for (const name of ['viewer-of-users', 'plain-role']) {
    const del = await s.call('DELETE', `${I}/globalroles/${name}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(del.body, { message: 'success' });
  }
  await eventually('admin', `${I}/globalroles/viewer-of-users`, 404);
  assert.equal((await s.call('DELETE', `${I}/globalroles/viewer-of-users`)).status, 404);
});

test('global roles: users without rights get 403; users-manager cannot grant what it does not hold', async () => {
  const body = { metadata: { name: 'by-rita' }, rules: [] };
  for (const [method, path] of [
    ['GET', `${I}/globalroles`],
    ['GET', `${I}/globalroles/platform-regular`],
    ['POST', `${I}/globalroles`],
    ['PUT', `${I}/globalroles/by-rita`],
    ['PATCH', `${I}/globalroles/by-rita`],
    ['DELETE', `${I}/globalroles/platform-regular`],
  ] as const) {
    const r = await s.call(
      method,
      path,
      method === 'GET' || method === 'DELETE' ? undefined : body,
      tok.rita,
    );
    assert.equal(r.status, 403, `${method} ${path}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.kind, 'Status');
  }

  // uma (users-manager) holds the users templates: she may build a role from them...
  const ok = await s.call(
    'POST',
    `${I}/globalroles`,
    { metadata: { name: 'uma-viewer', annotations: { [AGG]: '["role-template-view-users"]' } } },
    tok.uma,
  );
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  // ...but not one granting everything, nor one made of templates she does not hold, nor widen hers.
  const wide = await s.call(
    'POST',
    `${I}/globalroles`,
    { metadata: { name: 'uma-admin' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
    tok.uma,
  );
  assert.equal(wide.status, 403, JSON.stringify(wide.body));
  assert.match(wide.body.message, /not currently held/);
  const viaTemplate = await s.call(
    'POST',
    `${I}/globalroles`,
    { metadata: { name: 'uma-ws', annotations: { [AGG]: '["role-template-manage-workspaces"]' } } },
    tok.uma,
  );
  assert.equal(viaTemplate.status, 403, JSON.stringify(viaTemplate.body));
  await eventually('uma', `${I}/globalroles/uma-viewer`);
  const widen = await send(
    'PATCH',
    `${I}/globalroles/uma-viewer`,
    {
      metadata: { annotations: { [AGG]: '["role-template-view-users","role-template-manage-workspaces"]' } },
    },
    tok.uma,
    'application/merge-patch+json',
  );
  assert.equal(widen.status, 403, JSON.stringify(widen.body));
  const widenPut = await s.call(
    'PUT',
    `${I}/globalroles/uma-viewer`,
    {
      metadata: { name: 'uma-viewer', annotations: {} },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    },
    tok.uma,
  );
  assert.equal(widenPut.status, 403, JSON.stringify(widenPut.body));
  assert.equal((await s.call('GET', `${I}/globalroles/uma-viewer`, undefined, tok.uma)).body.rules.length, 1);
  assert.equal((await s.call('DELETE', `${I}/globalroles/uma-viewer`, undefined, tok.uma)).status, 200);
});

test('global roles: built-in roles cannot be changed or deleted through the API', async () => {
  const current = (await s.call('GET', `${I}/globalroles/platform-regular`)).body;
  for (const [method, path, body] of [
    ['DELETE', `${I}/globalroles/platform-admin`, undefined],
    ['PUT', `${I}/globalroles/platform-regular`, current],
    ['PATCH', `${I}/globalroles/role-template-view-basic`, { metadata: { labels: { x: 'y' } } }],
  ] as const) {
    const r = await s.call(method, path, body);
    assert.equal(r.status, 403, `${method} ${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.message, /built in/);
  }
  assert.equal((await s.call('GET', `${I}/globalroles/platform-admin`)).status, 200);
});

test('global roles: bad input is a 4xx Status', async () => {
  const cases: [string, string, unknown, number][] = [
    ['POST', `${I}/globalroles`, [], 400],
    ['POST', `${I}/globalroles`, 'text', 400],
    ['POST', `${I}/globalroles`, { metadata: { name: 'Bad_Name' } }, 400],
    ['POST', `${I}/globalroles`, { metadata: 'x' }, 400],
    ['POST', `${I}/globalroles`, { metadata: { name: 'r1' }, rules: {} }, 400],
    ['POST', `${I}/globalroles`, { metadata: { name: 'r1' }, rules: [{ verbs: 'get' }] }, 400],
    ['POST', `${I}/globalroles`, { metadata: { name: 'r1' }, rules: [{ verbs: [1] }] }, 400],
    ['POST', `${I}/globalroles`, { metadata: { name: 'r1' }, rules: [{ verbs: [] }] }, 400],
    [
      'POST',
      `${I}/globalroles`,
      { metadata: { name: 'r1' }, rules: [{ verbs: ['get'], resources: 'pods' }] },
      400,
    ],
    ['POST', `${I}/globalroles`, { metadata: { name: 'r1', labels: { a: 1 } } }, 400],
    ['POST', `${I}/globalroles`, { metadata: { name: 'r1', annotations: { [AGG]: 'not json' } } }, 400],
    [
      'POST',
      `${I}/globalroles`,
      { metadata: { name: 'r1', annotations: { [AGG]: '["no-such-template"]' } } },
      404,
    ],
    ['POST', `${I}/globalroles`, { metadata: { name: 'platform-regular' } }, 409],
    ['PUT', `${I}/globalroles/r1`, { metadata: { name: 'r2' } }, 400],
    ['PUT', `${I}/globalroles/r1`, { metadata: { name: 'r1' } }, 404],
    ['PATCH', `${I}/globalroles/r1`, { metadata: {} }, 404],
    ['PATCH', `${I}/globalroles/r1`, [1], 400],
    ['DELETE', `${I}/globalroles/r1`, undefined, 404],
    ['GET', `${I}/globalroles/r1`, undefined, 404],
    ['GET', `${I}/globalroles?limit=0`, undefined, 400],
  ];
  for (const [method, path, body, status] of cases) {
    const r = await s.call(method, path, body);
    assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.kind, 'Status');
  }
  const notJson = await send('POST', `${I}/globalroles`, '{"metadata":', tok.admin, 'application/json');
  assert.equal(notJson.status, 400);
  const jsonPatch = await send(
    'PATCH',
    `${I}/globalroles/platform-regular`,
    [],
    tok.admin,
    'application/json-patch+json',
  );
  assert.equal(jsonPatch.status, 415);
  assert.equal(jsonPatch.body.kind, 'Status');
});

test('role templates of a user: GET /users/{user}/globalroles and the globalrole user filter', async () => {
  const templates = await eventually('admin', `${I}/users/uma/globalroles`);
  const names = templates.body.map((t: Json) => t.metadata.name);
  assert.ok(
    names.includes('role-template-view-users') && names.includes('role-template-manage-roles'),
    names,
  );
  assert.deepEqual((await s.call('GET', `${I}/users/rita/globalroles`)).body, []);
  const managers = await s.call('GET', `${I}/users?globalrole=users-manager`);
  assert.deepEqual(
    managers.body.items.map((u: Json) => u.metadata.name),
    ['uma'],
  );
  assert.equal(managers.body.items[0].metadata.annotations['iam.kubesphere.io/globalrole'], 'users-manager');
});

test('cluster roles: CRUD with templates; regular users get 403; writers cannot escalate', async () => {
  created(
    await s.kube('POST', `${RBAC}/clusterroles`, {
      metadata: {
        name: 'role-template-view-configmaps',
        labels: { 'iam.kubesphere.io/role-template': 'true' },
      },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    }),
  );
  await eventually('admin', `${I}/clusterroles/role-template-view-configmaps`);
  const c = await s.call(
    'POST',
    `${I}/clusterroles`,
    { metadata: { name: 'cm-viewer', annotations: { [AGG]: '["role-template-view-configmaps"]' } } },
    tok.cole,
  );
  assert.equal(c.status, 200, JSON.stringify(c.body));
  assert.deepEqual(c.body.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
  await eventually('cole', `${I}/clusterroles/cm-viewer`);
  const list = await s.call(
    'GET',
    `${I}/clusterroles?label=iam.kubesphere.io/role-template=true`,
    undefined,
    tok.cole,
  );
  // Beside the built-in cluster role templates of a fresh install (tenancy/role-templates.ts).
  const templates = list.body.items.map((i: Json) => i.metadata.name);
  assert.ok(templates.includes('role-template-view-configmaps'), templates.join());
  assert.ok(!templates.includes('cm-viewer'));
  const agg = await s.call('GET', `${I}/clusterroles?aggregateTo=cm-viewer`, undefined, tok.cole);
  assert.equal(agg.body.totalItems, 1);

  const esc = await s.call(
    'PUT',
    `${I}/clusterroles/cm-viewer`,
    {
      metadata: { name: 'cm-viewer', annotations: {} },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    },
    tok.cole,
  );
  assert.equal(esc.status, 403, JSON.stringify(esc.body));
  assert.match(esc.body.message, /not currently held/);
  const escNew = await s.call(
    'POST',
    `${I}/clusterroles`,
    { metadata: { name: 'everything' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
    tok.cole,
  );
  assert.equal(escNew.status, 403);

  const upd = await s.call('PATCH', `${I}/clusterroles/cm-viewer`, {
    metadata: { annotations: { [AGG]: null } },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  assert.equal(upd.status, 200, JSON.stringify(upd.body));
  assert.deepEqual(upd.body.rules[0].verbs, ['get']);
  assert.equal(upd.body.metadata.annotations?.[AGG], undefined);

  for (const [method, path] of [
    ['GET', `${I}/clusterroles`],
    ['GET', `${I}/clusterroles/cm-viewer`],
    ['DELETE', `${I}/clusterroles/cm-viewer`],
  ] as const) {
    assert.equal((await s.call(method, path, undefined, tok.rita)).status, 403, `${method} ${path}`);
    assert.equal((await s.call(method, path, undefined, tok.uma)).status, 403, `${method} ${path}`);
  }
  assert.equal(
    (await s.call('POST', `${I}/clusterroles`, { metadata: { name: 'x' }, aggregationRule: {} })).status,
    400,
  );
  assert.equal((await s.call('DELETE', `${I}/clusterroles/cm-viewer`, undefined, tok.cole)).status, 200);
  assert.equal((await s.call('DELETE', `${I}/clusterroles/cm-viewer`)).status, 404);
});

test('namespace roles: CRUD in a namespace; namespace admins cannot escalate; others get 403', async () => {
  const NS = `${I}/namespaces/team/roles`;
  const tpl = await s.call(
    'POST',
    NS,
    {
      metadata: { name: 'role-template-view-pods', labels: { 'iam.kubesphere.io/role-template': 'true' } },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    },
    tok.nina,
  );
  assert.equal(tpl.status, 200, JSON.stringify(tpl.body));
  assert.equal(tpl.body.metadata.namespace, 'team');
  await eventually('nina', `${NS}/role-template-view-pods`);
  const viewer = await s.call(
    'POST',
    NS,
    {
      metadata: {
        name: 'viewer',
        namespace: 'elsewhere',
        annotations: { [AGG]: '["role-template-view-pods"]' },
      },
    },
    tok.nina,
  );
  assert.equal(viewer.status, 200, JSON.stringify(viewer.body));
  assert.equal(viewer.body.metadata.namespace, 'team');
  assert.equal(viewer.body.rules.length, 1);
  await eventually('nina', `${NS}/viewer`);
  const list = await s.call('GET', `${NS}?sortBy=name&ascending=true`, undefined, tok.nina);
  assert.deepEqual(
    list.body.items.map((i: Json) => i.metadata.name),
    ['ns-roles-admin', 'role-template-view-pods', 'viewer'],
  );
  assert.deepEqual(
    (await s.call('GET', `${NS}?aggregateTo=viewer`, undefined, tok.nina)).body.items.map(
      (i: Json) => i.metadata.name,
    ),
    ['role-template-view-pods'],
  );

  const secrets = await s.call(
    'POST',
    NS,
    {
      metadata: { name: 'secret-reader' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    },
    tok.nina,
  );
  assert.equal(secrets.status, 403, JSON.stringify(secrets.body));
  // nina's rights stop at her namespace.
  await s.kube('POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
  assert.equal((await s.call('GET', `${I}/namespaces/other/roles`, undefined, tok.nina)).status, 403);
  assert.equal(
    (await s.call('POST', `${I}/namespaces/other/roles`, { metadata: { name: 'x' } }, tok.nina)).status,
    403,
  );
  assert.equal((await s.call('GET', NS, undefined, tok.rita)).status, 403);
  assert.equal((await s.call('GET', `${NS}/viewer`, undefined, tok.uma)).status, 403);

  const put = await s.call(
    'PUT',
    `${NS}/viewer`,
    { metadata: { name: 'viewer', labels: { tier: 'read' } }, rules: [] },
    tok.nina,
  );
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.metadata.labels.tier, 'read');
  assert.equal(put.body.rules.length, 1, 'the annotation still decides the rules');
  assert.equal(
    (await s.call('PUT', `${NS}/viewer`, { metadata: { name: 'viewer', resourceVersion: '1' } })).status,
    409,
  );
  assert.equal((await s.call('GET', `${I}/namespaces/Bad_NS/roles`)).status, 400);
  assert.equal((await s.call('DELETE', `${NS}/viewer`, undefined, tok.nina)).status, 200);
  assert.equal((await s.call('GET', `${NS}/nope`, undefined, tok.nina)).status, 404);
});

test("a user's global role through the iam.kubesphere.io/globalrole annotation, never beyond the caller's", async () => {
  const GR = 'iam.kubesphere.io/globalrole';
  const grbs = async (user: string) =>
    (await s.kube('GET', `${IAM}/globalrolebindings`)).body.items
      .filter((b: Json) => b.subjects?.some((x: Json) => x.name === user))
      .map((b: Json) => b.metadata.name)
      .sort();
  const user = (name: string, role: string, email = `${name}@example.com`) => ({
    metadata: { name, annotations: { [GR]: role, 'kubesphere.io/alias-name': name } },
    spec: { email, password: `${name}-Passw0rd` },
  });

  const gina = await s.call('POST', `${I}/users`, user('gina', 'users-manager'));
  assert.equal(gina.status, 200, JSON.stringify(gina.body));
  assert.equal(gina.body.metadata.annotations[GR], 'users-manager');
  assert.deepEqual(await grbs('gina'), ['gina-users-manager']);
  const stored = (await s.kube('GET', `${IAM}/users/gina`)).body;
  assert.equal(stored.metadata.annotations[GR], undefined, 'the role lives in the binding, not on the user');
  assert.equal(stored.metadata.annotations['kubesphere.io/alias-name'], 'gina');

  // uma (users-manager) may not hand out platform-admin, on create or on update; nothing is written.
  const hank = await s.call('POST', `${I}/users`, user('hank', 'platform-admin'), tok.uma);
  assert.equal(hank.status, 403, JSON.stringify(hank.body));
  assert.equal((await s.kube('GET', `${IAM}/users/hank`)).status, 404);
  await eventually('uma', `${I}/users/gina`);
  const promote = await s.call('PUT', `${I}/users/gina`, user('gina', 'platform-admin'), tok.uma);
  assert.equal(promote.status, 403, JSON.stringify(promote.body));
  // An edit that sends the unchanged role back (as the console does) is no rebinding.
  await until(
    async () => (await s.call('GET', `${I}/users/gina`)).body.metadata?.annotations?.[GR] === 'users-manager',
    'gina is a users-manager in the cache',
  );
  const edit = await s.call(
    'PUT',
    `${I}/users/gina`,
    user('gina', 'users-manager', 'gina@example.org'),
    tok.uma,
  );
  assert.equal(edit.status, 200, JSON.stringify(edit.body));
  assert.equal(edit.body.spec.email, 'gina@example.org');
  assert.deepEqual(await grbs('gina'), ['gina-users-manager']);

  const demote = await s.call('PUT', `${I}/users/gina`, user('gina', 'platform-regular'));
  assert.equal(demote.status, 200, JSON.stringify(demote.body));
  assert.equal(demote.body.metadata.annotations[GR], 'platform-regular');
  assert.deepEqual(await grbs('gina'), ['gina-platform-regular']);

  assert.equal((await s.call('POST', `${I}/users`, user('ivan', 'no-such-role'))).status, 404);
  assert.equal((await s.call('POST', `${I}/users`, user('ivan', 'Bad_Role'))).status, 400);
  assert.equal((await s.kube('GET', `${IAM}/users/ivan`)).status, 404);
  assert.equal(
    (await s.call('POST', `${I}/users`, { metadata: { name: 'ivan', labels: { a: 1 } }, spec: {} })).status,
    400,
  );
});
