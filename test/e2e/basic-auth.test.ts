// HTTP Basic credentials on API calls, as a Go client (kubesphere.io/client-go, KubeSphere's e2e framework) sends
// them: `Authorization: Basic` on every call, no token. Real HTTP against a real kapiserver on the dev cluster; the
// users, login records and role bindings are read and written in the dev cluster itself.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import type { Json } from '../apiserver/kapis/helpers.ts';
import { hasKubectl, NO_KUBECTL, runKubectl } from '../helpers/kubectl.ts';
import { bearer, createUser, devRest, eventually, login } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const MAX_TRIES = 3;
const USERS = '/apis/iam.kubesphere.io/v1alpha2/users';
const IAM = '/kapis/iam.kubesphere.io/v1alpha2';
const NAMESPACES_KAPI = '/kapis/resources.kubesphere.io/v1alpha3/namespaces';

let stack: TestStack;
let adminToken: string;
let tmp: string;

before(async () => {
  stack = await startTestStack({
    configDocument: {
      authentication: { authenticateRateLimiterMaxTries: MAX_TRIES, authenticateRateLimiterDuration: '10m' },
    },
  });
  adminToken = (await login(stack)).access_token;
  tmp = mkdtempSync(join(tmpdir(), 'basic-auth-'));
});
after(async () => {
  await stack?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const basicOf = (userAndPassword: string | Buffer) =>
  `Basic ${Buffer.from(userAndPassword).toString('base64')}`;

/** One call as a Go-style client: the Authorization header as given, nothing else. */
async function call(path: string, authorization: string, method = 'GET', body?: unknown) {
  const res = await request(`${stack.url}${path}`, {
    method: method as 'GET',
    headers: {
      authorization,
      'user-agent': 'basic-auth-test/1.0',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Json };
}

const asUser = (path: string, user: string, password: string) => call(path, basicOf(`${user}:${password}`));
const asAdmin = (path: string, method = 'GET', body?: unknown) =>
  call(path, bearer(adminToken).authorization, method, body);

function assertUnauthorized(r: { status: number; body: Json }, message: string | RegExp) {
  assert.equal(r.status, 401, JSON.stringify(r.body));
  assert.equal(r.body.kind, 'Status');
  assert.equal(r.body.reason, 'Unauthorized');
  if (typeof message === 'string') assert.equal(r.body.message, message);
  else assert.match(r.body.message, message);
}

test('Basic works on /api and /kapis for admin, by name and by e-mail', async () => {
  const ns = await asUser('/api/v1/namespaces', 'admin', stack.adminPassword);
  assert.equal(ns.status, 200, JSON.stringify(ns.body));
  assert.equal(ns.body.kind, 'NamespaceList');
  const kapi = await asUser(NAMESPACES_KAPI, 'admin', stack.adminPassword);
  assert.equal(kapi.status, 200, JSON.stringify(kapi.body));
  assert.ok(Array.isArray(kapi.body.items) && kapi.body.totalItems > 0);
  // The scheme name is case-insensitive.
  const lower = await call(
    '/api/v1/namespaces',
    `basic ${Buffer.from(`admin:${stack.adminPassword}`).toString('base64')}`,
  );
  assert.equal(lower.status, 200);

  await createUser(stack, 'basic-alice', 'Passw0rd-alice');
  const byName = await asUser('/oauth/userinfo', 'basic-alice', 'Passw0rd-alice');
  assert.equal(byName.status, 200, JSON.stringify(byName.body));
  assert.equal(byName.body.sub, 'basic-alice');
  const byEmail = await asUser('/oauth/userinfo', 'Basic-Alice@example.com', 'Passw0rd-alice');
  assert.equal(byEmail.status, 200, JSON.stringify(byEmail.body));
  assert.equal(byEmail.body.sub, 'basic-alice');
  // KubeSphere's stand-in header for clients that cannot set Authorization.
  const standIn = await request(`${stack.url}/oauth/userinfo`, {
    headers: { 'x-kubesphere-authorization': basicOf('basic-alice:Passw0rd-alice') },
  });
  assert.equal(standIn.statusCode, 200);
  assert.equal(((await standIn.body.json()) as Json).sub, 'basic-alice');
  // A user without rights is authenticated, then refused by authorization (the 403 names the user).
  const denied = await asUser('/api/v1/namespaces', 'basic-alice', 'Passw0rd-alice');
  assert.equal(denied.status, 403);
  assert.match(denied.body.message, /basic-alice/);
});

test('groups come from the User, never a system: one', async () => {
  const rest = devRest(stack);
  await rest.create('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'basic-pod-reader' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
  });
  await rest.create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'basic-readers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'basic-pod-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'basic-readers' }],
  });
  await createUser(stack, 'basic-grouped', 'Passw0rd-grouped', { spec: { groups: ['basic-readers'] } });
  const pods = () => asUser('/api/v1/namespaces/default/pods', 'basic-grouped', 'Passw0rd-grouped');
  await eventually(async () => (await pods()).status === 200, 15_000, 'the group binding to apply');
  // Written behind kapiserver's back: the User now names system:masters instead. Group changes apply to the next
  // call (the cached credential carries no groups); system:masters is never taken from a User.
  await rest.mergePatch(`${USERS}/basic-grouped`, { spec: { groups: ['system:masters'] } });
  await eventually(async () => (await pods()).status === 403, 15_000, 'the group change to apply');
  const namespaces = await asUser('/api/v1/namespaces', 'basic-grouped', 'Passw0rd-grouped');
  assert.equal(namespaces.status, 403, 'system:masters from a User object confers nothing');
});

