// --tls-san / KAPISERVER_TLS_SAN: repeatable, comma-separated, each a DNS name or an IP address.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCli, UsageError } from '../src/cli.ts';

test('--tls-san takes repeated and comma-separated names; the environment variable is used without the flag', () => {
  assert.deepEqual(
    parseCli(['--tls-san', 'kapi.lan.example, 10.0.0.5', '--tls-san', 'fd00::7'], {}).tlsSans,
    ['kapi.lan.example', '10.0.0.5', 'fd00::7'],
  );
  assert.deepEqual(parseCli([], { KAPISERVER_TLS_SAN: 'a.example,192.0.2.9' }).tlsSans, [
    'a.example',
    '192.0.2.9',
  ]);
  assert.deepEqual(parseCli(['--tls-san', 'flag.example'], { KAPISERVER_TLS_SAN: 'env.example' }).tlsSans, [
    'flag.example',
  ]);
  assert.deepEqual(parseCli([], {}).tlsSans, []);
});

test('a --tls-san that is neither a DNS name nor an IP address is a usage error naming it', () => {
  for (const bad of ['http://x', 'a b', 'x_.example', '-lead.example', '10.0.0.1/24']) {
    assert.throws(
      () => parseCli([`--tls-san=${bad}`], {}),
      (err: unknown) => err instanceof UsageError && err.message.includes(`"${bad}"`),
      bad,
    );
  }
});
