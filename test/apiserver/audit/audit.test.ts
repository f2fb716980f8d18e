// Audit events through the real filter chain over HTTP: content of each event, credentials never recorded, the file
// and webhook sinks, batching, and a webhook that hangs never slowing requests down.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import { type AuditEvent, createAuditor, redactRequestUri } from '../../../src/apiserver/audit/index.ts';
import type { ServerContext } from '../../../src/apiserver/context.ts';
import { createApiMetrics } from '../../../src/apiserver/metrics/index.ts';
import { type ApiServer, buildApiServer } from '../../../src/apiserver/server.ts';
import { configFromDocument } from '../../../src/config/index.ts';
import { TEST_USER, testServerContext } from '../../helpers/server-context.ts';

const dir = mkdtempSync(join(tmpdir(), 'kapiserver-audit-'));
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
  rmSync(dir, { recursive: true, force: true });
});

interface Webhook {
  url: string;
  batches: { Items: AuditEvent[] }[];
  /** When set, requests are held open (a hanging webhook). */
  hang: boolean;
}

async function startWebhook(): Promise<Webhook> {
  const hook: Webhook = { url: '', batches: [], hang: false };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      if (hook.hang) return;
      hook.batches.push(JSON.parse(body) as { Items: AuditEvent[] });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/audit/webhook/event`;
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return hook;
}

async function startServer(
  auditing: Record<string, unknown>,
): Promise<{ server: ApiServer; base: string; ctx: ServerContext; token: string }> {
  // /metrics is read as a user allowed everything; the audited requests carry no valid token.
  const { config } = configFromDocument({ auditing, authorization: { mode: 'AlwaysAllow' } }, 'in test');
  const { ctx, token, close } = testServerContext({ config, dataDir: dir, user: TEST_USER });
  const server = await buildApiServer(ctx);
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(async () => {
    await server.close();
    await close();
  });
  return { server, base: `http://127.0.0.1:${port}`, ctx, token };
}

test('request URIs keep their shape but lose credential values', () => {
  assert.equal(
    redactRequestUri('/oauth/authorize?client_id=ks&code=abc&state=xyz&redirect_uri=http://x'),
    '/oauth/authorize?client_id=ks&code=[redacted]&state=[redacted]&redirect_uri=http://x',
  );
  assert.equal(
    redactRequestUri('/api/v1/pods?labelSelector=a%3Db&access_token=eyJ.x.y&limit=5'),
    '/api/v1/pods?labelSelector=a%3Db&access_token=[redacted]&limit=5',
  );
  assert.equal(
    redactRequestUri('/kapis/x?Password=p&client_secret=s'),
    '/kapis/x?Password=[redacted]&client_secret=[redacted]',
  );
  assert.equal(redactRequestUri('/healthz'), '/healthz');
});

test('the file sink writes one JSON event per request with who, what, where and how it ended', async () => {
  const logPath = join(dir, 'audit', 'audit.log');
  const { base, ctx } = await startServer({ enable: true, logPath });
  const secret = 'eyJhbGciOiJIUzI1NiJ9.c2VrcmV0LXRva2Vu.c2lnbmF0dXJl';
  await (
    await fetch(`${base}/api/v1/namespaces/demo/secrets/db-password?token=${secret}&watch=false`, {
      headers: {
        authorization: `Bearer ${secret}`,
        'user-agent': 'kubectl/v1.33.0 (linux/amd64)',
        'x-forwarded-for': '203.0.113.7',
      },
    })
  ).text();
  await (
    await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=admin&password=Sup3r-Secret-Pw&client_id=kubesphere&client_secret=kubesphere',
    })
  ).text();
  await (await fetch(`${base}/healthz`)).text(); // probes are not audited
  await (
    await fetch(`${base}/kapis/resources.kubesphere.io/v1alpha3/workspaces/ws1/namespaces/demo/pods`)
  ).text();
  await ctx.audit?.close();

  const text = readFileSync(logPath, 'utf8');
  const events = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEvent);
  assert.equal(events.length, 3, text);
  const [secretGet, token, list] = events;

  assert.equal(secretGet.kind, 'Event');
  assert.equal(secretGet.apiVersion, 'audit.k8s.io/v1');
  assert.equal(secretGet.stage, 'ResponseComplete');
  assert.match(secretGet.auditID, /^[0-9a-f-]{36}$/);
  assert.equal(secretGet.verb, 'get');
  assert.deepEqual(secretGet.objectRef, {
    resource: 'secrets',
    namespace: 'demo',
    name: 'db-password',
    apiVersion: 'v1',
  });
  assert.equal(typeof secretGet.responseStatus.code, 'number');
  assert.equal(secretGet.userAgent, 'kubectl/v1.33.0 (linux/amd64)');
  assert.deepEqual(secretGet.sourceIPs, ['203.0.113.7', '127.0.0.1']);
  assert.equal(
    secretGet.requestURI,
    '/api/v1/namespaces/demo/secrets/db-password?token=[redacted]&watch=false',
  );
  assert.equal(typeof secretGet.latencyMs, 'number');
  assert.ok(Date.parse(secretGet.stageTimestamp) >= Date.parse(secretGet.requestReceivedTimestamp));
  // No token was sent: the event records the anonymous caller (whatever the filters answered).
  assert.equal(secretGet.user.username, 'system:anonymous');

  assert.equal(token.verb, 'post');
  assert.equal(token.requestURI, '/oauth/token');
  assert.equal(token.objectRef, undefined);

  assert.equal(list.verb, 'list');
  assert.equal(list.Workspace, 'ws1');
  assert.equal(list.objectRef?.namespace, 'demo');

  for (const needle of [secret, 'Sup3r-Secret-Pw', 'client_secret', 'Bearer']) {
    assert.ok(!text.includes(needle), `audit log contains ${needle}`);
  }
});

