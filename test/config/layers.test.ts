// Precedence: defaults < file < live ClusterConfiguration < flags and environment; --help and the README name every
// flag and environment variable of the one table in cli.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseCli, USAGE } from '../../src/cli.ts';
import { applyClusterConfiguration } from '../../src/config/clusterconfiguration.ts';
import { configFromDocument, defaultConfig, overlay } from '../../src/config/index.ts';

const FILE = {
  authentication: {
    authenticateRateLimiterMaxTries: 3,
    jwtSecret: 'from-file',
    adminPassword: 'File-Passw0rd',
    oauthOptions: {
      accessTokenMaxAge: '1h',
      clients: [{ name: 'console', secret: 's', accessTokenMaxAge: '10m' }],
    },
  },
  redis: { host: 'r' },
  auditing: { eventBatchInterval: 2 },
};

test('a ClusterConfiguration section replaces only the fields it names; lists are replaced whole', () => {
  const base = configFromDocument(FILE).config;
  const r = applyClusterConfiguration(base, {
    spec: { authentication: { multipleLogin: false, oauthOptions: { clients: [{ name: 'other' }] } } },
  });
  assert.ok(r.ok);
  const a = r.config.authentication;
  assert.equal(a.multipleLogin, false);
  assert.equal(a.authenticateRateLimiterMaxTries, 3, 'from the file');
  assert.equal(a.oauthOptions.accessTokenMaxAge, 3_600_000, 'from the file');
  assert.deepEqual(a.oauthOptions.clients, [
    {
      name: 'other',
      secret: '',
      redirectURIs: ['*'],
      grantMethod: 'auto',
      respondWithChallenges: false,
      allowImplicitGrant: false,
      scopeRestrictions: ['full'],
    },
  ]);
  assert.deepEqual(r.config.redis, base.redis);
  assert.equal(r.config.auditing.eventBatchInterval, 2000);
  assert.deepEqual(configFromDocument(FILE).config, base, 'the base is not changed');
});

test('an invalid ClusterConfiguration section names the field under spec', () => {
  const base = configFromDocument(FILE).config;
  const r = applyClusterConfiguration(base, {
    spec: { authentication: { oauthOptions: { accessTokenMaxAge: 'soon' } } },
  });
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.error, /^field spec\.authentication\.oauthOptions\.accessTokenMaxAge: /);
});

test('environment overrides beat the file; empty ones are ignored', () => {
  const base = configFromDocument(FILE).config;
  const cli = parseCli([], { KAPISERVER_JWT_SECRET: 'from-env', KAPISERVER_ADMIN_PASSWORD: '' });
  assert.deepEqual(cli.configOverrides, { authentication: { jwtSecret: 'from-env' } });
  const config = overlay(base, cli.configOverrides);
  assert.equal(config.authentication.jwtSecret, 'from-env');
  assert.equal(config.authentication.adminPassword, 'File-Passw0rd');
  assert.equal(config.authentication.oauthOptions.clients[0].accessTokenMaxAge, 600_000);
});

test('--port beats the ks-apiserver spelling --insecure-port, which beats KAPISERVER_PORT', () => {
  const env = { KAPISERVER_PORT: '82' };
  assert.equal(parseCli(['--port', '80', '--insecure-port', '81'], env).port, 80);
  assert.equal(parseCli(['--insecure-port', '81'], env).port, 81);
  assert.equal(parseCli([], env).port, 82);
  assert.equal(parseCli([], {}).port, 9090);
  assert.equal(parseCli([], { KAPISERVER_INCLUSTER_ROOT: '/staged' }).inClusterRoot, '/staged');
});

test('--help and the README configuration section name every flag and environment variable', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Pointing kapiserver'));
  const flags = [...USAGE.matchAll(/--([a-z-]+)/g)]
    .map((m) => m[1])
    .filter((f) => !['help', 'version'].includes(f));
  const envs = [...USAGE.matchAll(/\b(KAPISERVER_[A-Z_]+|KUBECONFIG_FILE)\b/g)].map((m) => m[1]);
  assert.ok(envs.length >= 12);
  for (const f of flags) assert.ok(section.includes(`\`--${f}\``), `README lists --${f}`);
  for (const e of envs) assert.ok(section.includes(`\`${e}\``), `README lists ${e}`);
});

test("the README's kubesphere.yaml block shows the schema's defaults", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = readme.slice(readme.indexOf('The `kubesphere.yaml` sections')).split('```')[1];
  const { config, warnings } = configFromDocument(parseYaml(block.replace(/^yaml\n/, '')), 'in README');
  assert.deepEqual(warnings, []);
  const { redis, ...rest } = config;
  assert.deepEqual(rest, defaultConfig());
  assert.deepEqual(redis, { host: '127.0.0.1', port: 6379, password: '', db: 0 });
});