test('a wrong password is 401 and recorded as a LoginRecord of type Password', async () => {
  await createUser(stack, 'basic-bob', 'Passw0rd-bob');
  const wrong = await asUser('/api/v1/namespaces', 'basic-bob', 'not-his-password');
  assertUnauthorized(wrong, 'Unauthorized: incorrect password');
  assert.match(String(wrong.headers['www-authenticate']), /^Bearer /);
  const record = await eventually(
    async () => {
      const list = await devRest(stack).list<Json>(
        '/apis/iam.kubesphere.io/v1alpha2/loginrecords?labelSelector=iam.kubesphere.io%2Fuser-ref%3Dbasic-bob',
      );
      return list.items.find((r) => r.spec.type === 'Password');
    },
    10_000,
    'a Password login record',
  );
  assert.equal(record.spec.success, false);
  assert.equal(record.spec.reason, 'incorrect password');
  assert.equal(record.spec.provider, '');
  assert.equal(record.spec.userAgent, 'basic-auth-test/1.0');
  assert.equal(record.spec.sourceIP, '127.0.0.1');
  // Successful Basic calls record nothing (they come with every request).
  for (let i = 0; i < 3; i++)
    assert.equal((await asUser('/oauth/userinfo', 'basic-bob', 'Passw0rd-bob')).status, 200);
  await new Promise((r) => setTimeout(r, 500));
  const all = await devRest(stack).list<Json>(
    '/apis/iam.kubesphere.io/v1alpha2/loginrecords?labelSelector=iam.kubesphere.io%2Fuser-ref%3Dbasic-bob',
  );
  // (the one Token record is createUser's password-grant login)
  assert.deepEqual(all.items.map((r: Json) => `${r.spec.type} ${r.spec.success}`).sort(), [
    'Password false',
    'Token true',
  ]);
  // Unknown users: the same answer.
  assertUnauthorized(
    await asUser('/api/v1/namespaces', 'basic-nobody', 'whatever-1'),
    'Unauthorized: incorrect password',
  );
});

test('repeated failures lock the user: then 401 auth rate limit exceeded, even with the right password', async () => {
  await createUser(stack, 'basic-carol', 'Passw0rd-carol');
  // Verified once: the cached credential must not outlive the lockout.
  assert.equal((await asUser('/oauth/userinfo', 'basic-carol', 'Passw0rd-carol')).status, 200);
  for (let i = 0; i < MAX_TRIES - 1; i++) {
    assertUnauthorized(
      await asUser('/oauth/userinfo', 'basic-carol', `guess-${i}`),
      'Unauthorized: incorrect password',
    );
  }
  assertUnauthorized(
    await asUser('/oauth/userinfo', 'basic-carol', 'last-guess'),
    /^Unauthorized: (incorrect password|auth rate limit exceeded)$/,
  );
  assertUnauthorized(
    await asUser('/oauth/userinfo', 'basic-carol', 'Passw0rd-carol'),
    'Unauthorized: auth rate limit exceeded',
  );
  const user = await eventually(async () => {
    const u = await devRest(stack).get<Json>(`${USERS}/basic-carol`);
    return u.status?.state === 'AuthLimitExceeded' ? u : undefined;
  });
  assert.equal(user.status.state, 'AuthLimitExceeded');
  // The password grant agrees (KubeSphere answers it with 429).
  await assert.rejects(login(stack, 'basic-carol', 'Passw0rd-carol'), /429/);
});

test('cache: a password change refuses the old password at once; the new one works', async () => {
  await createUser(stack, 'basic-dave', 'Passw0rd-dave-1');
  for (let i = 0; i < 3; i++) {
    assert.equal((await asUser('/oauth/userinfo', 'basic-dave', 'Passw0rd-dave-1')).status, 200);
  }
  const changed = await asAdmin(`${IAM}/users/basic-dave/password`, 'PUT', { password: 'Passw0rd-dave-2' });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assertUnauthorized(
    await asUser('/oauth/userinfo', 'basic-dave', 'Passw0rd-dave-1'),
    'Unauthorized: incorrect password',
  );
  const fresh = await eventually(async () => {
    const r = await asUser('/oauth/userinfo', 'basic-dave', 'Passw0rd-dave-2');
    return r.status === 200 ? r : undefined;
  });
  assert.equal(fresh.body.sub, 'basic-dave');
  assertUnauthorized(
    await asUser('/oauth/userinfo', 'basic-dave', 'Passw0rd-dave-1'),
    'Unauthorized: incorrect password',
  );
});

