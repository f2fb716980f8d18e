// The authorizer's workspace scope end to end (dev cluster + kapiserver, real tokens, kubectl as a user would run it):
// a WorkspaceRole and its WorkspaceRoleBinding, written with kubectl by the admin, let their user list pods in the
// namespaces labelled with that workspace and nowhere else (not another workspace's, not an unlabelled one); a
// binding in one workspace to another workspace's role grants nothing; removing the binding ends the access.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Json, type KapisStack, startKapisStack, until } from '../apiserver/kapis/helpers.ts';
import { hasKubectl, NO_KUBECTL, runKubectl, writeKubeconfig } from '../helpers/kubectl.ts';
import { login } from '../helpers/oauth.ts';

const T2 = '/kapis/tenant.kubesphere.io/v1alpha2';
const WS_LABEL = 'kubesphere.io/workspace';
const dir = mkdtempSync(join(tmpdir(), 'authz-ws-'));
let s: KapisStack;
let admin: (...args: string[]) => ReturnType<typeof runKubectl>;
let wendy: (...args: string[]) => ReturnType<typeof runKubectl>;

const ok = (r: { status: number; body: Json }, status = 200) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
};

function kubectlAs(name: string, token: string) {
  const kubeconfig = writeKubeconfig(join(dir, `${name}.kubeconfig`), {
    server: s.secureUrl,
    caPem: s.caPem,
    token,
  });
  return (...args: string[]) => runKubectl(['--kubeconfig', kubeconfig, ...args]);
}

const applyAsAdmin = async (yaml: string) => {
  const r = await runKubectl(['--kubeconfig', join(dir, 'admin.kubeconfig'), 'apply', '-f', '-'], {
    input: yaml,
  });
  assert.equal(r.status, 0, r.stderr);
};

/** What wendy's `kubectl get pods -n NS` answers: 'allowed' or 'forbidden' (anything else fails the test). */
async function podsIn(namespace: string): Promise<'allowed' | 'forbidden'> {
  const r = await wendy('get', 'pods', '-n', namespace);
  if (r.status === 0) return 'allowed';
  assert.match(r.stderr, /Forbidden|forbidden/, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(`User "wendy" cannot list resource "pods" in API group "" in the namespace "${namespace}"`),
  );
  return 'forbidden';
}

before(async () => {
  s = await startKapisStack();
  admin = kubectlAs('admin', s.token);
  ok(
    await s.call('POST', '/kapis/iam.kubesphere.io/v1alpha2/users', {
      metadata: { name: 'wendy' },
      spec: { email: 'wendy@example.com', password: 'Wendy-Passw0rd' },
    }),
  );
  const token = await until(
    () =>
      login(s, 'wendy', 'Wendy-Passw0rd').then(
        (t) => t.access_token,
        () => undefined,
      ),
    'login as wendy',
  );
  wendy = kubectlAs('wendy', token);
  for (const ws of ['ws-a', 'ws-b']) {
    ok(
      await s.call('POST', `${T2}/workspaces`, { metadata: { name: ws }, spec: { template: { spec: {} } } }),
    );
  }
});

after(async () => {
  await s?.close();
});

test("a WorkspaceRoleBinding grants in its workspace's namespaces only", {
  skip: !hasKubectl && NO_KUBECTL,
}, async () => {
  await applyAsAdmin(`
apiVersion: v1
kind: Namespace
metadata: {name: ns-a, labels: {${WS_LABEL}: ws-a}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns-b, labels: {${WS_LABEL}: ws-b}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns-free}
---
apiVersion: iam.kubesphere.io/v1alpha2
kind: WorkspaceRole
metadata: {name: ws-a-pod-reader, labels: {${WS_LABEL}: ws-a}}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: iam.kubesphere.io/v1alpha2
kind: WorkspaceRoleBinding
metadata: {name: wendy-ws-a-pod-reader, labels: {${WS_LABEL}: ws-a}}
roleRef: {apiGroup: iam.kubesphere.io, kind: WorkspaceRole, name: ws-a-pod-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: wendy}]
---
# In ws-b, a binding to ws-a's role: the role is not ws-b's, so it grants nothing there.
apiVersion: iam.kubesphere.io/v1alpha2
kind: WorkspaceRoleBinding
metadata: {name: wendy-foreign-role, labels: {${WS_LABEL}: ws-b}}
roleRef: {apiGroup: iam.kubesphere.io, kind: WorkspaceRole, name: ws-a-pod-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: wendy}]
`);
  await until(async () => (await podsIn('ns-a')) === 'allowed', 'wendy lists pods in ns-a');
  assert.equal(await podsIn('ns-b'), 'forbidden');
  assert.equal(await podsIn('ns-free'), 'forbidden');
  assert.equal(await podsIn('kube-system'), 'forbidden');
  const all = await wendy('get', 'pods', '-A');
  assert.notEqual(all.status, 0, 'not across every namespace');
  // The role grants pods only: not the namespace's secrets.
  const secrets = await wendy('get', 'secrets', '-n', 'ns-a');
  assert.notEqual(secrets.status, 0);

  // Relabelling ns-b into ws-a brings it into the binding's reach; removing the binding ends it.
  const label = await admin('label', 'namespace', 'ns-b', `${WS_LABEL}=ws-a`, '--overwrite');
  assert.equal(label.status, 0, label.stderr);
  await until(async () => (await podsIn('ns-b')) === 'allowed', 'ns-b in ws-a');
  const del = await admin('delete', 'workspacerolebinding', 'wendy-ws-a-pod-reader');
  assert.equal(del.status, 0, del.stderr);
  await until(async () => (await podsIn('ns-a')) === 'forbidden', 'the binding removed');
});
