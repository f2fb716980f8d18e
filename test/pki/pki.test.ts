// The generated serving certificate: every local name and address plus --tls-san; re-issued from the same CA when a
// needed name is missing, keeping the names it had.
import assert from 'node:assert/strict';

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { certificateNames, ensureLocalPki } from '../../src/pki/index.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'pki-test-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const localAddresses = Object.values(networkInterfaces())
  .flat()
  .map((i) => i?.address)
  .filter((a): a is string => Boolean(a));

test('the generated certificate names loopback, the hostname, every interface address and the extra names', async () => {
  const pki = await ensureLocalPki(dataDir, ['kapi.lan.example', '203.0.113.7']);
  const names = certificateNames(pki.serving.certPem);
  for (const n of ['localhost', '127.0.0.1', '::1', hostname().toLowerCase(), ...localAddresses]) {
    assert.ok(names.includes(n), `${n} missing from ${names.join(', ')}`);
  }
  assert.ok(names.includes('kapi.lan.example') && names.includes('203.0.113.7'));
  // node's own parser agrees (IP entries are IP SANs, not DNS names) and the CA signed it.
  const cert = new X509Certificate(pki.serving.certPem);
  assert.equal(cert.checkIP('203.0.113.7'), '203.0.113.7');
  assert.equal(cert.checkHost('kapi.lan.example'), 'kapi.lan.example');
  assert.ok(cert.verify(new X509Certificate(pki.caPem).publicKey));
});

test('a certificate lacking a newly needed name is re-issued from the same CA; one that has them all is kept', async () => {
  const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  const before = readFileSync(join(dataDir, 'pki', 'serving.crt'), 'utf8');
  // Nothing new needed: the file is kept as it is.
  await ensureLocalPki(dataDir);
  assert.equal(readFileSync(join(dataDir, 'pki', 'serving.crt'), 'utf8'), before);

  const pki = await ensureLocalPki(dataDir, ['second.lan.example']);
  assert.notEqual(pki.serving.certPem, before, 're-issued');
  assert.equal(pki.caPem, ca, 'the CA is kept');
  assert.equal(readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'), ca);
  const names = certificateNames(pki.serving.certPem);
  assert.ok(names.includes('second.lan.example'));
  assert.ok(names.includes('kapi.lan.example'), 'names of the earlier certificate stay');
  const cert = new X509Certificate(pki.serving.certPem);
  assert.ok(cert.verify(new X509Certificate(ca).publicKey));
  // The key on disk belongs to the certificate on disk.
  const key = readFileSync(join(dataDir, 'pki', 'serving.key'), 'utf8');
  assert.ok(cert.checkPrivateKey(createPrivateKey(key)));
});