test('cache: a password written straight to the cluster ends the old one once kapiserver sees it', async () => {
  await createUser(stack, 'basic-frank', 'Passw0rd-frank-1');
  assert.equal((await asUser('/oauth/userinfo', 'basic-frank', 'Passw0rd-frank-1')).status, 200);
  // As `kubectl edit user` on the cluster would: plaintext, hashed by kapiserver's controller.
  const rest = devRest(stack);
  await rest.mergePatch(`${USERS}/basic-frank`, { spec: { password: 'Passw0rd-frank-2' } });
  // Logins before kapiserver has the hash would count as failures (3 lock the user): wait for the controller's hash
  // on the cluster, then for kapiserver's cache to hold that version, through a credential-free read.
  const hashedVersion = await eventually(
    async () => {
      const u = await rest.get<{ spec: { password?: string }; metadata: { resourceVersion: string } }>(
        `${USERS}/basic-frank`,
      );
      return u.spec.password?.startsWith('$2') ? Number(u.metadata.resourceVersion) : undefined;
    },
    30_000,
    'the controller to hash the new password',
  );
  await eventually(
    async () => {
      const seen = await asAdmin(`${IAM}/users/basic-frank`);
      const rv = Number((seen.body as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion);
      return rv >= hashedVersion;
    },
    30_000,
    'kapiserver to see the hashed password',
  );
  assert.equal((await asUser('/oauth/userinfo', 'basic-frank', 'Passw0rd-frank-2')).status, 200);
  assertUnauthorized(
    await asUser('/oauth/userinfo', 'basic-frank', 'Passw0rd-frank-1'),
    'Unauthorized: incorrect password',
  );
});

test('cache: disabling the user refuses the cached credential at once', async () => {
  await createUser(stack, 'basic-erin', 'Passw0rd-erin');
  for (let i = 0; i < 3; i++) {
    assert.equal((await asUser('/oauth/userinfo', 'basic-erin', 'Passw0rd-erin')).status, 200);
  }
  const disabled = await asAdmin(`${IAM}/users/basic-erin`, 'PUT', {
    metadata: { name: 'basic-erin' },
    spec: { email: 'basic-erin@example.com' },
    status: { state: 'Disabled' },
  });
  assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
  assertUnauthorized(
    await asUser('/oauth/userinfo', 'basic-erin', 'Passw0rd-erin'),
    'Unauthorized: account is not active',
  );
});

test('kubectl with a kubeconfig user holding username and password', async (t) => {
  if (!hasKubectl) return t.skip(NO_KUBECTL);
  const ca = Buffer.from(stack.caPem).toString('base64');
  const kubeconfig = join(tmp, 'basic.kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: t, cluster: {server: "${stack.secureUrl}", certificate-authority-data: ${ca}}}]`,
      `users: [{name: t, user: {username: admin, password: "${stack.adminPassword}"}}]`,
      'contexts: [{name: t, context: {cluster: t, user: t}}]',
      'current-context: t',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const r = await runKubectl(['--kubeconfig', kubeconfig, 'get', 'namespaces', '-o', 'name'], {
    timeoutMs: 60_000,
  });
  if (r.status !== 0 && /unknown field "(username|password)"/.test(r.stderr)) {
    return t.skip(`this kubectl no longer reads username/password from a kubeconfig: ${r.stderr.trim()}`);
  }
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /namespace\/default/);
});

test('bad Basic credentials: 401 Status naming the problem, never 5xx', async () => {
  await createUser(stack, 'basic-gina', 'Passw0rd-gina');
  const cases: [string, string | RegExp][] = [
    [basicOf('basic-gina:'), 'Unauthorized: Basic credentials: empty password'],
    [basicOf(':Passw0rd-gina'), 'Unauthorized: Basic credentials: empty user name'],
    [basicOf('basic-gina'), 'Unauthorized: Basic credentials: no ":" between user name and password'],
    ['Basic not*base64!', 'Unauthorized: Basic credentials: not valid base64'],
    ['Basic YWJjZA', 'Unauthorized: Basic credentials: not valid base64'], // unpadded
    ['Basic ', 'Unauthorized: Basic credentials: missing after "Basic"'],
    [
      basicOf(Buffer.from([0x62, 0xff, 0x3a, 0x70, 0x77])),
      'Unauthorized: Basic credentials: not valid UTF-8',
    ],
    [
      basicOf('basic-gina:extra:Passw0rd-gina'),
      'Unauthorized: incorrect password (Basic credentials are split at the first ":", so a user name cannot contain one)',
    ],
    [
      'Digest username="admin"',
      'Unauthorized: the Authorization header must be "Bearer <token>" or "Basic <credentials>"',
    ],
  ];
  for (const [authorization, message] of cases) {
    const r = await call('/api/v1/namespaces', authorization);
    assert.ok(r.status < 500, `${authorization}: ${r.status}`);
    assertUnauthorized(r, message);
  }
  // A password containing a colon is a password like any other.
  await createUser(stack, 'basic-colon', 'Pass:w0rd:colon');
  assert.equal((await asUser('/oauth/userinfo', 'basic-colon', 'Pass:w0rd:colon')).status, 200);
});
