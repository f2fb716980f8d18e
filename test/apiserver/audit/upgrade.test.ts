// Upgrade requests (exec, attach, port-forward) bypass fastify's hooks; they are still audited and counted, both when
// refused and when the orchestrator answers (with its real code: the dev cluster has no pod web-0 and answers 404,
// which is relayed, not turned into a tunnel), and with both identities when the caller impersonates someone.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { AuditEvent } from '../../../src/apiserver/audit/index.ts';
import { createUser, login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

let stack: TestStack;
const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-audit-upgrade-'));
const auditLog = join(dataDir, 'audit.log');

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

/** Sends an upgrade request on a raw socket; resolves with the first response line. */
function upgrade(path: string, token?: string, extra: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(stack.api.port, '127.0.0.1', () => {
      socket.write(
        [
          `POST ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          'Connection: Upgrade',
          'Upgrade: SPDY/3.1',
          'X-Stream-Protocol-Version: v4.channel.k8s.io',
          'User-Agent: upgrade-audit-test',
          ...(token ? [`Authorization: Bearer ${token}`] : []),
          ...extra,
          '',
          '',
        ].join('\r\n'),
      );
    });
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(data.split('\r\n')[0]);
    }, 5000);
    socket.on('data', (d) => {
      data += d;
      if (data.includes('\r\n')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(data.split('\r\n')[0]);
      }
    });
    socket.on('error', reject);
  });
}

test('exec refused, exec answered by the orchestrator and exec as an impersonated user are all audited', {
  timeout: 60_000,
}, async () => {
  const path = '/api/v1/namespaces/default/pods/web-0/exec?command=sh&stdin=true&tty=true';
  const refused = await upgrade(path);
  assert.match(refused, / 401 /);
  const admin = await login(stack);
  // The orchestrator's own answer (the dev cluster has no pod web-0) is relayed and audited.
  assert.match(await upgrade(path, admin.access_token), / 404 /);
  await createUser(stack, 'auditee', 'Aud1tee-passw0rd');
  assert.match(await upgrade(path, admin.access_token, ['Impersonate-User: auditee']), / 403 /);
  await stack.api.context.audit?.close();

  const events = readFileSync(auditLog, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.userAgent === 'upgrade-audit-test');
  assert.equal(events.length, 3, JSON.stringify(events));
  const [anon, adminEvent, impersonated] = events;
  assert.equal(anon.responseStatus.code, 401);
  assert.equal(anon.user.username, 'system:anonymous');
  assert.equal(adminEvent.user.username, 'admin');
  assert.equal(adminEvent.impersonatedUser, undefined);
  assert.equal(adminEvent.responseStatus.code, 404);
  assert.deepEqual(adminEvent.objectRef, {
    resource: 'pods',
    namespace: 'default',
    name: 'web-0',
    apiVersion: 'v1',
    subresource: 'exec',
  });
  assert.equal(impersonated.user.username, 'admin');
  assert.deepEqual(impersonated.impersonatedUser, {
    username: 'auditee',
    groups: ['system:authenticated'],
  });
  assert.equal(impersonated.responseStatus.code, 403);
  assert.ok(!readFileSync(auditLog, 'utf8').includes(admin.access_token));

  const metrics = await stack.api.context.metrics?.render();
  assert.match(
    metrics ?? '',
    /ks_server_request_total\{[^}]*resource="pods",subresource="exec"[^}]*code="404"\} 1/,
  );
});
