// --external-url / KAPISERVER_EXTERNAL_URL: sets authentication.oauthOptions.externalURL (the OpenID Connect issuer is
// then <url>/oauth); anything but an http(s) URL without query or fragment is a usage error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCli, UsageError } from '../src/cli.ts';

const externalURL = (o: ReturnType<typeof parseCli>) =>
  (o.configOverrides as { authentication?: { oauthOptions?: { externalURL?: string } } }).authentication
    ?.oauthOptions?.externalURL;

test('--external-url and its environment variable set oauthOptions.externalURL; the flag wins', () => {
  assert.equal(
    externalURL(parseCli(['--external-url', 'https://ks.example.com/'], {})),
    'https://ks.example.com',
  );
  assert.equal(
    externalURL(parseCli([], { KAPISERVER_EXTERNAL_URL: 'https://env.example.com/ks' })),
    'https://env.example.com/ks',
  );
  assert.equal(
    externalURL(
      parseCli(['--external-url=https://flag.example'], { KAPISERVER_EXTERNAL_URL: 'https://env.example' }),
    ),
    'https://flag.example',
  );
  assert.equal(externalURL(parseCli([], {})), undefined);
});

test('an --external-url that is not an http(s) URL without query or fragment is a usage error naming it', () => {
  for (const bad of [
    'ks.example.com',
    'ftp://ks.example.com',
    'https://ks.example.com/?a=1',
    'https://x#f',
  ]) {
    assert.throws(
      () => parseCli([`--external-url=${bad}`], {}),
      (err: unknown) => err instanceof UsageError && err.message.includes(`"${bad}"`),
      bad,
    );
  }
});
