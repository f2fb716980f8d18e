// The real `kapiserver` command: starts on the embedded dev cluster, answers on both ports, stops cleanly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { bearer, login } from '../helpers/oauth.ts';
import {
  KAPISERVER,
  type KapiserverProcess,
  localFlags,
  ROOT,
  startKapiserverProcess,
} from '../helpers/process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-process-'));
const running: KapiserverProcess[] = [];
after(() => {
  for (const p of running) p.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const common = localFlags(dataDir);

function httpsGet(port: number, path: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path, ca, servername: 'localhost' }, (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

test('starts, answers /healthz on HTTP and verified HTTPS, and stops on SIGTERM within 5 s', {
  timeout: 120_000,
}, async () => {
  const p = await startKapiserverProcess(common);
  running.push(p);
  const plain = await fetch(`http://127.0.0.1:${p.port}/healthz`);
  assert.equal(plain.status, 200);
  assert.equal(await plain.text(), 'ok');

  const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  const secure = await httpsGet(p.securePort, '/healthz', ca);
  assert.equal(secure.status, 200);
  assert.equal(secure.body, 'ok');
  // Without the generated CA the certificate is not trusted: verification is really on.
  await assert.rejects(httpsGet(p.securePort, '/healthz', ''), /self-signed|unable to verify|certificate/i);

  const version = (await (await fetch(`http://127.0.0.1:${p.port}/kapis/version`)).json()) as Record<
    string,
    unknown
  >;
  assert.match(String(version.gitVersion), /^v\d+\.\d+\.\d+/);
  assert.equal(typeof (version.kubernetes as Record<string, unknown>)?.gitVersion, 'string');
  assert.equal(version.major, '1');

  const started = Date.now();
  p.child.kill('SIGTERM');
  const code = await p.exited;
  assert.equal(code, 0, p.stderr());
  assert.ok(Date.now() - started < 5000, `shutdown took ${Date.now() - started} ms`);
  assert.match(p.stdout(), /"shutdown complete"/);
});

test('restarts on the same data directory, reuses its certificates, reports the image build', {
  timeout: 120_000,
}, async () => {
  const before = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  const p = await startKapiserverProcess(common, {
    KAPISERVER_GIT_COMMIT: 'abc1234',
    KAPISERVER_BUILD_DATE: '2026-01-02T03:04:05Z',
  });
  running.push(p);
  const version = (await (await fetch(`http://127.0.0.1:${p.port}/kapis/version`)).json()) as Record<
    string,
    unknown
  >;
  assert.deepEqual(
    [version.gitCommit, version.gitTreeState, version.buildDate],
    ['abc1234', 'clean', '2026-01-02T03:04:05Z'],
  );
  const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
  assert.equal(ca, before);
  assert.equal((await httpsGet(p.securePort, '/livez', ca)).status, 200);
  p.child.kill('SIGINT');
  assert.equal(await p.exited, 0);
});

test('a token issued before a restart still opens the API after it', { timeout: 120_000 }, async () => {
  const first = await startKapiserverProcess(common);
  running.push(first);
  const password = readFileSync(join(dataDir, 'initial-admin-password'), 'utf8').trim();
  const tokens = await login({ url: `http://127.0.0.1:${first.port}`, adminPassword: password });
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);

  const second = await startKapiserverProcess(common);
  running.push(second);
  const nodes = await fetch(`http://127.0.0.1:${second.port}/kapis/resources.kubesphere.io/v1alpha3/nodes`, {
    headers: bearer(tokens),
  });
  assert.equal(nodes.status, 200, await nodes.clone().text());
  assert.ok(((await nodes.json()) as { totalItems: number }).totalItems > 0);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});

test('logs never carry the Authorization header or the query string', { timeout: 120_000 }, async () => {
  const p = await startKapiserverProcess(common);
  running.push(p);
  await fetch(`http://127.0.0.1:${p.port}/healthz?token=sekrit-query-value`, {
    headers: { authorization: 'Bearer sekrit-header-value' },
  });
  p.child.kill('SIGTERM');
  await p.exited;
  const log = p.stdout();
  assert.match(log, /"path":"\/healthz"/);
  assert.match(log, /"status":200/);
  assert.match(log, /"latencyMs":/);
  assert.doesNotMatch(log, /sekrit/);
  // Each line is one JSON object whose keys appear once (pino repeats a key a child binds again).
  for (const line of log.split('\n').filter((l) => l.startsWith('{'))) {
    assert.equal(typeof JSON.parse(line), 'object');
    assert.ok((line.match(/"component":/g) ?? []).length <= 1, line);
  }
});

test('--config with a wrong type exits non-zero with one line naming the field', () => {
  const bad = join(dataDir, 'bad.yaml');
  writeFileSync(bad, 'authentication:\n  authenticateRateLimiterMaxTries: "many"\n');
  const r = spawnSync(process.execPath, [...KAPISERVER, '--config', bad, ...common], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.notEqual(r.status, 0);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /authentication\.authenticateRateLimiterMaxTries/);
});

test('--help prints usage and bad flags are refused', () => {
  const help = spawnSync(process.execPath, [...KAPISERVER, '--help'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(help.status, 0);
  for (const flag of [
    '--port',
    '--secure-port',
    '--config',
    '--kubeconfig',
    '--data-dir',
    '--tls-cert-file',
    '--log-level',
  ]) {
    assert.ok(help.stdout.includes(flag), flag);
  }
  const bad = spawnSync(process.execPath, [...KAPISERVER, '--port', 'eighty'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--port: expected a port number/);
});
