// The real `kapiserver` process and its embedded dev cluster child: stdout carries only JSON, the certificate names
// the extra SANs, one process per data directory, the child's work never stalls kapiserver, a crashed child is
// restarted, and no child outlives kapiserver.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { devClusterOf, devRequest } from '../helpers/devcluster.ts';
import { eventually, login } from '../helpers/oauth.ts';
import {
  isRunning,
  type KapiserverProcess,
  killDevClusterOf,
  localFlags,
  lockHolder,
  runKapiserver,
  startKapiserverProcess,
} from '../helpers/process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-startup-'));
const devLock = join(dataDir, 'devcluster', 'devcluster.lock');
const running: KapiserverProcess[] = [];
after(() => {
  for (const p of running) p.child.kill('SIGKILL');
  killDevClusterOf(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

const common = localFlags(dataDir);

const JWT_SECRET = 'startup-test-jwt-secret-0123456789abcdef';
const adminPassword = () => readFileSync(join(dataDir, 'initial-admin-password'), 'utf8').trim();

async function healthzWithin(p: KapiserverProcess, ms: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${p.port}/healthz`, { signal: AbortSignal.timeout(ms) });
  assert.equal(res.status, 200);
}

let first: KapiserverProcess;

test('first start: stdout is JSON lines only (banner and one-time password on stderr); the certificate names --tls-san', {
  timeout: 120_000,
}, async () => {
  first = await startKapiserverProcess(
    [...common, '--tls-san', 'kapi.lan.example,10.9.8.7', '--tls-san', 'other.example'],
    { KAPISERVER_JWT_SECRET: JWT_SECRET },
  );
  running.push(first);
  const password = adminPassword();
  await eventually(async () => first.stderr().includes(password), 5000, 'the password on stderr');
  assert.match(first.stderr(), /kapiserver v\S+ is listening on/);
  assert.ok(!first.stdout().includes(password), 'the password never reaches the log stream');
  for (const line of first.stdout().split('\n').filter(Boolean)) {
    assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
  }
  // The dev cluster child's lines are there too, as JSON of the same shape.
  assert.match(first.stdout(), /"component":"devcluster".*"msg":"dev cluster listening"/);

  // A client that knows kapiserver by an extra name verifies the certificate with the generated CA.
  const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  const cert = await new Promise<PeerCertificate>((resolve, reject) => {
    https
      .get(
        { host: '127.0.0.1', port: first.securePort, path: '/livez', ca, servername: 'kapi.lan.example' },
        (res) => {
          resolve((res.socket as TLSSocket).getPeerCertificate());
          res.resume();
        },
      )
      .on('error', reject);
  });
  for (const name of [
    'DNS:kapi.lan.example',
    'DNS:other.example',
    'IP Address:10.9.8.7',
    'DNS:localhost',
    'IP Address:127.0.0.1',
  ])
    assert.ok(cert.subjectaltname?.includes(name), `${name} missing from ${cert.subjectaltname}`);
});

test('a second kapiserver or dev cluster on the same data directory refuses, naming the holder; the first is untouched', {
  timeout: 120_000,
}, async () => {
  const files = ['kapiserver.lock', 'devcluster/devcluster.lock', 'devcluster/kubeconfig', 'pki/serving.crt'];
  const before = files.map((f) => readFileSync(join(dataDir, f), 'utf8'));
  const childPid = lockHolder(devLock)!;
  assert.ok(childPid && childPid !== first.child.pid && isRunning(childPid));
  // kapiserver's secrets stay out of the child's environment.
  assert.ok(!readFileSync(`/proc/${childPid}/environ`, 'latin1').includes(JWT_SECRET));

  const second = await runKapiserver(common);
  assert.equal(second.code, 1, second.stderr);
  assert.match(second.stderr, new RegExp(`${dataDir} is in use by process ${first.child.pid}\\b`));

  const dev = await runKapiserver(['devcluster', '--data-dir', dataDir, '--port', '0']);
  assert.equal(dev.code, 1, dev.stderr);
  assert.match(dev.stderr, new RegExp(`${join(dataDir, 'devcluster')} is in use by process ${childPid}\\b`));

  assert.deepEqual(
    files.map((f) => readFileSync(join(dataDir, f), 'utf8')),
    before,
  );
  await healthzWithin(first, 5000);
  await login({ url: `http://127.0.0.1:${first.port}`, adminPassword: adminPassword() });
});

test('while the dev cluster is busy with heavy writes, kapiserver /healthz answers promptly', {
  timeout: 120_000,
}, async () => {
  const dev = devClusterOf(dataDir);
  // Large but legitimate ConfigMaps (130,000 keys, 2.4 MB, under the 3 MB body limit): about 20 us of synchronous
  // work per key in the dev cluster, so seconds per write. With the dev cluster inside kapiserver's process, /healthz
  // waited for them (2.5 s and more).
  const data: Record<string, string> = {};
  for (let i = 0; i < 130_000; i++) data[`k${i}`] = `v${i}`;
  const writes = [0, 1].map((n) =>
    devRequest(dev, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: `heavy-${n}` },
      data,
    }),
  );
  for (let probe = 0; probe < 5; probe++) {
    await new Promise((r) => setTimeout(r, 400));
    await healthzWithin(first, 1000);
  }
  assert.deepEqual(
    (await Promise.all(writes)).map((r) => r.status),
    [201, 201],
  );
});

test('a crashed dev cluster child is reported and restarted; kapiserver serves again', {
  timeout: 120_000,
}, async () => {
  const crashed = lockHolder(devLock)!;
  process.kill(crashed, 'SIGKILL');
  await eventually(
    async () => first.stdout().includes('embedded dev cluster exited unexpectedly'),
    10_000,
    'the crash report',
  );
  await healthzWithin(first, 2000);
  await eventually(
    async () => first.stdout().includes('embedded dev cluster restarted'),
    60_000,
    'the restart',
  );
  const restarted = lockHolder(devLock);
  assert.ok(restarted && restarted !== crashed && isRunning(restarted));
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${first.port}/readyz`)).status === 200,
    30_000,
    '/readyz 200 again',
  );
  await login({ url: `http://127.0.0.1:${first.port}`, adminPassword: adminPassword() });
});

test('kill -9 of kapiserver: its child exits by itself and the stale lock does not block the next start', {
  timeout: 180_000,
}, async () => {
  const childPid = lockHolder(devLock)!;
  first.child.kill('SIGKILL');
  await first.exited;
  await eventually(async () => !isRunning(childPid), 10_000, 'the orphaned dev cluster to exit');
  assert.equal(lockHolder(join(dataDir, 'kapiserver.lock')), first.child.pid, 'a stale lock was left behind');

  const next = await startKapiserverProcess(common);
  running.push(next);
  await login({ url: `http://127.0.0.1:${next.port}`, adminPassword: adminPassword() });
  const nextChild = lockHolder(devLock)!;
  next.child.kill('SIGTERM');
  assert.equal(await next.exited, 0, next.stderr());
  assert.equal(isRunning(nextChild), false, 'an orderly stop stops the child too');
  assert.equal(lockHolder(devLock), undefined, 'and releases both locks');
  assert.equal(lockHolder(join(dataDir, 'kapiserver.lock')), undefined);
});
