// config.kubesphere.io/v1alpha2 through the real app and chain: configz's component map, the public OAuth
// configuration, gpu/kinds, and who may read them without a token.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { buildApiServer } from '../../../../src/apiserver/server.ts';
import { configFromDocument, defaultConfig } from '../../../../src/config/index.ts';
import { TEST_USER, testServerContext } from '../../../helpers/server-context.ts';

const C = '/kapis/config.kubesphere.io/v1alpha2/configs';
const PROVIDER_PASSWORD = 'Ldap-Pw-Marker-7';
const CLIENT_SECRET = 'Client-Secret-Marker-3';
const SIGN_KEY_DATA = 'Sign-Key-Data-Marker-5';

async function serverWith(doc: Record<string, unknown> | undefined) {
  const config = doc ? configFromDocument(doc, 'in test').config : defaultConfig();
  const context = testServerContext({ config, user: TEST_USER });
  const server = await buildApiServer(context.ctx);
  after(async () => {
    await server.close();
    await context.close();
  });
  const get = (url: string, token?: string) =>
    server.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { get, token: context.token, config };
}

test('configz of a minimal install: a flat map of booleans in ks-apiserver’s key set, without a token', async () => {
  const { get } = await serverWith(undefined);
  const res = await get(`${C}/configz`);
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(body, {
    devops: false,
    sonarqube: false,
    kubernetes: true,
    servicemesh: false,
    network: false,
    'network.ippool': false,
    cache: true,
    s3: false,
    openpitrix: false,
    'openpitrix.appstore': false,
    monitoring: false,
    logging: false,
    authentication: true,
    authorization: true,
    multicluster: false,
    events: false,
    auditing: false,
    alerting: false,
    notification: false,
    kubeedge: false,
    edgeruntime: false,
    metering: false,
    gateway: false,
    gpu: false,
    terminal: true,
  });
  assert.ok(!('ldap' in body), 'ldap is never a key');
  assert.ok(!('network.topology' in body), 'absent while the network section is empty');
});

test('configz reads the unserved sections’ deciding keys; reading it changes nothing (gpu/kinds stays [])', async () => {
  const { get, token, config } = await serverWith({
    devops: { host: 'http://jenkins', username: 'admin', password: 'x' },
    sonarQube: { host: 'http://sonar', token: 't' },
    servicemesh: { jaegerQueryHost: 'http://jaeger' },
    network: { ippoolType: 'calico', weaveScopeHost: '' },
    monitoring: { endpoint: 'http://prometheus:9090' },
    logging: { host: 'http://es:9200' },
    multicluster: { enable: true, clusterRole: 'host' },
    alerting: { thanosRulerEndpoint: 'http://thanos' },
    openpitrix: { s3: { endpoint: 'http://minio' } },
    auditing: { host: 'http://es:9200' },
    cache: { type: '' },
    gpu: { kinds: [] },
  });
  const before = structuredClone(config);
  const gpuBefore = await get(`${C}/gpu/kinds`, token);
  assert.deepEqual(gpuBefore.json(), []);
  const body = (await get(`${C}/configz`)).json();
  const on = Object.keys(body).filter((k) => body[k]);
  assert.deepEqual(on.sort(), [
    'alerting',
    'auditing',
    'authentication',
    'authorization',
    'devops',
    'kubernetes',
    'logging',
    'monitoring',
    'multicluster',
    'network.ippool',
    'servicemesh',
    'sonarqube',
    'terminal',
  ]);
  assert.equal(body['network.topology'], false, 'present once the network section says something');
  assert.equal(body.cache, false, 'an explicitly empty cache type');
  await get(`${C}/configz`);
  assert.deepEqual(config, before, 'the configuration is not mutated');
  const gpuAfter = await get(`${C}/gpu/kinds`, token);
  assert.equal(gpuAfter.statusCode, 200);
  assert.deepEqual(gpuAfter.json(), [], 'never flips to null');
});

test('gpu/kinds answers the configured kinds and needs a token (but no permission)', async () => {
  const kinds = [{ resourceName: 'nvidia.com/gpu', resourceType: 'GPU', default: true }];
  const { get, token } = await serverWith({ gpu: { kinds } });
  assert.equal((await get(`${C}/gpu/kinds`)).statusCode, 401);
  const res = await get(`${C}/gpu/kinds`, token);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), kinds);
  assert.equal((await get(`${C}/configz`)).json().gpu, true);
});

