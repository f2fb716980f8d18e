import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  ConfigError,
  configFromDocument,
  formatDuration,
  loadConfigFile,
  parseDuration,
} from '../../src/config/index.ts';

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'kapiserver-config-')), 'kubesphere.yaml');
  writeFileSync(path, text);
  return path;
}

test('Go durations parse and format', () => {
  assert.equal(parseDuration('10m'), 600_000);
  assert.equal(parseDuration('2h0m0s'), 7_200_000);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('168h'), 604_800_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('ten minutes'), undefined);
  assert.equal(parseDuration('10'), undefined);
  assert.equal(formatDuration(7_200_000), '2h0m0s');
  assert.equal(formatDuration(600_000), '10m0s');
});

test('no file gives the KubeSphere chart defaults', () => {
  const { config, warnings } = configFromDocument(undefined);
  assert.deepEqual(warnings, []);
  const a = config.authentication;
  assert.equal(a.authenticateRateLimiterMaxTries, 10);
  assert.equal(a.authenticateRateLimiterDuration, 600_000);
  assert.equal(a.oauthOptions.accessTokenMaxAge, 7_200_000);
  assert.equal(a.oauthOptions.issuer, 'kubesphere');
  assert.deepEqual(
    a.oauthOptions.clients.map((c) => c.name),
    ['kubesphere'],
  );
  assert.equal(config.redis, undefined);
  assert.equal(config.authorization.mode, 'RBAC');
});

test('a KubeSphere-shaped file is read, durations converted, sections applied', () => {
  const path = file(`
authentication:
  authenticateRateLimiterMaxTries: 3
  authenticateRateLimiterDuration: 2m
  loginHistoryRetentionPeriod: 24h
  multipleLogin: false
  jwtSecret: "0123456789abcdef0123456789abcdef"
  oauthOptions:
    accessTokenMaxAge: 1h
    accessTokenInactivityTimeout: 30m
    clients:
      - name: console
        secret: s3cret
        redirectURIs: ["*"]
        accessTokenMaxAge: 10m
redis:
  host: 127.0.0.1
  port: 6380
authorization:
  mode: AlwaysAllow
monitoring:
  endpoint: http://prometheus:9090
logging:
  host: http://elasticsearch:9200
`);
  const { config, warnings } = loadConfigFile(path);
  const a = config.authentication;
  assert.equal(a.authenticateRateLimiterMaxTries, 3);
  assert.equal(a.authenticateRateLimiterDuration, 120_000);
  assert.equal(a.loginHistoryRetentionPeriod, 86_400_000);
  assert.equal(a.multipleLogin, false);
  assert.equal(a.oauthOptions.accessTokenMaxAge, 3_600_000);
  assert.equal(a.oauthOptions.clients.length, 1);
  assert.equal(a.oauthOptions.clients[0].name, 'console');
  assert.equal(a.oauthOptions.clients[0].accessTokenMaxAge, 600_000);
  assert.deepEqual(config.redis, { host: '127.0.0.1', port: 6380, password: '', db: 0 });
  assert.equal(config.authorization.mode, 'AlwaysAllow');
  assert.equal(config.monitoring?.endpoint, 'http://prometheus:9090');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /"logging" is not served/);
});

test('a wrong type stops with one line naming the field and what was expected', () => {
  const path = file('authentication:\n  authenticateRateLimiterMaxTries: ten\n');
  assert.throws(
    () => loadConfigFile(path),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.doesNotMatch(err.message, /\n/);
      assert.match(err.message, /authentication\.authenticateRateLimiterMaxTries/);
      assert.match(err.message, /expected an integer/);
      assert.match(err.message, /got string "ten"/);
      return true;
    },
  );
});

test('bad durations, enum values and list items are named precisely', () => {
  const cases: [string, RegExp][] = [
    [
      'authentication:\n  authenticateRateLimiterDuration: soon\n',
      /authentication\.authenticateRateLimiterDuration: expected a duration/,
    ],
    [
      'authorization:\n  mode: Maybe\n',
      /authorization\.mode: expected one of "RBAC", "AlwaysAllow", "AlwaysDeny"/,
    ],
    [
      'authentication:\n  oauthOptions:\n    clients:\n      - name: a\n      - secret: x\n',
      /authentication\.oauthOptions\.clients\[1\]/,
    ],
    ['redis:\n  host: r\n  port: 70000\n', /redis\.port/],
    ['authentication: [1, 2]\n', /field authentication: expected an object, got a list/],
    ['- just a list\n', /expected a YAML mapping/],
    ['authentication:\n  multipleLogin: "no"\n', /authentication\.multipleLogin: expected a boolean/],
  ];
  for (const [text, re] of cases) {
    assert.throws(() => loadConfigFile(file(text)), re, text);
  }
});

test('unknown fields are warnings, not silently dropped', () => {
  const { warnings } = loadConfigFile(
    file(
      'authentication:\n  jwtSecrett: x\n  oauthOptions:\n    clients:\n      - name: a\n        secert: b\nfoo: 1\n',
    ),
  );
  assert.ok(warnings.some((w) => w.includes('"authentication.jwtSecrett"')));
  assert.ok(warnings.some((w) => w.includes('"authentication.oauthOptions.clients[0].secert"')));
  assert.ok(warnings.some((w) => w.includes('"foo"')));
});

test('unreadable and non-YAML files are clear errors', () => {
  assert.throws(
    () => loadConfigFile('/nonexistent/kubesphere.yaml'),
    /cannot read configuration file .*ENOENT/,
  );
  assert.throws(() => loadConfigFile(file('authentication: [unclosed\n')), /not valid YAML/);
});
