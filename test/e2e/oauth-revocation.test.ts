// A credential change ends the user's sessions at once: a password change (self-service or by an admin, through
// /kapis or straight through /apis with kubectl), a disable and a deletion refuse the user's access and refresh tokens
// on the very next request; a user recreated under the same name does not inherit the old tokens. A self-service
// change keeps the caller's own token only when it asks for it (?keepToken=true).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hasKubectl, kubectlOk, NO_KUBECTL, writeKubeconfig } from '../helpers/kubectl.ts';
import {
  bearer,
  createUser,
  devRest,
  eventually,
  login,
  postToken,
  TEST_CLIENT,
  type TokenResponse,
} from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const USERS = '/apis/iam.kubesphere.io/v1alpha2/users';
const KAPIS_USERS = '/kapis/iam.kubesphere.io/v1alpha2/users';
let stack: TestStack;
let admin: TokenResponse;
let dir: string;

before(async () => {
  stack = await startTestStack();
  admin = await login(stack);
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-revoke-'));
});
after(async () => {
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const uniq = (p: string) => `${p}-${randomBytes(3).toString('hex')}`;
const whoami = (t: string | TokenResponse) => fetch(`${stack.url}/oauth/userinfo`, { headers: bearer(t) });
const refresh = (t: TokenResponse) =>
  postToken(stack.url, {
    grant_type: 'refresh_token',
    refresh_token: t.refresh_token,
    client_id: TEST_CLIENT.id,
    client_secret: TEST_CLIENT.secret,
  });
const kapis = (method: string, path: string, token: string | TokenResponse, body?: unknown) =>
  fetch(`${stack.url}${KAPIS_USERS}${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A user with two sessions (two logins), both working. */
async function userWithSessions(prefix: string, password: string) {
  const name = uniq(prefix);
  await createUser(stack, name, password);
  const one = await login(stack, name, password);
  const two = await login(stack, name, password);
  assert.equal((await whoami(one)).status, 200);
  return { name, one, two };
}

/** The very next request with each access token is refused, and so is each refresh token. */
async function assertAllRefused(what: string, ...sessions: TokenResponse[]) {
  for (const s of sessions) {
    const r = await whoami(s);
    assert.equal(r.status, 401, `${what}: access token`);
    assert.equal((await r.json()).kind, 'Status');
  }
  for (const s of sessions) {
    const r = await refresh(s);
    assert.equal(r.status, 400, `${what}: refresh token`);
    assert.equal(r.body.error, 'invalid_grant', `${what}: refresh token`);
  }
}

function kubectlAsAdmin(): string {
  return writeKubeconfig(join(dir, `admin-${randomBytes(3).toString('hex')}`), {
    server: stack.secureUrl,
    caPem: stack.caPem,
    token: admin.access_token,
  });
}

test('a self-service password change revokes every session of the user, the current one included', async () => {
  const { name, one, two } = await userWithSessions('self', 'Passw0rd-self');
  const r = await kapis('PUT', `/${name}/password`, one, {
    currentPassword: 'Passw0rd-self',
    password: 'Passw0rd-self-2',
  });
  assert.equal(r.status, 200, await r.text());
  await assertAllRefused('self-service change', one, two);
  assert.equal((await whoami(await login(stack, name, 'Passw0rd-self-2'))).status, 200);
});

test('a self-service change with ?keepToken=true keeps the caller token only; its refresh token ends', async () => {
  const { name, one, two } = await userWithSessions('keep', 'Passw0rd-keep');
  const r = await kapis('PUT', `/${name}/password?keepToken=true`, one, {
    currentPassword: 'Passw0rd-keep',
    password: 'Passw0rd-keep-2',
  });
  assert.equal(r.status, 200, await r.text());
  assert.equal((await whoami(one)).status, 200, 'the caller token is kept');
  assert.equal((await whoami(two)).status, 401, 'the other session ends');
  // Still kept once every cache has the new password (the kept token is re-admitted for the new credentials), and
  // the other session's refresh token, now outdated, does not count as a stolen one being reused.
  await eventually(async () => (await postToken(stack.url, pwForm(name, 'Passw0rd-keep-2'))).status === 200);
  await assertAllRefused('the other session', two);
  const still = await whoami(one);
  assert.equal(still.status, 200, `the caller token is still kept: ${await still.text()}`);
  assert.equal((await refresh(one)).status, 400, 'the kept token has no refresh token');
  assert.equal((await whoami(one)).status, 200, 'the kept token is still kept');
  // A logout still ends it.
  assert.equal((await fetch(`${stack.url}/oauth/logout`, { headers: bearer(one) })).status, 200);
  assert.equal((await whoami(one)).status, 401);
});

test('?keepToken=true on an admin changing someone else keeps nothing of that user', async () => {
  const { name, one } = await userWithSessions('keepadm', 'Passw0rd-ka');
  const r = await kapis('PUT', `/${name}/password?keepToken=true`, admin, { password: 'Passw0rd-ka-2' });
  assert.equal(r.status, 200, await r.text());
  await assertAllRefused('admin change', one);
  assert.equal((await whoami(admin)).status, 200, "the admin's own token is untouched");
});

test('an admin password change through /kapis revokes the user at once', async () => {
  const { name, one, two } = await userWithSessions('adm', 'Passw0rd-adm');
  const r = await kapis('PUT', `/${name}/password`, admin, { password: 'Passw0rd-adm-2' });
  assert.equal(r.status, 200, await r.text());
  await assertAllRefused('admin change', one, two);
});

test('disable and delete through /kapis revoke the user at once', async () => {
  const off = await userWithSessions('off', 'Passw0rd-off');
  const current = await (await kapis('GET', `/${off.name}`, admin)).json();
  const r = await kapis('PUT', `/${off.name}`, admin, { ...current, status: { state: 'Disabled' } });
  assert.equal(r.status, 200, await r.text());
  await assertAllRefused('disabled', off.one, off.two);

  const gone = await userWithSessions('gone', 'Passw0rd-gone');
  assert.equal((await kapis('DELETE', `/${gone.name}`, admin)).status, 200);
  await assertAllRefused('deleted', gone.one, gone.two);
});

test('kubectl straight through /apis: a password change, a disable and a delete revoke the user', {
  skip: !hasKubectl && NO_KUBECTL,
}, async () => {
  const kubeconfig = kubectlAsAdmin();
  const kubectl = (...args: string[]) => kubectlOk(['--kubeconfig', kubeconfig, ...args]);

  const pw = await userWithSessions('kpw', 'Passw0rd-kpw');
  await kubectl(
    'patch',
    'users.iam.kubesphere.io',
    pw.name,
    '--type=merge',
    '-p',
    '{"spec":{"password":"Passw0rd-kpw-2"}}',
  );
  await assertAllRefused('kubectl password change', pw.one, pw.two);

  // A ready-made bcrypt hash (KubeSphere keeps it as is, and no annotation records the change).
  const hashed = await userWithSessions('khash', 'Passw0rd-khash');
  const other = await devRest(stack).get<{ spec: { password: string } }>(`${USERS}/${pw.name}`);
  await kubectl(
    'patch',
    'users.iam.kubesphere.io',
    hashed.name,
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { password: other.spec.password } }),
  );
  await assertAllRefused('kubectl hash change', hashed.one, hashed.two);

  const off = await userWithSessions('koff', 'Passw0rd-koff');
  await kubectl(
    'patch',
    'users.iam.kubesphere.io',
    off.name,
    '--type=merge',
    '-p',
    '{"status":{"state":"Disabled"}}',
  );
  await assertAllRefused('kubectl disable', off.one, off.two);

  const gone = await userWithSessions('kdel', 'Passw0rd-kdel');
  await kubectl('delete', 'users.iam.kubesphere.io', gone.name);
  await assertAllRefused('kubectl delete', gone.one, gone.two);
});

test('a user deleted and recreated under the same name does not inherit the old tokens', async () => {
  const { name, one, two } = await userWithSessions('again', 'Passw0rd-again');
  await devRest(stack).delete(`${USERS}/${name}`);
  await eventually(async () => (await whoami(one)).status === 401, 15_000, 'the deletion to be seen');
  // Recreated with the very same password: only the uid tells the two users apart.
  await createUser(stack, name, 'Passw0rd-again');
  await assertAllRefused('recreated user', one, two);
  assert.equal((await whoami(await login(stack, name, 'Passw0rd-again'))).status, 200);
});

function pwForm(username: string, password: string) {
  return {
    grant_type: 'password',
    username,
    password,
    client_id: TEST_CLIENT.id,
    client_secret: TEST_CLIENT.secret,
  };
}
