// The ID-token signing key against a real dev cluster: generated once and kept in its Secret, rotated by the rotate
// annotation or by configuring another key, the old public key served until its tokens have expired.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import pino from 'pino';
import { ClusterConnection, KubeRest } from '../../../src/apiserver/cluster/index.ts';
import { issueIdToken } from '../../../src/apiserver/oauth/id-token.ts';
import {
  ROTATE_ANNOTATION,
  resolveSigningKeys,
  SIGNING_KEYS_NAMESPACE,
  SIGNING_KEYS_SECRET,
} from '../../../src/apiserver/oauth/signing-keys.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';

const logger = pino({ level: 'silent' });
const RETAIN_MS = 3_600_000;
const SECRET = `/api/v1/namespaces/${SIGNING_KEYS_NAMESPACE}/secrets/${SIGNING_KEYS_SECRET}`;

let dev: TestDevCluster;
let rest: KubeRest;
before(async () => {
  dev = await startTestDevCluster();
  rest = new KubeRest(ClusterConnection.fromFile(dev.kubeconfigPath));
});
after(() => dev.close());

const kids = (jwks: { keys: Record<string, string>[] }) => jwks.keys.map((k) => k.kid);
const rotate = (value: string) =>
  rest.mergePatch(SECRET, { metadata: { annotations: { [ROTATE_ANNOTATION]: value } } });

test('generated once, kept, rotated on request; the old key verifies its tokens until they expire', async () => {
  const first = await resolveSigningKeys(undefined, rest, logger, RETAIN_MS);
  const again = await resolveSigningKeys(undefined, rest, logger, RETAIN_MS);
  assert.equal(again.kid, first.kid, 'kept, not regenerated');
  assert.deepEqual(kids(first.jwks()), [first.kid]);
  const stored = await rest.get<{ data: Record<string, string> }>(SECRET);
  assert.ok(!JSON.stringify(first.jwks()).includes('PRIVATE'), 'the JWKS has no private key');
  assert.ok(stored.data['keys.json']);

  const oldToken = await issueIdToken(
    first,
    { username: 'alice' },
    {
      issuer: 'https://ks.example.com/oauth',
      clientId: 'app',
      authTime: Math.floor(Date.now() / 1000),
      ttlMs: 60_000,
    },
  );
  await rotate('2026-01-01');
  const t0 = Date.now();
  const rotated = await resolveSigningKeys(undefined, rest, logger, RETAIN_MS, () => t0);
  assert.notEqual(rotated.kid, first.kid);
  assert.deepEqual(kids(rotated.jwks(t0)), [rotated.kid, first.kid], 'new key first, old still served');
  const { payload } = await jwtVerify(oldToken, createLocalJWKSet(rotated.jwks(t0)), { audience: 'app' });
  assert.equal(payload.sub, 'alice');
  assert.deepEqual(kids(rotated.jwks(t0 + RETAIN_MS + 1)), [rotated.kid], 'dropped once its tokens expired');

  const same = await resolveSigningKeys(undefined, rest, logger, RETAIN_MS, () => t0 + 1000);
  assert.equal(same.kid, rotated.kid, 'the same annotation value does not rotate again');
  assert.deepEqual(
    kids(same.jwks(t0 + 1000)),
    [rotated.kid, first.kid],
    'another replica serves the same set',
  );
});

test('a configured key (signKeyData) becomes current and the generated one is retired', async () => {
  const before = await resolveSigningKeys(undefined, rest, logger, RETAIN_MS);
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ format: 'pem', type: 'pkcs1' })
    .toString();
  const configured = await resolveSigningKeys(pem, rest, logger, RETAIN_MS);
  assert.notEqual(configured.kid, before.kid);
  assert.ok(kids(configured.jwks()).includes(before.kid));
  const stored = await rest.get<{ data: Record<string, string> }>(SECRET);
  const text = Buffer.from(stored.data['keys.json'], 'base64').toString();
  assert.ok(!text.includes(pem.split('\n')[1]), 'a configured key is not copied into the Secret');
  const restarted = await resolveSigningKeys(pem, rest, logger, RETAIN_MS);
  assert.equal(restarted.kid, configured.kid, 'the kid of a key is stable (RFC 7638 thumbprint)');
});

test('two replicas starting at once agree on one key', async () => {
  await rest.delete(SECRET);
  const [a, b] = await Promise.all([
    resolveSigningKeys(undefined, rest, logger, RETAIN_MS),
    resolveSigningKeys(undefined, rest, logger, RETAIN_MS),
  ]);
  assert.equal(a.kid, b.kid, 'the second writer adopts what the first wrote');
  const third = await resolveSigningKeys(undefined, rest, logger, RETAIN_MS);
  assert.deepEqual(kids(third.jwks()), [a.kid]);
});
