// The kubeconfig download's own credential: a `kubeconfig` token (a year, revocable), not the caller's 2-hour access
// token, and the same one on every download (one record in the token store) until it is revoked. The real kubectl
// uses the downloaded file with exactly the user's rights; a password change and RFC 7009 revocation end it (the next
// download then brings a new one), a logout does not (it ends sessions); it is never a refresh token and never signs
// in. Another user's kubeconfig carries a working credential only for a caller who may also impersonate that user;
// `get users/kubeconfig` alone gives one without credentials.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { parse } from 'yaml';
import { kubeconfigRecordsInFile } from '../helpers/kubeconfig-records.ts';
import { hasKubectl, type Kubectl, kubectlWith, NO_KUBECTL } from '../helpers/kubectl.ts';
import { bearer, createUser, devRest, eventually, login, postToken, TEST_CLIENT } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const skip = !hasKubectl && NO_KUBECTL;
const KUBECONFIG = '/kapis/resources.kubesphere.io/v1alpha2/users';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const APP = { id: 'webapp', secret: 'webapp-s3cret', callback: 'https://app.example.com/callback' };
const PASSWORDS = { alice: 'Al1ce-passw0rd', bob: 'B0b-passw0rd-1' };
let stack: TestStack;
/** Every line kapiserver logs (debug and up), and every kubeconfig token handed out: none may appear in them. */
const logLines: string[] = [];
const handedOut = new Set<string>();

interface Kubeconfig {
  users: { user: { token?: string } }[];
}

async function kubeconfigOf(user: string, token: string): Promise<{ token?: string; kubectl: Kubectl }> {
  const res = await fetch(`${stack.url}${KUBECONFIG}/${user}/kubeconfig`, { headers: bearer(token) });
  assert.equal(res.status, 200, await res.clone().text());
  const text = await res.text();
  const credential = (parse(text) as Kubeconfig).users[0].user.token;
  if (credential) handedOut.add(credential);
  return { token: credential, kubectl: kubectlWith(text) };
}

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

const UNAUTHORIZED = /Unauthorized|must be logged in/;

