// Signing in through an LDAP identity provider end to end: kapiserver on the dev cluster, a real OpenLDAP
// (test/helpers/slapd.ts), POST /oauth/login/{idp} as the console sends it. The User is created on first login with
// KubeSphere's mapping labels and the directory's groups (never a system: one); a lookup provider creates nobody;
// the directory down is 503; the provider's secrets never reach configs/oauth.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, devRest, eventually } from '../helpers/oauth.ts';
import {
  LDAP_MANAGER,
  LDAP_USERS,
  ldapProvider,
  slapdUnavailableReason,
  startSlapd,
  type TestSlapd,
} from '../helpers/slapd.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const skip = slapdUnavailableReason();
if (skip) console.log(`# ${skip}`);

const USERS = '/apis/iam.kubesphere.io/v1alpha2/users';

interface User {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { email?: string; groups?: string[]; password?: string };
}

async function postLogin(stack: TestStack, idp: string, form: Record<string, string>) {
  const res = await fetch(`${stack.url}/oauth/login/${idp}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe('LDAP identity provider through kapiserver', { skip }, () => {
  let slapd: TestSlapd;
  let stack: TestStack;
  before(async () => {
    slapd = await startSlapd();
    stack = await startTestStack({
      configDocument: {
        authentication: {
          oauthOptions: {
            identityProviders: [
              ldapProvider('ldap', slapd, 'auto'),
              ldapProvider('ldap-lookup', slapd, 'lookup'),
              ldapProvider('ldap-down', slapd, 'auto', { host: '127.0.0.1:1' }),
            ],
          },
        },
      },
    });
  });
  after(async () => {
    await stack?.close();
    await slapd?.stop();
  });

  it('creates the mapped user on first login, with mail and groups, and its token works', async () => {
    const r = await postLogin(stack, 'ldap', { username: 'alice', password: LDAP_USERS.alice.password });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.token_type, 'Bearer');
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const rest = devRest(stack);
    const user = await rest.get<User>(`${USERS}/alice`);
    assert.equal(user.metadata.labels?.['iam.kubesphere.io/identify-provider'], 'ldap');
    assert.equal(user.metadata.labels?.['iam.kubesphere.io/origin-uid'], 'alice');
    assert.equal(user.spec?.email, LDAP_USERS.alice.mail);
    assert.deepEqual(user.spec?.groups, ['developers', 'operators']); // system:masters from LDAP is dropped
    assert.equal(user.spec?.password, undefined);
    const info = await fetch(`${stack.url}/oauth/userinfo`, { headers: bearer(String(r.body.access_token)) });
    assert.equal(info.status, 200);
    assert.equal(((await info.json()) as { preferred_username: string }).preferred_username, 'alice');
    // KubeSphere's login record of the sign-in: type Token, naming the provider.
    const records = await eventually(async () => {
      const list = await rest.get<{ items: { spec: Record<string, unknown> }[] }>(
        '/apis/iam.kubesphere.io/v1alpha2/loginrecords?labelSelector=iam.kubesphere.io/user-ref=alice',
      );
      return list.items.length > 0 && list.items;
    });
    assert.equal(records[0].spec.type, 'Token');
    assert.equal(records[0].spec.provider, 'ldap');
    assert.equal(records[0].spec.success, true);
    // A second login maps to the same user.
    const again = await postLogin(stack, 'ldap', { username: 'alice', password: LDAP_USERS.alice.password });
    assert.equal(again.status, 200);
    const users = await rest.get<{ items: User[] }>(
      `${USERS}?labelSelector=iam.kubesphere.io/origin-uid=alice`,
    );
    assert.equal(users.items.length, 1);
  });

  it('refuses a wrong password, a filter-fragment login and an unknown provider, storing nothing', async () => {
    const wrong = await postLogin(stack, 'ldap', { username: 'bob', password: 'not-bobs' });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.body, { error: 'invalid_grant', error_description: 'incorrect password' });
    const injected = await postLogin(stack, 'ldap', { username: 'al*', password: LDAP_USERS.alice.password });
    assert.equal(injected.status, 400);
    const unknown = await postLogin(stack, 'nope', { username: 'bob', password: LDAP_USERS.bob.password });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'invalid_request');
    const rest = devRest(stack);
    await assert.rejects(rest.get(`${USERS}/bob`), /not found/i);
  });

  it('lookup signs in only users already mapped', async () => {
    const r = await postLogin(stack, 'ldap-lookup', {
      username: 'carol',
      password: LDAP_USERS.carol.password,
    });
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'invalid_grant');
    await assert.rejects(devRest(stack).get(`${USERS}/carol`), /not found/i);
  });

  it('answers 503 with Retry-After when the directory is down or hangs', async () => {
    const down = await postLogin(stack, 'ldap-down', { username: 'bob', password: LDAP_USERS.bob.password });
    assert.equal(down.status, 503);
    assert.equal(down.body.error, 'temporarily_unavailable');
    assert.ok(down.headers.get('retry-after'));
    slapd.pause();
    try {
      const hung = await postLogin(stack, 'ldap', { username: 'bob', password: LDAP_USERS.bob.password });
      assert.equal(hung.status, 503);
    } finally {
      slapd.resume();
    }
  });

  it('never shows the manager password in configs/oauth', async () => {
    const res = await fetch(`${stack.url}/kapis/config.kubesphere.io/v1alpha2/configs/oauth`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /LDAPIdentityProvider/);
    assert.doesNotMatch(text, new RegExp(LDAP_MANAGER.password));
  });
});
