// The real kubectl through kapiserver's HTTPS port with KubeSphere tokens, using the kubeconfig kapiserver serves at
// /kapis/resources.kubesphere.io/v1alpha2/users/{user}/kubeconfig (its own credential): the admin does the everyday verbs (get, describe,
// apply twice, delete, a watch that streams); a regular user is refused cluster-scoped reads with 403 and may do
// what a RoleBinding in one namespace grants, nothing more; no token is a 401; `auth can-i`/`whoami` describe the
// caller, not kapiserver's service account.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { hasKubectl, type Kubectl, kubectlWith } from '../helpers/kubectl.ts';
import { bearer, createUser, devRest, eventually, login } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

let stack: TestStack;
let admin: Kubectl;
let alice: Kubectl;
const KUBECONFIG = '/kapis/resources.kubesphere.io/v1alpha2/users';

async function kubeconfigOf(user: string, token: string): Promise<string> {
  const res = await fetch(`${stack.url}${KUBECONFIG}/${user}/kubeconfig`, { headers: bearer(token) });
  assert.equal(res.status, 200, await res.clone().text());
  return res.text();
}

before(async () => {
  if (!hasKubectl) return;
  stack = await startTestStack();
  const adminToken = (await login(stack)).access_token;
  admin = kubectlWith(await kubeconfigOf('admin', adminToken));

  await createUser(stack, 'alice', 'Al1ce-passw0rd');
  const rest = devRest(stack);
  await rest.create('/api/v1/namespaces', { metadata: { name: 'team-a' } });
  await rest.create('/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles', {
    metadata: { name: 'developer', namespace: 'team-a' },
    rules: [
      {
        apiGroups: [''],
        resources: ['pods', 'configmaps'],
        verbs: ['get', 'list', 'watch', 'create', 'delete', 'patch'],
      },
    ],
  });
  await rest.create('/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings', {
    metadata: { name: 'alice-developer', namespace: 'team-a' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'developer' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
  });
  const aliceToken = (await login(stack, 'alice', 'Al1ce-passw0rd')).access_token;
  alice = kubectlWith(await kubeconfigOf('alice', aliceToken));
  // The binding reaches kapiserver's RBAC cache through its watch.
  await eventually(
    async () => (await alice.run(['get', 'configmaps', '-n', 'team-a'])).status === 0,
    20_000,
    'binding',
  );
});

after(async () => {
  await stack?.close();
});

test("the served kubeconfig points at the HTTPS port with the CA and a credential of the caller's own", {
  skip: !hasKubectl && 'kubectl is not installed',
}, async () => {
  const token = (await login(stack)).access_token;
  const kc = parse(await kubeconfigOf('admin', token)) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { token?: string } }[];
  };
  assert.equal(kc.clusters[0].cluster.server, stack.secureUrl);
  assert.equal(
    Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
    stack.caPem,
  );
  // Its own long-lived kubeconfig token (test/e2e/kubeconfig-credential.test.ts), not the access token.
  const own = kc.users[0].user.token ?? '';
  assert.notEqual(own, token);
  assert.equal(JSON.parse(Buffer.from(own.split('.')[1], 'base64url').toString()).username, 'admin');
  // alice may not fetch admin's kubeconfig.
  const aliceToken = (await login(stack, 'alice', 'Al1ce-passw0rd')).access_token;
  const res = await fetch(`${stack.url}${KUBECONFIG}/admin/kubeconfig`, { headers: bearer(aliceToken) });
  assert.equal(res.status, 403);
  assert.match(
    ((await res.json()) as { message: string }).message,
    /User "alice" cannot get resource "users\/kubeconfig"/,
  );
});

