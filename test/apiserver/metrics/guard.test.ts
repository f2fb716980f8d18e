// On the full stack (dev cluster + kapiserver with the real token issuance and filter chain): /metrics and
// /kapis/metrics need a token, and a user whose roles do not grant the non-resource URL /metrics is refused; audit
// events carry the authenticated user and never a password or token.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { AuditEvent } from '../../../src/apiserver/audit/index.ts';
import { bearer, createUser, login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

let stack: TestStack;
const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-guard-'));
const auditLog = join(dataDir, 'audit', 'audit.log');

before(async () => {
  stack = await startTestStack({
    dataDir,
    configDocument: { auditing: { enable: true, logPath: auditLog } },
  });
});
after(async () => {
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('without a token /metrics and /kapis/metrics answer 401; with the admin token they serve metrics', {
  timeout: 60_000,
}, async () => {
  for (const path of ['/metrics', '/kapis/metrics']) {
    const anon = await fetch(`${stack.url}${path}`);
    assert.equal(anon.status, 401, path);
    assert.equal(((await anon.json()) as { kind: string }).kind, 'Status');
  }
  const admin = await login(stack);
  const res = await fetch(`${stack.url}/metrics`, { headers: bearer(admin) });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.match(text, /ks_server_request_total\{[^}]*component="oauth"[^}]*code="200"\} \d+/);
  assert.match(
    text,
    /kapiserver_oauth_token_requests_total\{grant_type="password",result="success",error=""\} [1-9]/,
  );
  assert.match(text, /kapiserver_component_healthy\{component="orchestrator"\} 1/);
  assert.match(text, /kapiserver_component_healthy\{component="token-store"\} 1/);
  assert.match(text, /kapiserver_cache_synced\{resource="[^"]*nodes"\} 1/);
  assert.match(text, /process_resident_memory_bytes \d+/);
});

test('a user without a role granting /metrics is refused with 403', { timeout: 60_000 }, async () => {
  await createUser(stack, 'metrics-reader', 'Metr1cs-Reader-Pw');
  const user = await login(stack, 'metrics-reader', 'Metr1cs-Reader-Pw');
  for (const path of ['/metrics', '/kapis/metrics']) {
    const res = await fetch(`${stack.url}${path}`, { headers: bearer(user) });
    assert.equal(res.status, 403, path);
    const body = (await res.json()) as { kind: string; reason: string; message: string };
    assert.equal(body.reason, 'Forbidden');
    assert.match(body.message, /metrics-reader/);
  }
});

test('audit events name the authenticated user and carry no password or token', {
  timeout: 60_000,
}, async () => {
  const admin = await login(stack);
  const res = await fetch(
    `${stack.url}/kapis/resources.kubesphere.io/v1alpha3/namespaces/default/pods?limit=5`,
    {
      headers: { ...bearer(admin), 'user-agent': 'guard-test/1.0' },
    },
  );
  assert.equal(res.status, 200);
  await stack.api.context.audit?.close(); // flush
  const text = readFileSync(auditLog, 'utf8');
  const events = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEvent);
  const list = events.find((e) => e.userAgent === 'guard-test/1.0');
  assert.ok(list, text);
  assert.equal(list.user.username, 'admin');
  assert.ok(list.user.groups.includes('system:authenticated'));
  assert.equal(list.verb, 'list');
  assert.deepEqual(list.objectRef, {
    resource: 'pods',
    namespace: 'default',
    apiGroup: 'resources.kubesphere.io',
    apiVersion: 'v1alpha3',
  });
  assert.equal(list.responseStatus.code, 200);
  assert.ok(events.some((e) => e.requestURI === '/oauth/token' && e.responseStatus.code === 200));
  for (const secret of [stack.adminPassword, admin.access_token, admin.refresh_token, 'Metr1cs-Reader-Pw']) {
    assert.ok(!text.includes(secret), 'a credential reached the audit log');
  }
});
