// The configuration's schema walk (defaults, first error, decode, encode) agrees with TypeBox's Value module, which
// it replaces at run time, on valid and invalid documents of every kind of field.
import assert from 'node:assert/strict';
import test from 'node:test';
import { Value } from 'typebox/value';
import { ConfigSchema } from '../../src/config/schema.ts';
import { decode, encode, firstSchemaError, withDefaults } from '../../src/config/schema-walk.ts';

const DOCUMENTS: unknown[] = [
  {},
  { authentication: { authenticateRateLimiterMaxTries: 'ten' } },
  { authentication: { authenticateRateLimiterMaxTries: 1.5, multipleLogin: 3 } },
  { authentication: { authenticateRateLimiterMaxTries: 0 } },
  { authentication: { authenticateRateLimiterMaxTries: Number.NaN } },
  { authentication: { authenticateRateLimiterDuration: 'soon' } },
  { authentication: { authenticateRateLimiterDuration: -1 } },
  { authentication: { authenticateRateLimiterDuration: Number.POSITIVE_INFINITY } },
  { authentication: { authenticateRateLimiterDuration: null } },
  { authentication: { authenticateRateLimiterDuration: '1h30m', maximumClockSkew: 2.5 } },
  { authorization: { mode: 'Maybe' } },
  { authorization: { mode: 5, impersonate: true } },
  { authorization: { mode: 'AlwaysAllow', impersonate: 'yes' } },
  { authentication: { oauthOptions: { clients: [{ name: 'a' }, { secret: 'x' }] } } },
  { authentication: { oauthOptions: { clients: [{ name: '' }] } } },
  { authentication: { oauthOptions: { clients: [{ name: 5, secret: 4 }] } } },
  { authentication: { oauthOptions: { clients: 'x' } } },
  { authentication: { oauthOptions: { clients: [{ name: 'a', redirectURIs: [1] }] } } },
  {
    authentication: { oauthOptions: { clients: [{ name: 'a', grantMethod: 'x', accessTokenMaxAge: 'y' }] } },
  },
  { authentication: { oauthOptions: { clients: [{ name: 'a', accessTokenMaxAge: '10m', extra: 1 }] } } },
  { authentication: { oauthOptions: { identityProviders: [{ name: 'a', type: 't', provider: 5 }] } } },
  { authentication: { oauthOptions: { identityProviders: [{ provider: 5 }] } } },
  {
    authentication: {
      oauthOptions: { identityProviders: [{ name: 'a', type: 't', provider: { x: { y: 1 } } }] },
    },
  },
  { redis: { host: 'r', port: 70000 } },
  { redis: { port: 'x' } },
  { redis: null },
  { redis: { host: 'r', db: -1 } },
  { authentication: [1, 2] },
  { authentication: null, auditing: { enable: true, eventBatchSize: 0 } },
  { auditing: { enable: 'on' } },
  { auditing: { eventBatchInterval: '500ms', logPath: '/var/log/audit' }, unknownSection: 1 },
  { authentication: { jwtSecrett: 'x', jwtSecret: 's', adminPassword: 5 } },
];

test('defaults and the first error are those of TypeBox', () => {
  for (const doc of DOCUMENTS) {
    const ours = withDefaults(ConfigSchema, structuredClone(doc));
    assert.deepEqual(ours, Value.Default(ConfigSchema, structuredClone(doc)), JSON.stringify(doc));
    assert.deepEqual(
      firstSchemaError(ConfigSchema, ours),
      Value.Errors(ConfigSchema, ours)[0],
      JSON.stringify(doc),
    );
  }
});

test('decoding and encoding valid documents are those of TypeBox', () => {
  let valid = 0;
  for (const doc of DOCUMENTS) {
    const document = withDefaults(ConfigSchema, structuredClone(doc));
    if (firstSchemaError(ConfigSchema, document)) continue;
    valid++;
    const decoded = decode(ConfigSchema, document);
    assert.deepEqual(decoded, Value.Decode(ConfigSchema, document), JSON.stringify(doc));
    assert.deepEqual(encode(ConfigSchema, decoded), Value.Encode(ConfigSchema, decoded), JSON.stringify(doc));
  }
  assert.ok(valid >= 5, `${valid} valid documents`);
});