test('the webhook sink batches events as a KubeSphere EventList', async () => {
  const hook = await startWebhook();
  const { base, ctx, token } = await startServer({
    enable: true,
    webhookUrl: hook.url,
    eventBatchSize: 5,
    eventBatchInterval: '200ms',
  });
  for (let i = 0; i < 12; i++) await (await fetch(`${base}/api/v1/namespaces/n${i}/configmaps`)).text();
  // Two full batches go at once; the last two events wait for the interval.
  for (let i = 0; i < 100 && hook.batches.flatMap((b) => b.Items).length < 12; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const items = hook.batches.flatMap((b) => b.Items);
  assert.equal(items.length, 12);
  assert.ok(hook.batches.every((b) => b.Items.length <= 5));
  assert.deepEqual(
    items.map((e) => e.objectRef?.namespace).sort(),
    Array.from({ length: 12 }, (_, i) => `n${i}`).sort(),
  );
  const scraped = await (
    await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } })
  ).text();
  assert.match(scraped, /kapiserver_audit_events_total\{sink="webhook",outcome="written"\} 12/);
  await ctx.audit?.close();
});

test('a hanging webhook never delays requests; overflow is dropped and counted', async () => {
  const hook = await startWebhook();
  hook.hang = true;
  const logger = pino({ level: 'silent' });
  const metrics = createApiMetrics();
  const auditor = createAuditor(
    {
      enable: true,
      logPath: '',
      webhookUrl: hook.url,
      eventSendersNum: 1,
      eventBatchSize: 10,
      eventBatchInterval: 50,
    },
    logger,
    metrics.auditEvent,
  );
  assert.ok(auditor);
  const sink = auditor.sinks[0];
  const { base } = await startServer({});
  // Fill well past the bounded queue (10,000) while the only sender is stuck.
  const event = JSON.parse(JSON.stringify({ kind: 'Event', verb: 'get' })) as AuditEvent;
  const started = performance.now();
  for (let i = 0; i < 12_000; i++) sink.write(event);
  const enqueueMs = performance.now() - started;
  assert.ok(enqueueMs < 2000, `enqueueing took ${enqueueMs} ms`);
  // The server keeps answering while the webhook hangs.
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  const text = await metrics.render();
  const dropped = Number(
    /kapiserver_audit_events_total\{sink="webhook",outcome="dropped"\} (\d+)/.exec(text)?.[1],
  );
  assert.ok(dropped >= 1990, `dropped ${dropped}`);
  const closing = performance.now();
  await auditor.close();
  assert.ok(performance.now() - closing < 6000, 'close is bounded by its deadline');
});

test('the auditing section takes KubeSphere batching options; bad values name the field', () => {
  const { config } = configFromDocument(
    {
      auditing: {
        enable: true,
        webhookUrl: 'http://x',
        eventBatchSize: 7,
        eventBatchInterval: '1m30s',
        eventSendersNum: 2,
      },
    },
    'in test',
  );
  assert.equal(config.auditing.eventBatchSize, 7);
  assert.equal(config.auditing.eventBatchInterval, 90_000);
  assert.equal(config.auditing.eventSendersNum, 2);
  assert.equal(configFromDocument({}, 'in test').config.auditing.eventBatchInterval, 3000);
  assert.throws(
    () => configFromDocument({ auditing: { eventBatchSize: 0 } }, 'in test'),
    /auditing\.eventBatchSize/,
  );
  assert.throws(
    () => configFromDocument({ auditing: { eventBatchInterval: 'soon' } }, 'in test'),
    /auditing\.eventBatchInterval/,
  );
});
