// The real `kapiserver` process and its embedded dev cluster child: stdout carries only JSON, the certificate names
// the extra SANs, one process per data directory, the child's work never stalls kapiserver, a crashed child is
// restarted, and no child outlives kapiserver.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { devClusterOf } from '../helpers/devcluster.ts';
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

/** POSTs a JSON file from a child process; resolves with the status code. */
function postFromChild(url: string, token: string, caPem: string, bodyFile: string): Promise<number> {
  const script = `
    const fs = require('node:fs');
    const body = fs.readFileSync(process.env.BODY_FILE);
    const req = require('node:https').request(process.env.URL, {
      method: 'POST',
      ca: process.env.CA_PEM,
      headers: { Authorization: 'Bearer ' + process.env.TOKEN, 'Content-Type': 'application/json' },
    }, (res) => { res.resume(); res.on('end', () => process.stdout.write(String(res.statusCode))); });
    req.on('error', (err) => { console.error(err.message); process.exit(1); });
    req.end(body);`;
  const child = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, URL: url, TOKEN: token, CA_PEM: caPem, BODY_FILE: bodyFile },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(Number(out)) : reject(new Error(`POST failed: ${err}`)),
    ),
  );
}

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
  // waited for them (2.5 s and more). The writes are sent by another process, so encrypting and sending them never
  // delays this process's probes and their timers.
  const data: Record<string, string> = {};
  for (let i = 0; i < 130_000; i++) data[`k${i}`] = `v${i}`;
  const writes = [0, 1].map((n) => {
    const bodyFile = join(dataDir, `heavy-${n}.json`);
    writeFileSync(bodyFile, JSON.stringify({ metadata: { name: `heavy-${n}` }, data }));
    return postFromChild(`${dev.url}/api/v1/namespaces/default/configmaps`, dev.token, dev.caPem, bodyFile);
  });
  // Shown by order, not by a time bound (a loaded machine slows everything): /healthz probes of kapiserver's that begin
  // and end while one of the dev cluster's own /healthz waits out a write. On one event loop they would wait too.
  let writing = true;
  const written = Promise.allSettled(writes).finally(() => {
    writing = false;
  });
  type Span = [number, number];
  const probeLoop = async (probe: () => Promise<number>, gapMs: number) => {
    const spans: Span[] = [];
    while (writing) {
      const t0 = performance.now();
      assert.equal(await probe(), 200);
      spans.push([t0, performance.now()]);
      await new Promise((r) => setTimeout(r, gapMs));
    }
    return spans;
  };
  const devHealthz = () =>
    new Promise<number>((resolve, reject) => {
      https
        .get(`${dev.url}/healthz`, { ca: dev.caPem }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject);
    });
  const kapiHealthz = async () => {
    const res = await fetch(`http://127.0.0.1:${first.port}/healthz`);
    await res.text();
    return res.status;
  };
  let spans: Span[][];
  try {
    spans = await Promise.all([probeLoop(devHealthz, 20), probeLoop(kapiHealthz, 10)]);
  } finally {
    await written;
  }
  assert.deepEqual(await Promise.all(writes), [201, 201]);
  const [devSpans, kapiSpans] = spans;
  const inside = kapiSpans.filter(([s0, s1]) => devSpans.some(([d0, d1]) => d0 < s0 && s1 < d1));
  const slowestDev = Math.max(...devSpans.map(([d0, d1]) => d1 - d0));
  assert.ok(
    inside.length >= 2,
    `${inside.length} of ${kapiSpans.length} kapiserver probes answered within a dev cluster probe (its slowest ${Math.round(slowestDev)} ms)`,
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
  await healthzWithin(first, 10_000);
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