test('admin: get, describe, apply (create then patch), delete', {
  skip: !hasKubectl && 'kubectl is not installed',
  timeout: 120_000,
}, async () => {
  const nodes = await admin.run(['get', 'nodes']);
  assert.equal(nodes.status, 0, nodes.stderr);
  assert.match(nodes.stdout, /node1/);
  const describe = await admin.run(['describe', 'node', 'node1']);
  assert.equal(describe.status, 0, describe.stderr);
  assert.match(describe.stdout, /Name:\s+node1/);
  const manifest = (value: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: through\n  namespace: default\ndata:\n  key: "${value}"\n`;
  const first = await admin.run(['apply', '-f', '-'], manifest('one'));
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, /configmap\/through created/);
  const second = await admin.run(['apply', '-f', '-'], manifest('two'));
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /configmap\/through configured/);
  const got = await admin.run(['get', 'configmap', 'through', '-o', 'jsonpath={.data.key}']);
  assert.equal(got.stdout, 'two');
  const del = await admin.run(['delete', 'configmap', 'through']);
  assert.equal(del.status, 0, del.stderr);
  const gone = await admin.run(['get', 'configmap', 'through']);
  assert.notEqual(gone.status, 0);
  assert.match(gone.stderr, /NotFound/);
});

test('admin: a watch streams events as they happen', {
  skip: !hasKubectl && 'kubectl is not installed',
  timeout: 120_000,
}, async () => {
  const w = admin.start(['get', 'configmaps', '-n', 'default', '--watch', '-o', 'name']);
  try {
    // kubectl lists, then watches from the list's resourceVersion: objects created meanwhile are never missed.
    await new Promise((r) => setTimeout(r, 1500));
    for (const name of ['watched-1', 'watched-2']) {
      const c = await admin.run(['create', 'configmap', name, '-n', 'default']);
      assert.equal(c.status, 0, c.stderr);
      await eventually(
        async () => w.output().includes(`configmap/${name}`),
        30_000,
        `watch event for ${name}`,
      );
    }
    await admin.run(['delete', 'configmap', 'watched-1', '-n', 'default']);
    await eventually(
      // `-o name` prints the object of every event: the deletion is the second line naming watched-1.
      async () =>
        w
          .output()
          .split('\n')
          .filter((l) => l === 'configmap/watched-1').length >= 2,
      30_000,
      `DELETED event (watch printed: ${JSON.stringify(w.output().slice(-400))})`,
    );
  } finally {
    w.stop();
  }
});

test('regular user: cluster-scoped reads are 403, the RoleBinding grants its namespace only', {
  skip: !hasKubectl && 'kubectl is not installed',
  timeout: 120_000,
}, async () => {
  const nodes = await alice.run(['get', 'nodes']);
  assert.notEqual(nodes.status, 0);
  assert.match(
    nodes.stderr,
    /Error from server \(Forbidden\): nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope/,
  );
  const ns = await alice.run(['get', 'namespaces']);
  assert.match(ns.stderr, /Forbidden/);
  const other = await alice.run(['get', 'pods', '-n', 'default']);
  assert.match(
    other.stderr,
    /pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"/,
  );
  const secrets = await alice.run(['get', 'secrets', '-n', 'team-a']);
  assert.match(secrets.stderr, /Forbidden/);

  const create = await alice.run(['create', 'configmap', 'mine', '-n', 'team-a', '--from-literal=a=b']);
  assert.equal(create.status, 0, create.stderr);
  const list = await alice.run(['get', 'configmaps', '-n', 'team-a']);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, /mine/);
  const del = await alice.run(['delete', 'configmap', 'mine', '-n', 'team-a']);
  assert.equal(del.status, 0, del.stderr);

  // kubectl auth can-i / whoami are answered for alice, not for kapiserver's service account.
  const can = await alice.run(['auth', 'can-i', 'create', 'configmaps', '-n', 'team-a']);
  assert.equal(can.stdout.trim(), 'yes', can.stderr);
  const cannot = await alice.run(['auth', 'can-i', 'list', 'nodes']);
  assert.equal(cannot.stdout.trim(), 'no', cannot.stderr);
  const who = await alice.run(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  assert.equal(who.stdout.trim(), 'alice', who.stderr);
});

test('no token is a 401 (both ports); a bad token is a 401 for kubectl', {
  skip: !hasKubectl && 'kubectl is not installed',
  timeout: 60_000,
}, async () => {
  // kubectl itself cannot be pointed at a server without credentials (it prompts for a username), so plain HTTP here.
  for (const path of [
    '/api/v1/pods',
    '/apis/apps/v1/deployments',
    '/api/v1/namespaces/default/pods/x/exec',
  ]) {
    const res = await fetch(`${stack.url}${path}`);
    assert.equal(res.status, 401, path);
    const body = (await res.json()) as { kind: string; code: number };
    assert.equal(body.kind, 'Status');
    assert.equal(body.code, 401);
  }
  const kc = parse(await kubeconfigOf('admin', (await login(stack)).access_token)) as {
    users: { user: Record<string, string> }[];
  };
  kc.users[0].user = { token: 'not-a-token' };
  const bad = await kubectlWith(JSON.stringify(kc)).run(['get', 'pods']);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /You must be logged in to the server|Unauthorized/);
});
