// Provider settings: KubeSphere's keys (case-insensitive), the StartTLS/LDAPS naming, and errors naming the field
// without ever quoting a secret.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderSettingsError, parseProviders } from '../../../../src/apiserver/oauth/idp/settings.ts';

const noFiles = () => {
  throw Object.assign(new Error('missing'), { code: 'ENOENT' });
};
const ldap = (provider: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'ldap',
  type: 'LDAPIdentityProvider',
  mappingMethod: 'auto',
  provider: {
    host: 'ldap.example.org:389',
    managerDN: 'cn=admin',
    managerPassword: 'Very-Secret-pw',
    userSearchBase: 'ou=people',
    ...provider,
  },
  ...extra,
});

function errorOf(entries: unknown[]): string {
  try {
    parseProviders(entries as never, noFiles);
  } catch (err) {
    assert.ok(err instanceof ProviderSettingsError);
    assert.doesNotMatch(err.message, /Very-Secret-pw/);
    return err.message;
  }
  return assert.fail('expected an error');
}

describe('identity provider settings', () => {
  it('reads KubeSphere keys in any case and maps the transport', () => {
    const { providers } = parseProviders(
      [ldap({ host: undefined, HOST: 'ldaps://ldap.example.org:636', ReadTimeout: 2000 })] as never,
      noFiles,
    );
    const s = providers[0];
    assert.equal(s.type, 'LDAPIdentityProvider');
    if (s.type !== 'LDAPIdentityProvider') return;
    assert.equal(s.transport, 'ldaps');
    assert.equal(s.url, 'ldaps://ldap.example.org:636');
    assert.equal(s.timeoutMs, 2000);
    const plain = parseProviders([ldap({ startTLS: true })] as never, noFiles).providers[0];
    assert.equal(plain.type === 'LDAPIdentityProvider' && plain.transport, 'starttls');
  });

  it('names the field of a bad entry', () => {
    const at = 'authentication.oauthOptions.identityProviders[0]';
    assert.match(
      errorOf([ldap({ managerDN: '' })]),
      new RegExp(`^${escapeRegExp(at)}\\.provider\\.managerDN: is required`),
    );
    assert.match(
      errorOf([ldap({ host: 'ldap.example.org:636', startTLS: true })]),
      /provider\.startTLS: .*ldaps:\/\//,
    );
    assert.match(errorOf([ldap({ userSearchFilter: 'objectClass=person' })]), /provider\.userSearchFilter/);
    assert.match(errorOf([ldap({ userSearchFilter: '(a=b))(|(c=d)' })]), /provider\.userSearchFilter/);
    assert.match(errorOf([ldap({ loginAttribute: 'uid)(x' })]), /provider\.loginAttribute/);
    assert.match(
      errorOf([ldap({ rootCA: '/nonexistent.pem' })]),
      /provider\.rootCA: cannot be read \(ENOENT\)/,
    );
    assert.match(errorOf([ldap({}, { mappingMethod: 'mixed' })]), /mappingMethod: must be auto or lookup/);
    assert.match(errorOf([ldap({}), ldap({})]), /identityProviders\[1\]\.name: "ldap" is used twice/);
    assert.match(errorOf([ldap({}, { name: 'a/b' })]), /\.name: must be/);
    const oidc = { name: 'oidc', type: 'OIDCIdentityProvider', mappingMethod: 'auto' };
    assert.match(
      errorOf([
        { ...oidc, provider: { clientID: 'c', clientSecret: 'Very-Secret-pw', redirectURL: 'https://k/cb' } },
      ]),
      /provider\.endpoint\.authURL: is required when issuer is not set/,
    );
    assert.match(
      errorOf([{ ...oidc, provider: { issuer: 'ftp://x', clientID: 'c', clientSecret: 'Very-Secret-pw' } }]),
      /provider\.issuer: must be an absolute http\(s\) URL/,
    );
  });

  it('passes over types kapiserver does not serve, naming them', () => {
    const r = parseProviders(
      [{ name: 'cas', type: 'CASIdentityProvider', mappingMethod: 'auto', provider: {} }] as never,
      noFiles,
    );
    assert.deepEqual(r.providers, []);
    assert.deepEqual(r.unsupported, ['cas (CASIdentityProvider)']);
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