/** kubectl's identity (`auth whoami`), or its error. */
async function whoami(kubectl: Kubectl): Promise<string> {
  const r = await kubectl.run(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  return r.status === 0 ? r.stdout : r.stderr;
}

before(async () => {
  if (skip) return;
  stack = await startTestStack({
    logger: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }),
    configDocument: {
      authentication: {
        oauthOptions: {
          clients: [
            { name: TEST_CLIENT.id, secret: TEST_CLIENT.secret, redirectURIs: [] },
            { name: APP.id, secret: APP.secret, redirectURIs: [APP.callback] },
          ],
        },
      },
    },
  });
  for (const [name, password] of Object.entries(PASSWORDS)) await createUser(stack, name, password);
  const rest = devRest(stack);
  await rest.create('/api/v1/namespaces', { metadata: { name: 'team-a' } });
  await rest.create(`${RBAC}/namespaces/team-a/roles`, {
    metadata: { name: 'pod-reader', namespace: 'team-a' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
  });
  await rest.create(`${RBAC}/namespaces/team-a/rolebindings`, {
    metadata: { name: 'alice-reads', namespace: 'team-a' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
  });
  // bob may read anyone's kubeconfig (KubeSphere's `get users/kubeconfig`), nothing more.
  await rest.create(`${IAM}/globalroles`, {
    metadata: { name: 'kubeconfig-reader' },
    rules: [{ apiGroups: ['resources.kubesphere.io'], resources: ['users/kubeconfig'], verbs: ['get'] }],
  });
  await rest.create(`${IAM}/globalrolebindings`, {
    metadata: { name: 'bob-kubeconfig-reader' },
    roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'kubeconfig-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
  });
});

after(async () => {
  await stack?.close();
});

test("the own kubeconfig carries a kubeconfig token, not the caller's access token; kubectl works with the user's rights", {
  skip,
}, async () => {
  const session = await login(stack, 'alice', PASSWORDS.alice);
  const { token, kubectl } = await kubeconfigOf('alice', session.access_token);
  assert.ok(token && token !== session.access_token && token !== session.refresh_token);
  const claims = claimsOf(token);
  const access = claimsOf(session.access_token);
  assert.equal(claims.token_type, 'kubeconfig');
  assert.equal(claims.username, 'alice');
  assert.ok((claims.exp as number) - (claims.iat as number) >= 364 * 24 * 3600, 'about a year');
  assert.ok((claims.exp as number) > (access.exp as number) + 24 * 3600, 'outlives the access token');

  const pods = await eventually(
    async () => {
      const r = await kubectl.run(['get', 'pods', '-n', 'team-a']);
      return r.status === 0 && r;
    },
    20_000,
    'role binding',
  );
  assert.equal(pods.status, 0);
  const ns = await kubectl.run(['get', 'namespaces']);
  assert.notEqual(ns.status, 0);
  assert.match(ns.stderr, /User "alice" cannot list resource "namespaces"/);
  assert.equal(await whoami(kubectl), 'alice');

  // The admin's works for the admin's rights.
  const admin = await kubeconfigOf('admin', (await login(stack)).access_token);
  const all = await admin.kubectl.run(['get', 'namespaces', '-o', 'name']);
  assert.equal(all.status, 0, all.stderr);
  assert.match(all.stdout, /namespace\/team-a/);
  // Every download gives the same credential, so the first file keeps working and nothing piles up.
  const again = await kubeconfigOf('alice', session.access_token);
  assert.equal(again.token, token);
  assert.equal(await whoami(again.kubectl), 'alice');
  assert.equal(await whoami(kubectl), 'alice');
  for (let i = 0; i < 50; i++) assert.equal((await kubeconfigOf('alice', session.access_token)).token, token);
  assert.equal(kubeconfigRecordsInFile(join(stack.dataDir, 'oauth', 'tokens.db'), 'alice'), 1);
});

test('a kubeconfig token is no refresh token, and RFC 7009 revocation ends it', { skip }, async () => {
  const session = await login(stack, 'alice', PASSWORDS.alice);
  const { token, kubectl } = await kubeconfigOf('alice', session.access_token);
  const refresh = await postToken(stack.url, {
    grant_type: 'refresh_token',
    refresh_token: token ?? '',
    client_id: TEST_CLIENT.id,
    client_secret: TEST_CLIENT.secret,
  });
  assert.equal(refresh.status, 400);
  assert.equal(refresh.body.error, 'invalid_grant');
  assert.equal(await whoami(kubectl), 'alice');
  const revoked = await fetch(`${stack.url}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token: token ?? '',
      client_id: TEST_CLIENT.id,
      client_secret: TEST_CLIENT.secret,
    }).toString(),
  });
  assert.equal(revoked.status, 200);
  assert.match(await whoami(kubectl), UNAUTHORIZED);
  assert.equal((await fetch(`${stack.url}/oauth/userinfo`, { headers: bearer(session) })).status, 200);
  // The next download brings a new credential; the revoked one is never handed out again.
  const next = await kubeconfigOf('alice', session.access_token);
  assert.ok(next.token && next.token !== token);
  assert.equal(await whoami(next.kubectl), 'alice');
  assert.match(await whoami(kubectl), UNAUTHORIZED);
  assert.equal((await kubeconfigOf('alice', session.access_token)).token, next.token);
  assert.equal(kubeconfigRecordsInFile(join(stack.dataDir, 'oauth', 'tokens.db'), 'alice'), 1);
});

test("logout ends sessions, not the kubeconfig's credential; a password change ends it", {
  skip,
}, async () => {
  const first = await kubeconfigOf('alice', (await login(stack, 'alice', PASSWORDS.alice)).access_token);
  assert.equal(await whoami(first.kubectl), 'alice');
  const session = await login(stack, 'alice', PASSWORDS.alice);
  const logout = await fetch(`${stack.url}/oauth/logout`, { headers: bearer(session) });
  assert.equal(logout.status, 200);
  // As KubeSphere's kubeconfig certificate: signing out of the console leaves kubectl working.
  assert.equal((await fetch(`${stack.url}/oauth/userinfo`, { headers: bearer(session) })).status, 401);
  assert.equal(await whoami(first.kubectl), 'alice');

  // A password change straight through the cluster (kubectl edit user): the credential generation moves on.
  const newPassword = 'N3w-passw0rd-al';
  await devRest(stack).mergePatch(`${IAM}/users/alice`, { spec: { password: newPassword } });
  await eventually(
    async () => UNAUTHORIZED.test(await whoami(first.kubectl)),
    20_000,
    'password change seen',
  );
  // A new download (once the new password is hashed and signs in) brings a working credential; the old stays dead.
  const session2 = await eventually(
    async () => {
      const r = await postToken(stack.url, {
        grant_type: 'password',
        username: 'alice',
        password: newPassword,
        client_id: TEST_CLIENT.id,
        client_secret: TEST_CLIENT.secret,
      });
      return r.status === 200 && (r.body.access_token as string);
    },
    20_000,
    'new password accepted',
  );
  const second = await kubeconfigOf('alice', session2);
  assert.ok(second.token && second.token !== first.token);
  assert.equal(await whoami(second.kubectl), 'alice');
  assert.match(await whoami(first.kubectl), UNAUTHORIZED);
  assert.equal(kubeconfigRecordsInFile(join(stack.dataDir, 'oauth', 'tokens.db'), 'alice'), 1);
});

test('a kubeconfig credential acts through the API but never signs in to an OAuth client', {
  skip,
}, async () => {
  const session = await login(stack, 'bob', PASSWORDS.bob);
  const { token } = await kubeconfigOf('bob', session.access_token);
  const authorize = new URL(`${stack.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: APP.id,
    redirect_uri: APP.callback,
    state: 'st',
  }))
    authorize.searchParams.set(k, v);
  const res = await fetch(authorize, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
  assert.equal(res.status, 302, await res.clone().text());
  const location = new URL(res.headers.get('location') ?? '');
  assert.equal(location.searchParams.get('error'), 'access_denied');
  assert.equal(location.searchParams.get('code'), null);
  // The same request with the session's access token gets its code.
  const ok = await fetch(authorize, { headers: bearer(session), redirect: 'manual' });
  assert.ok(new URL(ok.headers.get('location') ?? '').searchParams.get('code'));
});

test("another user's kubeconfig: without credentials for `get users/kubeconfig` alone, working with `impersonate` on that user", {
  skip,
}, async () => {
  const bobToken = (await login(stack, 'bob', PASSWORDS.bob)).access_token;
  const readOnly = await eventually(
    async () => {
      const res = await fetch(`${stack.url}${KUBECONFIG}/admin/kubeconfig`, { headers: bearer(bobToken) });
      return res.status === 200 && res.text();
    },
    20_000,
    'global role binding',
  );
  assert.deepEqual((parse(readOnly) as Kubeconfig).users[0].user, {}, 'no credential for a reader');

  const rest = devRest(stack);
  await rest.create(`${RBAC}/clusterroles`, {
    metadata: { name: 'impersonate-alice' },
    rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice'] }],
  });
  await rest.create(`${RBAC}/clusterrolebindings`, {
    metadata: { name: 'bob-impersonates-alice' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-alice' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
  });
  const alices = await eventually(
    async () => {
      const kc = await kubeconfigOf('alice', bobToken);
      return kc.token !== undefined && kc;
    },
    20_000,
    'impersonation binding',
  );
  assert.equal(claimsOf(alices.token ?? '').username, 'alice');
  assert.equal(await whoami(alices.kubectl), 'alice');
  // Still none for the admin, whom bob may not impersonate.
  assert.equal((await kubeconfigOf('admin', bobToken)).token, undefined);
});

test('no kubeconfig token handed out appears in the log', { skip }, () => {
  assert.ok(handedOut.size >= 4 && logLines.length > 0);
  const log = logLines.join('');
  for (const token of handedOut) assert.ok(!log.includes(token.split('.')[2]), 'a token signature is logged');
});
