// Impersonation (`kubectl --as`, `--as-group`, `--as-uid`) with the real kubectl, as kube-apiserver does it: the caller
// needs the `impersonate` verb on every user, group, uid and extra asked for, and the request then really runs as the
// impersonated identity: in authorization, in answers such as `kubectl auth whoami`, in what is forwarded to the
// orchestrator (with authorization.impersonate) and in the audit event (user and impersonatedUser).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { AuditEvent } from '../../src/apiserver/audit/index.ts';
import { type DevCluster, startDevCluster } from '../../src/devcluster/index.ts';
import { type ClientCertCluster, startClientCertCluster } from '../helpers/client-cert-cluster.ts';
import { hasKubectl, NO_KUBECTL, runKubectl, writeKubeconfig } from '../helpers/kubectl.ts';
import { bearer, createUser, devRest, eventually, login } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
let dir: string;
let dev: DevCluster;
let front: ClientCertCluster;
let stack: TestStack;
const kubeconfigs: Record<string, string> = {};
const tokens: Record<string, string> = {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-impersonation-'));
  dev = await startDevCluster({ dataDir: join(dir, 'dev'), port: 0 });
  // A recording hop, to see what kapiserver forwards as whom.
  front = await startClientCertCluster(dev, join(dir, 'front'));
  stack = await startTestStack({
    dev,
    clusterKubeconfigPath: front.kubeconfigPath,
    configDocument: { auditing: { enable: true, logPath: join(dir, 'audit.log') } },
  });
  tokens.admin = (await login(stack)).access_token;
  for (const name of ['mallory', 'bob', 'carol']) {
    const password = `${name[0].toUpperCase()}${name.slice(1)}-passw0rd1`;
    await createUser(stack, name, password);
    tokens[name] = (await login(stack, name, password)).access_token;
  }
  for (const [name, token] of Object.entries(tokens)) {
    kubeconfigs[name] = writeKubeconfig(join(dir, `${name}.kubeconfig`), {
      server: stack.secureUrl,
      caPem: stack.caPem,
      token,
    });
  }
  const rest = devRest(stack);
  // carol may impersonate bob, and only bob; bob may list configmaps in default.
  await rest.create(`${RBAC}/clusterroles`, {
    metadata: { name: 'impersonate-bob' },
    rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['bob'] }],
  });
  await rest.create(`${RBAC}/clusterrolebindings`, {
    metadata: { name: 'carol-impersonates-bob' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-bob' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
  });
  await rest.create(`${RBAC}/namespaces/default/roles`, {
    metadata: { name: 'configmap-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
  });
  await rest.create(`${RBAC}/namespaces/default/rolebindings`, {
    metadata: { name: 'bob-reads-configmaps' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
  });
  await eventually(
    async () =>
      (await fetch(`${stack.url}/api/v1/namespaces/default/configmaps`, { headers: bearer(tokens.bob) }))
        .status === 200,
    15_000,
    'the RBAC objects to reach kapiserver',
  );
});

after(async () => {
  await stack?.close();
  await front?.close();
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

function kubectl(as: string, args: string[]) {
  return runKubectl(['--kubeconfig', kubeconfigs[as], ...args], { timeoutMs: 60_000 });
}

async function whoami(as: string, args: string[]) {
  const r = await kubectl(as, ['auth', 'whoami', '-o', 'json', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { status: { userInfo: { username: string; groups: string[] } } }).status
    .userInfo;
}

const skip = hasKubectl ? false : NO_KUBECTL;

test('a cluster admin may impersonate; the request then runs as the impersonated user', {
  skip,
  timeout: 120_000,
}, async () => {
  assert.deepEqual(await whoami('admin', ['--as=mallory', '--as-group=devs']), {
    username: 'mallory',
    groups: ['devs', 'system:authenticated'],
  });
  assert.equal((await kubectl('admin', ['get', 'pods', '-n', 'kube-system'])).status, 0);
  const asMallory = await kubectl('admin', ['get', 'pods', '-n', 'kube-system', '--as=mallory']);
  assert.notEqual(asMallory.status, 0);
  assert.match(
    asMallory.stderr,
    /Error from server \(Forbidden\): pods is forbidden: User "mallory" cannot list resource "pods" in API group "" in the namespace "kube-system"/,
  );
});

test('a regular user may not impersonate: 403 naming what was refused', {
  skip,
  timeout: 120_000,
}, async () => {
  const r = await kubectl('mallory', ['get', 'pods', '-n', 'kube-system', '--as=admin']);
  assert.notEqual(r.status, 0);
  assert.match(
    r.stderr,
    /Error from server \(Forbidden\): users "admin" is forbidden: User "mallory" cannot impersonate resource "users" in API group "" at the cluster scope/,
  );
  // kubectl auth whoami hides the server's message; a plain request shows it.
  const group = await kubectl('mallory', ['get', 'configmaps', '--as=mallory', '--as-group=system:masters']);
  assert.notEqual(group.status, 0);
  assert.match(group.stderr, /User "mallory" cannot impersonate resource "users"/);
});

test('every part is checked: carol may impersonate bob, but not his groups, uid, extras or anyone else', {
  skip,
  timeout: 120_000,
}, async () => {
  assert.deepEqual(await whoami('carol', ['--as=bob']), {
    username: 'bob',
    groups: ['system:authenticated'],
  });
  const cases: [string[], RegExp][] = [
    [['--as=mallory'], /users "mallory" is forbidden: User "carol" cannot impersonate resource "users"/],
    [
      ['--as=bob', '--as-group=system:masters'],
      /groups "system:masters" is forbidden: User "carol" cannot impersonate resource "groups" in API group "" at the cluster scope/,
    ],
    [
      ['--as=bob', '--as-uid=42'],
      /uids.authentication.k8s.io "42" is forbidden: User "carol" cannot impersonate resource "uids" in API group "authentication.k8s.io"/,
    ],
  ];
  for (const [flags, message] of cases) {
    const r = await kubectl('carol', ['get', 'configmaps', '-n', 'default', ...flags]);
    assert.notEqual(r.status, 0, flags.join(' '));
    assert.match(r.stderr, message);
  }
  const extra = await fetch(`${stack.url}/api/v1/namespaces/default/configmaps`, {
    headers: { ...bearer(tokens.carol), 'Impersonate-User': 'bob', 'Impersonate-Extra-Scopes': 'all' },
  });
  assert.equal(extra.status, 403);
  assert.equal(
    ((await extra.json()) as { message: string }).message,
    'userextras.authentication.k8s.io "all" is forbidden: User "carol" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
  );
});

test('groups, uid or extras without a user are a 400 Status', async () => {
  for (const header of ['Impersonate-Group', 'Impersonate-Uid', 'Impersonate-Extra-Scopes']) {
    const r = await fetch(`${stack.url}/api/v1/namespaces/default/configmaps`, {
      headers: { ...bearer(tokens.admin), [header]: 'x' },
    });
    assert.equal(r.status, 400, `${header}: ${await r.clone().text()}`);
    const status = (await r.json()) as { kind: string; reason: string };
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'BadRequest');
  }
  // Two Impersonate-User header lines (fetch would join them into one value): ambiguous, so refused.
  const two = await new Promise<string>((resolve, reject) => {
    const socket = connect(stack.api.port, '127.0.0.1', () => {
      socket.end(
        [
          'GET /api/v1/namespaces/default/configmaps HTTP/1.1',
          'Host: kapiserver',
          `Authorization: Bearer ${tokens.admin}`,
          'Impersonate-User: bob',
          'Impersonate-User: mallory',
          'Connection: close',
          '',
          '',
        ].join('\r\n'),
      );
    });
    let text = '';
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(two, /^HTTP\/1.1 400 /);
  assert.match(two, /only one Impersonate-User header is allowed/);
});

test('the impersonated user is what is forwarded (authorization.impersonate) and what the audit names', {
  skip,
  timeout: 120_000,
}, async () => {
  const config = stack.api.context.config.current();
  config.authorization.impersonate = true;
  try {
    const since = front.seen.length;
    const r = await kubectl('carol', [
      'get',
      'configmaps',
      '-n',
      'default',
      '--as=bob',
      '-l',
      'marker=as-bob',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const seen = front.seen.slice(since).find((s) => s.url.includes('marker%3Das-bob'));
    assert.ok(seen, JSON.stringify(front.seen.slice(since).map((s) => s.url)));
    assert.equal(seen.headers['impersonate-user'], 'bob');
    assert.equal(seen.headers['impersonate-group'], 'system:authenticated');
  } finally {
    config.authorization.impersonate = false;
  }
  await stack.api.context.audit?.close();
  const events = readFileSync(join(dir, 'audit.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.requestURI.includes('marker%3Das-bob'));
  assert.equal(events.length, 1, JSON.stringify(events));
  assert.equal(events[0].user.username, 'carol');
  assert.equal(events[0].impersonatedUser?.username, 'bob');
  assert.deepEqual(events[0].impersonatedUser?.groups, ['system:authenticated']);
  assert.equal(events[0].responseStatus.code, 200);
});

test("an impersonated request never mints the impersonated user's kubeconfig credential", async () => {
  const path = '/kapis/resources.kubesphere.io/v1alpha2/users/bob/kubeconfig';
  const asBob = await fetch(`${stack.url}${path}`, {
    headers: { ...bearer(tokens.carol), 'Impersonate-User': 'bob' },
  });
  assert.equal(asBob.status, 200);
  const text = await asBob.text();
  assert.ok(!text.includes(tokens.carol), "carol's token is not in bob's kubeconfig");
  assert.doesNotMatch(text, /token:/, 'no credential at all');
  const own = await (await fetch(`${stack.url}${path}`, { headers: bearer(tokens.bob) })).text();
  assert.match(own, /token: /, "bob's own kubeconfig carries a credential");
  assert.ok(!own.includes(tokens.bob), 'of its own, not his access token');
});
