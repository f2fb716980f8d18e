// A User's spec.groups are a privilege: nobody gets a `system:` group from a User object (422 on /kapis and on
// forwarded /apis writes of every patch kind, and ignored at authentication for a User written behind kapiserver's
// back), and adding a group needs the rights that group's bindings grant (403 otherwise). A users-manager tries to
// make itself cluster-admin through system:masters, and to join a group that reads secrets; it never can.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { hasKubectl, NO_KUBECTL, runKubectl, writeKubeconfig } from '../helpers/kubectl.ts';
import { createUser, devRest, login } from '../helpers/oauth.ts';

const I = '/kapis/iam.kubesphere.io/v1alpha2';
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const SECRETS = '/api/v1/namespaces/kube-system/secrets';
let s: KapisStack;
let uma = '';
let dir = '';

/** A request to kapiserver as `token` with a chosen content type. */
async function send(method: string, path: string, body: unknown, token: string, type = 'application/json') {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

const created = (r: { status: number; body: unknown }) => assert.equal(r.status, 201, JSON.stringify(r.body));

/** The 422 of a system group: a Status naming spec.groups. */
function assertSystemGroupRefused(r: { status: number; body: Json }, what: string) {
  assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.kind, 'Status', what);
  assert.equal(r.body.reason, 'Invalid', what);
  assert.ok(
    r.body.details.causes.some((c: Json) => c.field === 'spec.groups'),
    `${what}: ${JSON.stringify(r.body)}`,
  );
}

async function storedGroups(name: string): Promise<unknown> {
  return (await s.kube('GET', `${IAM}/users/${name}`)).body.spec.groups;
}

/** uma still cannot read secrets of kube-system (neither through /api nor through kubectl's view of it). */
async function assertUmaCannotReadSecrets() {
  const r = await send('GET', SECRETS, undefined, uma);
  assert.equal(r.status, 403, JSON.stringify(r.body));
  const one = await send('GET', `${SECRETS}/root-credentials`, undefined, uma);
  assert.equal(one.status, 403, JSON.stringify(one.body));
}

before(async () => {
  s = await startKapisStack();
  dir = mkdtempSync(join(tmpdir(), 'kapis-groups-'));
  await createUser(s, 'uma', 'uma-Passw0rd');
  await createUser(s, 'vic', 'vic-Passw0rd');
  uma = (await login(s, 'uma', 'uma-Passw0rd')).access_token;
  created(
    await s.kube('POST', `${IAM}/globalrolebindings`, {
      metadata: { name: 'uma-users-manager' },
      roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'users-manager' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'uma' }],
    }),
  );
  // What every real cluster has: cluster-admin bound to system:masters. kapiserver creates the ClusterRole at start
  // (tenancy/builtins.ts) granting everything, as this test needs.
  const clusterAdmin = await until(async () => {
    const r = await s.kube('GET', `${RBAC}/clusterroles/cluster-admin`);
    return r.status === 200 && r.body;
  }, 'the built-in cluster-admin ClusterRole');
  assert.deepEqual(clusterAdmin.rules, [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ]);
  created(
    await s.kube('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'cluster-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }],
    }),
  );
  // A group of the organisation that may read secrets in kube-system.
  created(
    await s.kube('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'secret-reader' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
    }),
  );
  if ((await s.kube('GET', '/api/v1/namespaces/kube-system')).status === 404) {
    created(await s.kube('POST', '/api/v1/namespaces', { metadata: { name: 'kube-system' } }));
  }
  created(
    await s.kube('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings`, {
      metadata: { name: 'secret-readers', namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'secret-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'secret-readers' }],
    }),
  );
  created(
    await s.kube('POST', SECRETS, {
      metadata: { name: 'root-credentials', namespace: 'kube-system' },
      stringData: { token: 'not-for-uma' },
    }),
  );
  await until(async () => (await s.call('GET', `${I}/users/uma`, undefined, uma)).status === 200, 'uma');
  await until(async () => (await send('GET', SECRETS, undefined, s.token)).status === 200, 'admin reads');
  await assertUmaCannotReadSecrets();
});

