// The LDAP provider against a real OpenLDAP server (test/helpers/slapd.ts): bind and search, filter escaping, mail
// and groups, LDAPS and StartTLS with the CA, and bounded failures when the directory is down or hangs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAuthError } from '../../../../src/apiserver/oauth/errors.ts';
import { escapeFilterValue, LdapIdentityProvider } from '../../../../src/apiserver/oauth/idp/ldap.ts';
import { parseProviders } from '../../../../src/apiserver/oauth/idp/settings.ts';
import {
  LDAP_BASE,
  LDAP_MANAGER,
  LDAP_SYSTEM_GROUP,
  LDAP_USERS,
  slapdUnavailableReason,
  startSlapd,
  type TestSlapd,
} from '../../../helpers/slapd.ts';

const skip = slapdUnavailableReason();
if (skip) console.log(`# ${skip}`);

function provider(host: string, extra: Record<string, unknown> = {}) {
  const { providers } = parseProviders(
    [
      {
        name: 'ldap',
        type: 'LDAPIdentityProvider',
        mappingMethod: 'auto',
        provider: {
          host,
          managerDN: LDAP_MANAGER.dn,
          managerPassword: LDAP_MANAGER.password,
          userSearchBase: `ou=people,${LDAP_BASE}`,
          userSearchFilter: '(objectClass=inetOrgPerson)',
          loginAttribute: 'uid',
          mailAttribute: 'mail',
          groupSearchBase: `ou=groups,${LDAP_BASE}`,
          groupSearchFilter: '(objectClass=groupOfNames)',
          ...extra,
        },
      },
    ],
    () => {
      throw new Error('no files here');
    },
  );
  return new LdapIdentityProvider(providers[0] as never);
}

async function refusal(p: Promise<unknown>): Promise<OAuthError> {
  const err = await p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof OAuthError, String(err));
  return err;
}

describe('LDAP identity provider', { skip }, () => {
  let slapd: TestSlapd;
  before(async () => {
    slapd = await startSlapd();
  });
  after(async () => {
    await slapd?.stop();
  });

  it('binds as the user and reads mail and groups', async () => {
    const id = await provider(`127.0.0.1:${slapd.port}`).authenticate('alice', LDAP_USERS.alice.password);
    assert.equal(id.uid, 'alice');
    assert.equal(id.username, 'alice');
    assert.equal(id.email, LDAP_USERS.alice.mail);
    // The provider reports what the directory says; the mapping drops the platform's system: groups.
    assert.deepEqual(id.groups, [...LDAP_USERS.alice.groups, LDAP_SYSTEM_GROUP].sort());
  });

  it('refuses a wrong password, an unknown login and an empty password with one answer', async () => {
    const p = provider(`127.0.0.1:${slapd.port}`);
    for (const [login, password] of [
      ['alice', 'wrong'],
      ['nobody', 'whatever'],
      ['alice', ''],
    ]) {
      const e = await refusal(p.authenticate(login, password));
      assert.equal(e.status, 400);
      assert.deepEqual(e.toBody(), { error: 'invalid_grant', error_description: 'incorrect password' });
    }
  });

  it('escapes filter metacharacters: a wildcard or a filter fragment in the login matches nothing else', async () => {
    const p = provider(`ldap://127.0.0.1:${slapd.port}`);
    // Injected, (uid=al*) would find alice and her password would bind.
    await refusal(p.authenticate('al*', LDAP_USERS.alice.password));
    await refusal(p.authenticate('alice)(uid=*', LDAP_USERS.alice.password));
    await refusal(p.authenticate('*', LDAP_USERS.alice.password));
    // The entry whose uid *is* a filter fragment is found by exactly that name.
    const star = await p.authenticate('*)(uid=*', LDAP_USERS['*)(uid=*'].password);
    assert.equal(star.uid, '*)(uid=*');
    assert.equal(escapeFilterValue('a*(b)\\c\0'), 'a\\2a\\28b\\29\\5cc\\00');
  });

  it('speaks LDAPS and StartTLS with the configured CA, and refuses an untrusted certificate', async () => {
    const ca = { rootCAData: Buffer.from(slapd.caPem).toString('base64') };
    assert.equal(
      (await provider(slapd.ldapsUrl, ca).authenticate('bob', LDAP_USERS.bob.password)).uid,
      'bob',
    );
    const startTls = provider(`127.0.0.1:${slapd.port}`, { ...ca, startTLS: true });
    assert.equal(startTls.settings.transport, 'starttls');
    assert.equal((await startTls.authenticate('bob', LDAP_USERS.bob.password)).uid, 'bob');
    const untrusted = await refusal(provider(slapd.ldapsUrl).authenticate('bob', LDAP_USERS.bob.password));
    assert.equal(untrusted.status, 503);
    const skipVerify = provider(slapd.ldapsUrl, { insecureSkipVerify: true });
    assert.equal((await skipVerify.authenticate('bob', LDAP_USERS.bob.password)).uid, 'bob');
  });

  it('answers 503 when the directory hangs or is down, within its timeout', async () => {
    slapd.pause();
    try {
      const e = await refusal(
        provider(`127.0.0.1:${slapd.port}`, { readTimeout: 300 }).authenticate(
          'bob',
          LDAP_USERS.bob.password,
        ),
      );
      assert.equal(e.status, 503);
      assert.equal(e.error, 'temporarily_unavailable');
    } finally {
      slapd.resume();
    }
    const down = await refusal(provider('127.0.0.1:1', { readTimeout: 300 }).authenticate('bob', 'x-Pass-1'));
    assert.equal(down.status, 503);
  });

  it('answers server_error when the manager credentials are wrong, without saying them', async () => {
    const e = await refusal(
      provider(`127.0.0.1:${slapd.port}`, { managerPassword: 'not-the-Manager-pw' }).authenticate(
        'bob',
        LDAP_USERS.bob.password,
      ),
    );
    assert.equal(e.status, 500);
    assert.equal(e.error, 'server_error');
    assert.doesNotMatch(JSON.stringify(e.toBody()), /not-the-Manager-pw/);
  });
});
