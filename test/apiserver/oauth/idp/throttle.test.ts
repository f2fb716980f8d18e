// The password providers' throttle (oauth/idp/throttle.ts) over a real token store (in memory) and a clock the test
// moves: a locked login refuses only sources that have been failing, a source past its limit is refused whatever
// the login, and both end with the window.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DESCRIPTIONS, OAuthError } from '../../../../src/apiserver/oauth/errors.ts';
import { ProviderLoginThrottle } from '../../../../src/apiserver/oauth/idp/throttle.ts';
import { LocalTokenStore } from '../../../../src/apiserver/oauth/store/local.ts';
import { defaultConfig } from '../../../../src/config/load.ts';
import { FakeClock } from '../../../helpers/clock.ts';

function setup() {
  const clock = new FakeClock();
  const options = defaultConfig().authentication;
  const throttle = new ProviderLoginThrottle(new LocalTokenStore(':memory:', clock), () => options, clock);
  return { clock, options, throttle };
}

/** A 429 with this description and Retry-After. */
const refusal = (description: string, seconds: number) => (err: unknown) => {
  assert.ok(err instanceof OAuthError);
  assert.equal(err.status, 429);
  assert.equal(err.toBody().error_description, description);
  assert.equal(err.headers['retry-after'], String(seconds));
  return true;
};

test('a locked login refuses the sources that failed on it, not the others, until the window ends', async () => {
  const { clock, options, throttle } = setup();
  const window = options.authenticateRateLimiterDuration;
  for (let i = 0; i < options.authenticateRateLimiterMaxTries; i++)
    await throttle.failed('ldap', 'Bob', '10.0.0.1');
  await assert.rejects(
    throttle.check('ldap', 'bob', '10.0.0.1'),
    refusal(DESCRIPTIONS.rateLimited, window / 1000),
  );
  await throttle.check('ldap', 'bob', '10.0.0.2');
  await throttle.check('github', 'bob', '10.0.0.1');
  clock.advance(window + 1000);
  await throttle.check('ldap', 'bob', '10.0.0.1');
});

test('a source past its limit is refused whatever the login', async () => {
  const { options, throttle } = setup();
  const limit = options.authenticateRateLimiterMaxTries * 5;
  for (let i = 0; i < limit; i++) await throttle.failed('ldap', `user${i}`, '10.0.0.9');
  const seconds = options.authenticateRateLimiterDuration / 1000;
  await assert.rejects(
    throttle.check('ldap', 'someone-else', '10.0.0.9'),
    refusal('too many failed logins from this address', seconds),
  );
  await throttle.check('ldap', 'someone-else', '10.0.0.10');
});