after(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('/kapis: a users-manager cannot give itself or a new user a system group (422)', async () => {
  const put = await send(
    'PUT',
    `${I}/users/uma`,
    { metadata: { name: 'uma' }, spec: { email: 'uma@example.com', groups: ['system:masters'] } },
    uma,
  );
  assertSystemGroupRefused(put, 'PUT own user');
  const post = await send(
    'POST',
    `${I}/users`,
    { metadata: { name: 'mole' }, spec: { email: 'mole@example.com', groups: ['devs', 'system:masters'] } },
    uma,
  );
  assertSystemGroupRefused(post, 'POST new user');
  assert.equal((await s.kube('GET', `${IAM}/users/mole`)).status, 404);
  // Not even the platform admin: system groups belong to the platform.
  assertSystemGroupRefused(
    await send(
      'PUT',
      `${I}/users/vic`,
      { metadata: { name: 'vic' }, spec: { groups: ['system:masters'] } },
      s.token,
    ),
    'admin PUT',
  );
  assert.equal(await storedGroups('uma'), undefined);
  await assertUmaCannotReadSecrets();
});

test('/apis: merge patch, JSON patch, apply, update and create of a system group are refused (422)', async () => {
  const me = `${IAM}/users/uma`;
  const attempts: [string, string, unknown, string][] = [
    ['PATCH', me, { spec: { groups: ['system:masters'] } }, 'application/merge-patch+json'],
    [
      'PATCH',
      me,
      [{ op: 'add', path: '/spec/groups', value: ['system:masters'] }],
      'application/json-patch+json',
    ],
    ['PATCH', me, { spec: { groups: ['system:masters'] } }, 'application/strategic-merge-patch+json'],
    [
      'PATCH',
      `${me}?fieldManager=uma&force=true`,
      'apiVersion: iam.kubesphere.io/v1alpha2\nkind: User\nmetadata:\n  name: uma\nspec:\n  groups: ["system:masters"]\n',
      'application/apply-patch+yaml',
    ],
    [
      'POST',
      `${IAM}/users`,
      {
        apiVersion: 'iam.kubesphere.io/v1alpha2',
        kind: 'User',
        metadata: { name: 'mole' },
        spec: { groups: ['system:masters'] },
      },
      'application/json',
    ],
  ];
  for (const [method, path, body, type] of attempts) {
    const r = await send(method, path, body, uma, type);
    // A patch kind the orchestrator does not offer for custom resources is refused by it (415) before any check.
    if (type === 'application/strategic-merge-patch+json' && r.status === 415) continue;
    assertSystemGroupRefused(r, `${method} ${type}`);
  }
  const current = (await send('GET', me, undefined, uma)).body;
  current.spec.groups = ['system:masters'];
  assertSystemGroupRefused(await send('PUT', me, current, uma), 'PUT through /apis');
  assert.equal(await storedGroups('uma'), undefined);
  assert.equal((await s.kube('GET', `${IAM}/users/mole`)).status, 404);
  await assertUmaCannotReadSecrets();
});

test('kubectl patch of a system group is refused', { skip: !hasKubectl && NO_KUBECTL }, async () => {
  const kubeconfig = writeKubeconfig(join(dir, 'uma.kubeconfig'), {
    server: s.secureUrl,
    caPem: s.caPem,
    token: uma,
  });
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  for (const [type, patch] of [
    ['merge', '{"spec":{"groups":["system:masters"]}}'],
    ['json', '[{"op":"add","path":"/spec/groups","value":["system:masters"]}]'],
  ]) {
    const r = await runKubectl(['patch', 'users.iam.kubesphere.io', 'uma', '--type', type, '-p', patch], {
      env,
    });
    assert.notEqual(r.status, 0, r.stdout);
    assert.match(r.stderr, /spec\.groups|system groups/, r.stderr);
  }
  const secrets = await runKubectl(['get', 'secrets', '-n', 'kube-system'], { env });
  assert.notEqual(secrets.status, 0, secrets.stdout);
  assert.match(secrets.stderr, /forbidden/i);
  assert.equal(await storedGroups('uma'), undefined);
});

test('adding a group needs what its bindings grant: 403 for the users-manager, allowed for the admin', async () => {
  const me = `${IAM}/users/uma`;
  const refused = [
    await send(
      'PUT',
      `${I}/users/uma`,
      { metadata: { name: 'uma' }, spec: { groups: ['secret-readers'] } },
      uma,
    ),
    await send(
      'POST',
      `${I}/users`,
      { metadata: { name: 'mole' }, spec: { email: 'mole@example.com', groups: ['secret-readers'] } },
      uma,
    ),
    await send('PATCH', me, { spec: { groups: ['secret-readers'] } }, uma, 'application/merge-patch+json'),
    await send(
      'PATCH',
      me,
      [{ op: 'add', path: '/spec/groups', value: ['secret-readers'] }],
      uma,
      'application/json-patch+json',
    ),
  ];
  for (const r of refused) {
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'Status');
    assert.match(r.body.message, /secret-readers/);
  }
  assert.equal(await storedGroups('uma'), undefined);
  await assertUmaCannotReadSecrets();

  // A group no binding names grants nothing: the users-manager may use it.
  const club = await send(
    'PUT',
    `${I}/users/uma`,
    { metadata: { name: 'uma' }, spec: { groups: ['book-club'] } },
    uma,
  );
  assert.equal(club.status, 200, JSON.stringify(club.body));
  const kept = await send('PATCH', me, { spec: { displayName: 'Uma' } }, uma, 'application/merge-patch+json');
  assert.equal(kept.status, 200, JSON.stringify(kept.body));

  // The admin holds everything the group grants: vic joins, and reads the secrets through the group.
  const vic = await send(
    'PATCH',
    `${IAM}/users/vic`,
    { spec: { groups: ['secret-readers'] } },
    s.token,
    'application/merge-patch+json',
  );
  assert.equal(vic.status, 200, JSON.stringify(vic.body));
  const vicToken = (await login(s, 'vic', 'vic-Passw0rd')).access_token;
  await until(
    async () => (await send('GET', SECRETS, undefined, vicToken)).status === 200,
    'vic reads secrets',
  );
});

test("a system group written behind kapiserver's back confers nothing", async () => {
  await devRest(s).mergePatch(`${IAM}/users/uma`, { spec: { groups: ['system:masters', 'book-club'] } });
  await until(async () => {
    const u = await s.call('GET', `${I}/users/uma`);
    return JSON.stringify(u.body.spec?.groups ?? []).includes('system:masters');
  }, 'the system group to reach the cache');
  await assertUmaCannotReadSecrets();
  const fresh = (await login(s, 'uma', 'uma-Passw0rd')).access_token;
  assert.equal((await send('GET', SECRETS, undefined, fresh)).status, 403);
});
