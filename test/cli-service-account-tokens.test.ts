// --service-account-tokens / KAPISERVER_SERVICE_ACCOUNT_TOKENS: sets authentication.serviceAccountTokens (over the file
// and the ClusterConfiguration); given neither, the configuration decides; anything but true or false is a usage error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCli, USAGE, UsageError } from '../src/cli.ts';
import { configFromDocument, overlay } from '../src/config/index.ts';

const ENV = 'KAPISERVER_SERVICE_ACCOUNT_TOKENS';
const setting = (o: ReturnType<typeof parseCli>) =>
  (o.configOverrides as { authentication?: { serviceAccountTokens?: boolean } }).authentication
    ?.serviceAccountTokens;

test('the flag and its environment variable set serviceAccountTokens; the flag wins; neither leaves it alone', () => {
  assert.equal(setting(parseCli(['--service-account-tokens=false'], {})), false);
  assert.equal(setting(parseCli(['--service-account-tokens', 'true'], {})), true);
  assert.equal(setting(parseCli([], { [ENV]: 'false' })), false);
  assert.equal(setting(parseCli(['--service-account-tokens=true'], { [ENV]: 'false' })), true);
  assert.equal(setting(parseCli([], {})), undefined);
  assert.match(USAGE, /--service-account-tokens true\|false .*\n.*\[KAPISERVER_SERVICE_ACCOUNT_TOKENS\]/);
});

test('over a file that turns it on, the environment turns it off; without it the file decides', () => {
  const file = configFromDocument({ authentication: { serviceAccountTokens: true } }, 'in test').config;
  assert.equal(
    overlay(file, parseCli([], { [ENV]: 'false' }).configOverrides).authentication.serviceAccountTokens,
    false,
  );
  const off = configFromDocument({ authentication: { serviceAccountTokens: false } }, 'in test').config;
  assert.equal(overlay(off, parseCli([], {}).configOverrides).authentication.serviceAccountTokens, false);
});

test('anything but true or false is a usage error naming the flag and the value', () => {
  for (const bad of ['yes', '1', 'False', '']) {
    assert.throws(
      () => parseCli([`--service-account-tokens=${bad}`], {}),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message.includes('--service-account-tokens') &&
        err.message.includes(`"${bad}"`),
      bad,
    );
  }
  assert.throws(() => parseCli([], { [ENV]: 'off' }), UsageError);
});
