// Impersonation in the dev cluster with the real kubectl (`--as`, `--as-group`, `--as-uid`): the caller needs the
// `impersonate` verb on each part, and the request then runs as the impersonated identity under RBAC.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

if (!hasKubectl) console.log(`# skipping dev cluster impersonation tests: ${NO_KUBECTL}`);

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

describe('impersonation in the dev cluster', { skip: !hasKubectl && NO_KUBECTL, timeout: 180_000 }, () => {
  let dev: TestDevCluster;
  let admin: Kubectl;
  let robot: Kubectl;
  let robotToken: string;

  const grant = async (name: string, rules: unknown[], subject: Record<string, string>) => {
    const role = await devRequest(dev, 'POST', `${RBAC}/clusterroles`, { metadata: { name }, rules });
    assert.equal(role.status, 201, role.text);
    const binding = await devRequest(dev, 'POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [subject],
    });
    assert.equal(binding.status, 201, binding.text);
  };

  before(async () => {
    dev = await startTestDevCluster();
    admin = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
    assert.equal((await admin.run(['create', 'serviceaccount', 'robot'])).status, 0);
    const token = await admin.run(['create', 'token', 'robot']);
    assert.equal(token.status, 0, token.stderr);
    robotToken = token.stdout.trim();
    robot = kubectlFor({ server: dev.url, caPem: dev.caPem, token: robotToken });
  });
  after(() => dev?.close());

  it('the administrator may act as anyone: whoami names the impersonated user, groups, uid and extra', async () => {
    const r = await admin.run([
      'auth',
      'whoami',
      '-o',
      'json',
      '--as',
      'alice',
      '--as-group',
      'devs',
      '--as-group',
      'ops',
      '--as-uid',
      'u-1',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const info = JSON.parse(r.stdout).status.userInfo;
    assert.equal(info.username, 'alice');
    assert.deepEqual(info.groups, ['devs', 'ops', 'system:authenticated']);
    assert.equal(info.uid, 'u-1');
    const plain = await admin.run(['auth', 'whoami', '-o', 'json']);
    assert.equal(JSON.parse(plain.stdout).status.userInfo.username, 'kubernetes-admin');
  });

  it('the impersonated user gets what RBAC grants it, no more', async () => {
    const refused = await admin.run(['get', 'pods', '-n', 'default', '--as', 'alice']);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /User "alice" cannot list resource "pods"/);
    assert.match((await admin.run(['auth', 'can-i', 'list', 'pods', '--as', 'alice'])).stdout, /^no/);
    await grant('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }], {
      kind: 'User',
      apiGroup: 'rbac.authorization.k8s.io',
      name: 'alice',
    });
    const allowed = await admin.run(['get', 'pods', '-n', 'default', '--as', 'alice']);
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.match((await admin.run(['auth', 'can-i', 'list', 'pods', '--as', 'alice'])).stdout, /^yes/);
    assert.match((await admin.run(['auth', 'can-i', 'delete', 'pods', '--as', 'alice'])).stdout, /^no/);
    // A group grants through impersonation as through authentication.
    const masters = await admin.run(['get', 'secrets', '-A', '--as', 'bob', '--as-group', 'system:masters']);
    assert.equal(masters.status, 0, masters.stderr);
  });

  it('a caller without the impersonate verb is refused (403), per part asked for', async () => {
    const asRobot = (user: string, group?: string) =>
      devRequest({ ...dev, token: robotToken }, 'GET', '/api/v1/namespaces/default/pods', undefined, {
        'Impersonate-User': user,
        ...(group ? { 'Impersonate-Group': group } : {}),
      });
    const r = await robot.run(['get', 'pods', '--as', 'alice']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /Forbidden/);
    const refused = await asRobot('alice');
    assert.equal(refused.status, 403);
    assert.equal(
      (refused.body as { message: string }).message,
      'users "alice" is forbidden: User "system:serviceaccount:default:robot" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    await grant(
      'impersonate-alice',
      [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice'] }],
      {
        kind: 'ServiceAccount',
        name: 'robot',
        namespace: 'default',
      },
    );
    const ok = await robot.run(['get', 'pods', '-n', 'default', '--as', 'alice']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal((await asRobot('alice')).status, 200);
    assert.equal((await asRobot('carol')).status, 403);
    const group = await asRobot('alice', 'system:masters');
    assert.equal(group.status, 403);
    assert.match((group.body as { message: string }).message, /^groups "system:masters" is forbidden/);
  });

  it('groups without a user are a 400; impersonating a service account needs serviceaccounts', async () => {
    const r = await devRequest(dev, 'GET', '/api/v1/namespaces', undefined, { 'Impersonate-Group': 'devs' });
    assert.equal(r.status, 400);
    assert.equal((r.body as { reason: string }).reason, 'BadRequest');
    const sa = await devRequest({ ...dev, token: robotToken }, 'GET', '/api/v1/pods', undefined, {
      'Impersonate-User': 'system:serviceaccount:kube-system:default',
    });
    assert.equal(sa.status, 403);
    assert.match(
      (sa.body as { message: string }).message,
      /^serviceaccounts "default" is forbidden: .* in the namespace "kube-system"$/,
    );
    const asSa = await admin.run([
      'auth',
      'whoami',
      '-o',
      'json',
      '--as',
      'system:serviceaccount:kube-system:default',
    ]);
    assert.deepEqual(JSON.parse(asSa.stdout).status.userInfo.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:kube-system',
      'system:authenticated',
    ]);
  });
});
