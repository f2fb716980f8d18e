// Machine clients with the real kubectl: a token from `kubectl create token` (the dev cluster's TokenRequest) is
// presented to kapiserver's HTTPS port with `kubectl --token`; kapiserver checks it with the cluster's TokenReview
// and its own RBAC decides: the account lists pods where a RoleBinding grants it and is refused elsewhere; `auth
// whoami` names the account; a garbage token is refused as unauthorized.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';
import { devRest, eventually } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const skip = !hasKubectl && NO_KUBECTL;
let stack: TestStack;
let cluster: Kubectl;
const through = (token: string) => kubectlFor({ server: stack.secureUrl, caPem: stack.caPem, token });

before(async () => {
  if (skip) return;
  stack = await startTestStack();
  cluster = kubectlFor({ server: stack.dev.url, caPem: stack.dev.caPem, token: stack.dev.token });
  for (const args of [
    ['create', 'namespace', 'ci'],
    ['create', 'serviceaccount', 'deployer', '-n', 'ci'],
    ['create', 'role', 'pod-reader', '-n', 'ci', '--verb=get,list', '--resource=pods'],
    [
      'create',
      'rolebinding',
      'deployer-reads',
      '-n',
      'ci',
      '--role=pod-reader',
      '--serviceaccount=ci:deployer',
    ],
  ]) {
    const r = await cluster.run(args);
    assert.equal(r.status, 0, r.stderr);
  }
  await devRest(stack).create('/api/v1/namespaces/ci/pods', {
    metadata: { name: 'web' },
    spec: { containers: [{ name: 'web', image: 'nginx' }] },
  });
});

after(async () => {
  await stack?.close();
});

test('kubectl --token <service-account token> through kapiserver: allowed and forbidden per RBAC', {
  skip,
}, async () => {
  const created = await cluster.run(['create', 'token', 'deployer', '-n', 'ci']);
  assert.equal(created.status, 0, created.stderr);
  const deployer = through(created.stdout.trim());
  // The binding reaches kapiserver's RBAC cache through its watch.
  const listed = await eventually(
    async () => {
      const r = await deployer.run(['get', 'pods', '-n', 'ci', '-o', 'name']);
      return r.status === 0 && r;
    },
    20_000,
    'role binding',
  );
  assert.equal(listed.stdout.trim(), 'pod/web');

  const elsewhere = await deployer.run(['get', 'pods', '-n', 'default']);
  assert.notEqual(elsewhere.status, 0);
  assert.match(
    elsewhere.stderr,
    /forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "pods"/,
  );
  const write = await deployer.run(['delete', 'pod', 'web', '-n', 'ci']);
  assert.notEqual(write.status, 0);
  assert.match(write.stderr, /forbidden/);

  const whoami = await deployer.run(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  assert.equal(whoami.status, 0, whoami.stderr);
  assert.equal(whoami.stdout, 'system:serviceaccount:ci:deployer');
});

test('a garbage token through kapiserver is unauthorized', { skip }, async () => {
  const r = await through('not-a-token').run(['get', 'pods', '-n', 'ci']);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /Unauthorized|must be logged in/);
});
