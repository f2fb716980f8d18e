// The kubesphere-config ConfigMap against a real dev cluster: created at start with the configuration in force and no
// secret, kept current when the live ClusterConfiguration changes it, readable through kapiserver without revealing a
// secret, and a kubesphere-config kapiserver did not create is never rewritten (only reported when it holds secrets).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { parse } from 'yaml';
import type { KubeRest } from '../../../src/apiserver/cluster/index.ts';
import { bearer, devRest, eventually, login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

const CM = '/api/v1/namespaces/kubesphere-system/configmaps/kubesphere-config';
const CC = '/apis/installer.kubesphere.io/v1alpha1/namespaces/kubesphere-system/clusterconfigurations';
const JWT_SECRET = 'Jwt-Secret-Marker-0123456789abcdef';
const CLIENT_SECRET = 'Client-Secret-Marker-42';
const LDAP_PASSWORD = 'Ldap-Password-Marker-9';

type ConfigMap = {
  metadata: { labels?: Record<string, string>; resourceVersion?: string };
  data: Record<string, string>;
};

const logLines: string[] = [];
let stack: TestStack;
let rest: KubeRest;

before(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  stack = await startTestStack({
    logger: pino({ level: 'info' }, sink),
    configDocument: {
      authentication: {
        jwtSecret: JWT_SECRET,
        oauthOptions: {
          clients: [
            { name: 'kubesphere', secret: 'kubesphere' }, // the test helpers' login client
            { name: 'console', secret: CLIENT_SECRET },
          ],
          identityProviders: [
            {
              name: 'corp',
              type: 'LDAPIdentityProvider',
              provider: {
                host: 'ldap.example.com:389',
                managerDN: 'cn=admin,dc=example,dc=com',
                managerPassword: LDAP_PASSWORD,
                userSearchBase: 'ou=users,dc=example,dc=com',
              },
            },
          ],
        },
      },
      multicluster: { enable: false, clusterRole: 'host' },
      monitoring: { endpoint: 'http://prometheus:9090' },
    },
  });
  rest = devRest(stack);
});
after(async () => {
  await stack?.close();
});

const noSecret = (text: string) => {
  for (const marker of [JWT_SECRET, CLIENT_SECRET, LDAP_PASSWORD, stack.adminPassword]) {
    assert.ok(!text.includes(marker), `a secret leaked:\n${text}`);
  }
};

test('created at start: the configuration in force as kubesphere.yaml, labelled as kapiserver’s, without secrets', async () => {
  const cm = await eventually(() => rest.get<ConfigMap>(CM), 30_000, 'kubesphere-config created');
  assert.equal(cm.metadata.labels?.['app.kubernetes.io/managed-by'], 'kapiserver');
  const text = cm.data['kubesphere.yaml'];
  noSecret(text);
  const doc = parse(text);
  assert.equal(doc.multicluster.clusterRole, 'host', 'what the console reads');
  assert.equal(doc.monitoring.endpoint, 'http://prometheus:9090');
  assert.equal(
    doc.authentication.oauthOptions.accessTokenMaxAge,
    '2h0m0s',
    'kubesphere.yaml’s own duration form',
  );
  assert.deepEqual(
    doc.authentication.oauthOptions.clients.map((c: { name: string; secret?: string }) => [c.name, c.secret]),
    [
      ['kubesphere', undefined],
      ['console', undefined],
    ],
  );
  assert.equal(doc.authentication.oauthOptions.identityProviders[0].provider.host, 'ldap.example.com:389');
  assert.equal(doc.authentication.jwtSecret, undefined);

  // What a user who may read ConfigMaps in kubesphere-system sees through kapiserver.
  const token = await login(stack);
  const res = await fetch(`${stack.url}${CM}`, { headers: bearer(token) });
  assert.equal(res.status, 200);
  noSecret(await res.text());
});

test('kept current: a ClusterConfiguration change reaches it; an edit is put back on the next change', async () => {
  await rest.create(CC, {
    apiVersion: 'installer.kubesphere.io/v1alpha1',
    kind: 'ClusterConfiguration',
    metadata: { name: 'ks-installer', namespace: 'kubesphere-system' },
    spec: {
      authentication: {
        oauthOptions: { clients: [{ name: 'rotated-client', secret: 'Rotated-Secret-Marker-7' }] },
      },
    },
  });
  const cm = await eventually(
    async () => {
      const c = await rest.get<ConfigMap>(CM);
      return c.data['kubesphere.yaml'].includes('rotated-client') ? c : undefined;
    },
    15_000,
    'the new client in kubesphere-config',
  );
  assert.ok(!cm.data['kubesphere.yaml'].includes('Rotated-Secret-Marker-7'));
  noSecret(cm.data['kubesphere.yaml']);

  await rest.mergePatch(CM, { data: { 'kubesphere.yaml': 'tampered: true\n' } });
  const live = await rest.get<Record<string, unknown> & { spec: Record<string, unknown> }>(
    `${CC}/ks-installer`,
  );
  live.spec = {
    authentication: { oauthOptions: { clients: [{ name: 'third-client', secret: 'x-secret' }] } },
  };
  await rest.replace(`${CC}/ks-installer`, live);
  await eventually(
    async () => {
      const text = (await rest.get<ConfigMap>(CM)).data['kubesphere.yaml'];
      return text.includes('third-client') && !text.includes('tampered') ? text : undefined;
    },
    15_000,
    'the edit replaced by the configuration in force',
  );
});

test('a kubesphere-config kapiserver did not create is left as it is, its secrets reported by name only', async () => {
  await rest.delete(CM);
  const foreign = `authentication:\n  jwtSecret: ${JWT_SECRET}\nmulticluster:\n  clusterRole: member\n`;
  await rest.create('/api/v1/namespaces/kubesphere-system/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kubesphere-config', namespace: 'kubesphere-system' },
    data: { 'kubesphere.yaml': foreign },
  });
  // A configuration change makes the controller look at once.
  const live = await rest.get<Record<string, unknown> & { spec: Record<string, unknown> }>(
    `${CC}/ks-installer`,
  );
  live.spec = {
    authentication: { oauthOptions: { clients: [{ name: 'fourth-client', secret: 'y-secret' }] } },
  };
  await rest.replace(`${CC}/ks-installer`, live);
  const warning = await eventually(
    async () => logLines.find((l) => l.includes('kubesphere-config holds secrets')),
    15_000,
    'the warning about the foreign ConfigMap',
  );
  assert.match(warning, /authentication\.jwtSecret/);
  assert.ok(!warning.includes(JWT_SECRET), 'the warning names the field, never the value');
  assert.equal((await rest.get<ConfigMap>(CM)).data['kubesphere.yaml'], foreign, 'not rewritten');
  for (const line of logLines) assert.ok(!line.includes(JWT_SECRET) && !line.includes(CLIENT_SECRET), line);
});