test('configs/oauth: KubeSphere’s shape, durations in nanoseconds, no secret at any depth, without a token', async () => {
  const { get } = await serverWith({
    authentication: {
      jwtSecret: 'Jwt-Secret-Marker-1',
      oauthOptions: {
        signKeyData: SIGN_KEY_DATA,
        accessTokenMaxAge: '1h',
        accessTokenInactivityTimeout: '30m',
        clients: [{ name: 'console', secret: CLIENT_SECRET, accessTokenMaxAge: '10m' }],
        identityProviders: [
          {
            name: 'corp-ldap',
            type: 'LDAPIdentityProvider',
            provider: {
              host: 'ldap.example.com:389',
              managerDN: 'cn=admin,dc=example,dc=com',
              managerPassword: PROVIDER_PASSWORD,
              userSearchBase: 'ou=users,dc=example,dc=com',
              nested: {
                bindPassword: PROVIDER_PASSWORD,
                keep: 'yes',
                list: [{ clientSecret: CLIENT_SECRET }],
              },
            },
          },
          {
            name: 'github',
            type: 'GitHubIdentityProvider',
            provider: {
              clientID: 'gh-client',
              clientSecret: CLIENT_SECRET,
              redirectURL: 'http://console/oauth/redirect/github',
              scopes: ['user'],
              endpoint: { authURL: 'https://github.com/login/oauth/authorize', tokenURL: 'https://t' },
            },
          },
        ],
      },
    },
  });
  const res = await get(`${C}/oauth`);
  assert.equal(res.statusCode, 200);
  const body = res.json();
  const text = res.body;
  for (const marker of [PROVIDER_PASSWORD, CLIENT_SECRET, SIGN_KEY_DATA, 'Jwt-Secret-Marker-1']) {
    assert.ok(!text.includes(marker), marker);
  }
  assert.ok(!/password|secret/i.test(text), text);
  assert.equal(body.accessTokenMaxAge, 3600 * 1e9);
  assert.equal(body.accessTokenInactivityTimeout, 1800 * 1e9);
  assert.deepEqual(body.clients, [
    {
      name: 'console',
      respondWithChallenges: false,
      redirectURIs: ['*'],
      grantMethod: 'auto',
      scopeRestrictions: ['full'],
      accessTokenMaxAge: 600 * 1e9,
    },
  ]);
  const [ldap, github] = body.identityProviders;
  assert.deepEqual(ldap, {
    name: 'corp-ldap',
    mappingMethod: 'auto',
    disableLoginConfirmation: false,
    type: 'LDAPIdentityProvider',
    provider: {
      host: 'ldap.example.com:389',
      managerDN: 'cn=admin,dc=example,dc=com',
      userSearchBase: 'ou=users,dc=example,dc=com',
      nested: { keep: 'yes', list: [{}] },
    },
  });
  // What the login page builds its link from.
  assert.equal(github.provider.clientID, 'gh-client');
  assert.equal(github.provider.endpoint.authURL, 'https://github.com/login/oauth/authorize');
  assert.equal(github.provider.redirectURL, 'http://console/oauth/redirect/github');
  assert.deepEqual(github.provider.scopes, ['user']);
});

test('anonymous callers get configz and configs/oauth only; no spelling borrows their excuse', async () => {
  const { get } = await serverWith(undefined);
  for (const prefix of ['/kapis', '/kapi']) {
    for (const p of ['configz', 'oauth']) {
      assert.equal((await get(`${prefix}/config.kubesphere.io/v1alpha2/configs/${p}`)).statusCode, 200, p);
    }
  }
  for (const url of [
    `${C}/gpu/kinds`,
    `${C}/configz/`,
    `${C}/configz/../gpu/kinds`,
    `${C}/oauth/x`,
    '/kapis/config.kubesphere.io/v1alpha2/configs',
    '/kapis/iam.kubesphere.io/v1alpha2/users',
  ]) {
    const res = await get(url);
    assert.equal(res.statusCode, 401, url);
    assert.equal(res.json().kind, 'Status', url);
  }
});
