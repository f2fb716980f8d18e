// What of the configuration may be shown: secret-named keys dropped at every depth, URL credentials removed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutSecrets } from '../../src/config/redact.ts';

test('secret-named keys go at every depth, in lists too; other keys stay', () => {
  const input = {
    jwtSecret: 'a',
    adminPassword: 'b',
    oauthOptions: {
      signKeyData: 'c',
      clients: [{ name: 'console', secret: 'd', redirectURIs: ['*'] }],
      identityProviders: [
        {
          provider: {
            host: 'ldap:389',
            managerPassword: 'e',
            clientSecret: 'f',
            tokenURL: 'https://idp/token',
            nested: { bindPassword: 'g', keep: 1 },
          },
        },
      ],
    },
    insecureSkipVerify: true,
  };
  assert.deepEqual(withoutSecrets(input), {
    oauthOptions: {
      clients: [{ name: 'console', redirectURIs: ['*'] }],
      identityProviders: [
        { provider: { host: 'ldap:389', tokenURL: 'https://idp/token', nested: { keep: 1 } } },
      ],
    },
    insecureSkipVerify: true,
  });
});

test('credentials in a URL are removed, the rest of the URL kept', () => {
  assert.deepEqual(
    withoutSecrets({
      monitoring: { endpoint: 'https://user:Pr0m-pass@prometheus:9090/api' },
      other: 'http://token@host/x',
      plain: 'http://prometheus:9090',
      text: 'user@example.com',
    }),
    {
      monitoring: { endpoint: 'https://prometheus:9090/api' },
      other: 'http://host/x',
      plain: 'http://prometheus:9090',
      text: 'user@example.com',
    },
  );
});
