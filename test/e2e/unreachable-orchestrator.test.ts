// kapiserver started on a kubeconfig whose cluster does not answer: it listens at once (/livez 200, /readyz 503
// naming the orchestrator), says why once per retry interval, and serves as soon as the cluster comes up.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type DevClusterProcess, startDevClusterProcess } from '../helpers/devcluster.ts';
import { eventually, login } from '../helpers/oauth.ts';
import { type KapiserverProcess, localFlags, startKapiserverProcess } from '../helpers/process.ts';

const devDir = mkdtempSync(join(tmpdir(), 'unreachable-dev-'));
const dataDir = mkdtempSync(join(tmpdir(), 'unreachable-kapi-'));
let kapi: KapiserverProcess | undefined;
let dev: DevClusterProcess | undefined;
after(async () => {
  kapi?.child.kill('SIGKILL');
  await dev?.close();
  rmSync(devDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

interface LogLine {
  level: number;
  time: string;
  msg: string;
  server?: string;
  reason?: string;
}

const lines = (p: KapiserverProcess): LogLine[] =>
  p
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

test('listens at once on an unreachable cluster, reports it, and serves once the cluster answers', {
  timeout: 180_000,
}, async () => {
  // A dev cluster's files (CA, token, kubeconfig) for a port on which, for now, nothing listens.
  const once = await startDevClusterProcess(devDir);
  const port = once.port;
  await once.close();
  const kubeconfig = join(devDir, 'devcluster', 'kubeconfig');

  const started = Date.now();
  kapi = await startKapiserverProcess(localFlags(dataDir, kubeconfig));
  const p = kapi;
  // Bounded by the process start itself: before, start-up waited 40 s on steps that needed the cluster.
  assert.ok(Date.now() - started < 30_000, `listening took ${Date.now() - started} ms`);
  const livez = await fetch(`http://127.0.0.1:${p.port}/livez`);
  assert.equal(livez.status, 200);
  const readyz = await fetch(`http://127.0.0.1:${p.port}/readyz`);
  assert.equal(readyz.status, 503);
  assert.match(await readyz.text(), /\[-\]orchestrator failed/);

  // One clear line per probe interval (5 s) saying what and why; the other retry loops stay quiet meanwhile.
  const since = Date.now();
  await new Promise((r) => setTimeout(r, 11_000));
  const window = lines(p).filter((l) => Date.parse(l.time) >= since);
  const reports = window.filter((l) => l.msg.startsWith('orchestrator unreachable'));
  assert.ok(reports.length >= 2 && reports.length <= 3, JSON.stringify(reports));
  assert.equal(reports[0].level, 50);
  assert.equal(reports[0].server, `https://127.0.0.1:${port}`);
  assert.match(String(reports[0].reason), /ECONNREFUSED/);
  const noise = window.filter((l) => l.level >= 40 && !l.msg.startsWith('orchestrator unreachable'));
  assert.deepEqual(
    noise.map((l) => l.msg),
    [],
  );

  dev = await startDevClusterProcess(devDir, { port });
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${p.port}/readyz`)).status === 200,
    60_000,
    '/readyz 200 once the cluster answers',
  );
  assert.ok(lines(p).some((l) => l.msg === 'orchestrator reachable'));
  const adminPassword = readFileSync(join(dataDir, 'initial-admin-password'), 'utf8').trim();
  const tokens = await login({ url: `http://127.0.0.1:${p.port}`, adminPassword });
  assert.ok(tokens.access_token);
});
