// Forwarding through a recording hop (spy.ts) between kapiserver and the dev cluster: header hygiene (the client's
// Authorization, Impersonate-*, X-Remote-*, cookies and hop-by-hop headers never reach the orchestrator; kapiserver's
// credentials do; a body sent after 100 Continue goes through, Expect does not), bodies streamed both ways (an upload
// reaches the orchestrator before the client has finished; a client that goes away closes the upstream request; a
// client that reads slowly gets the whole answer), upgrades authenticated and authorized like every request and
// then tunnelled over TLS, path tricks and oversized requests answered with 4xx without reaching the orchestrator,
// and an orchestrator outage answered with 503 Status + failing /readyz, recovering without a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import { type DevCluster, startDevCluster } from '../../../src/devcluster/index.ts';
import { bearer, createUser, devRest, eventually, login } from '../../helpers/oauth.ts';
import { type Spy, startSpy } from '../../helpers/spy.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

let dir: string;
let dev: DevCluster;
let spy: Spy;
let stack: TestStack;
let adminToken: string;
let aliceToken: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-fwd-'));
  dev = await startDevCluster({ dataDir: join(dir, 'dev'), port: 0 });
  spy = await startSpy(dev, join(dir, 'spy'));
  stack = await startTestStack({ dev, clusterKubeconfigPath: spy.kubeconfigPath });
  adminToken = (await login(stack)).access_token;
  await createUser(stack, 'alice', 'Al1ce-passw0rd');
  aliceToken = (await login(stack, 'alice', 'Al1ce-passw0rd')).access_token;
});

after(async () => {
  await stack?.close();
  await spy?.stop().catch(() => {});
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request with the path sent verbatim (fetch would normalise dot segments away); with `expect: 100-continue`, the
 * body waits for the server's 100 Continue, as curl's does.
 */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  const u = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (headers.expect === '100-continue') req.on('continue', () => req.end(body));
    else req.end(body);
  });
}

const lastSeen = (pred: (url: string) => boolean) => [...spy.seen].reverse().find((s) => pred(s.url));

test('client credentials, Impersonate-*, X-Remote-* and hop-by-hop headers are stripped; kapiserver authenticates', {
  timeout: 60_000,
}, async () => {
  const res = await raw('GET', '/api/v1/namespaces/default/configmaps?marker=hygiene', {
    ...bearer(adminToken),
    // admin may impersonate: kapiserver applies these itself and forwards none of them.
    'Impersonate-User': 'admin',
    'Impersonate-Group': 'system:masters',
    'Impersonate-Uid': '0',
    'Impersonate-Extra-Scopes': 'all',
    'X-Remote-User': 'system:admin',
    Cookie: 'token=secret-cookie',
    Connection: 'keep-alive, X-Drop-Me',
    'X-Drop-Me': 'dropped',
    'Proxy-Authorization': 'Basic eDp5',
    'X-Kept': 'kept',
  });
  assert.equal(res.status, 200, res.body);
  assert.equal((JSON.parse(res.body) as { kind: string }).kind, 'ConfigMapList');
  const s = lastSeen((u) => u.includes('marker=hygiene'));
  assert.ok(s, 'the request reached the orchestrator');
  assert.equal(s.headers.authorization, `Bearer ${dev.token}`);
  for (const h of Object.keys(s.headers)) {
    assert.ok(!h.startsWith('impersonate-'), `${h} must not be forwarded`);
    assert.ok(!h.startsWith('x-remote-'), `${h} must not be forwarded`);
  }
  assert.equal(s.headers.cookie, undefined);
  assert.equal(s.headers['x-drop-me'], undefined);
  assert.equal(s.headers['proxy-authorization'], undefined);
  assert.equal(s.headers['x-kept'], 'kept');
});

test('a body sent after 100 Continue (curl does so past 1 MB) is forwarded; Expect itself is not', {
  timeout: 60_000,
}, async () => {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-continue' } });
  const res = await raw(
    'POST',
    '/api/v1/namespaces/default/configmaps?marker=continue',
    { ...bearer(adminToken), 'content-type': 'application/json', expect: '100-continue' },
    body,
  );
  assert.equal(res.status, 201, res.body);
  const s = lastSeen((x) => x.includes('marker=continue'));
  assert.ok(s, 'the request reached the orchestrator');
  assert.equal(s.headers.expect, undefined);
});

test('an upload streams to the orchestrator before the client finishes; a client that goes away aborts it', {
  timeout: 60_000,
}, async () => {
  const u = new URL(stack.url);
  const req = http.request({
    host: u.hostname,
    port: u.port,
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps?marker=stall',
    headers: { ...bearer(adminToken), 'content-type': 'application/json', 'content-length': '100000' },
  });
  req.on('error', () => {});
  req.write('{"apiVersion":"v1","kind":"ConfigMap",');
  const s = await eventually(
    async () => lastSeen((x) => x.includes('marker=stall')),
    15_000,
    'upload to reach upstream',
  );
  await eventually(async () => s.received > 0, 15_000, 'first body bytes upstream');
  assert.equal(s.closed, false);
  req.destroy(); // the client stalls and then goes away mid-upload
  await eventually(async () => s.closed, 15_000, 'upstream request to be closed');
});

test('a watch streams events and closing it closes the upstream watch', { timeout: 60_000 }, async () => {
  const u = new URL(stack.url);
  const lines: string[] = [];
  const req = http.request({
    host: u.hostname,
    port: u.port,
    path: '/api/v1/namespaces/default/configmaps?watch=true&marker=watch',
    headers: bearer(adminToken),
  });
  const response = new Promise<http.IncomingMessage>((r) => req.on('response', r));
  req.on('error', () => {});
  req.end();
  const res = await response;
  assert.equal(res.statusCode, 200);
  res.setEncoding('utf8');
  res.on('data', (d: string) => lines.push(...d.split('\n').filter(Boolean)));
  res.on('error', () => {});
  const create = await fetch(`${stack.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { ...bearer(adminToken), 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'streamed' } }),
  });
  assert.equal(create.status, 201);
  await eventually(async () => lines.some((l) => l.includes('"streamed"')), 15_000, 'watch event');
  const s = lastSeen((x) => x.includes('marker=watch'));
  assert.ok(s && !s.closed);
  req.destroy();
  await eventually(async () => s.closed, 15_000, 'upstream watch to be closed');
});

test('a client that reads slowly gets the whole answer: reading upstream pauses and resumes with it', {
  timeout: 60_000,
}, async () => {
  const rest = devRest({ dev });
  await rest.create('/api/v1/namespaces', { metadata: { name: 'slow-reader' } });
  for (let i = 0; i < 40; i++) {
    await rest.create('/api/v1/namespaces/slow-reader/configmaps', {
      metadata: { name: `big-${i}` },
      data: { payload: 'x'.repeat(50_000) },
    });
  }
  const u = new URL(stack.url);
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: '/api/v1/namespaces/slow-reader/configmaps',
      headers: bearer(adminToken),
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
  assert.equal(res.statusCode, 200);
  // Not read for a while: kapiserver's writes to this client back up (2 MB, more than the sockets buffer).
  res.pause();
  await new Promise((r) => setTimeout(r, 1000));
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const list = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    items: { metadata: { name: string } }[];
  };
  assert.equal(list.items.filter((c) => c.metadata.name.startsWith('big-')).length, 40);
});

test('with authorization.impersonate the authenticated user is passed on', {
  timeout: 60_000,
}, async () => {
  // The orchestrator now authorizes the request as that user, so the user needs a binding there too.
  const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
  await devRest({ dev }).create(`${rbac}/roles`, {
    metadata: { name: 'impersonated-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
  });
  await devRest({ dev }).create(`${rbac}/rolebindings`, {
    metadata: { name: 'impersonated-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'impersonated-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'admin' }],
  });
  const config = stack.api.context.config.current();
  config.authorization.impersonate = true;
  try {
    const res = await raw('GET', '/api/v1/namespaces/default/configmaps?marker=impersonate', {
      ...bearer(adminToken),
    });
    assert.equal(res.status, 200, res.body);
    const s = lastSeen((u) => u.includes('marker=impersonate'));
    assert.ok(s);
    assert.equal(s.headers['impersonate-user'], 'admin');
    const groups = String(s.headers['impersonate-group']).split(', ');
    assert.ok(groups.includes('system:authenticated'), String(s.headers['impersonate-group']));
    assert.ok(!groups.includes('system:masters'));
    assert.equal(s.headers.authorization, `Bearer ${dev.token}`);
  } finally {
    config.authorization.impersonate = false;
  }
});

/** Sends an upgrade request over TLS to kapiserver's HTTPS port; resolves with the response head and the socket. */
function upgrade(
  path: string,
  headers: Record<string, string>,
): Promise<{ head: string; socket: tls.TLSSocket; rest: Buffer }> {
  const u = new URL(stack.secureUrl);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: u.hostname, port: Number(u.port), ca: stack.caPem }, () => {
      const lines = [`GET ${path} HTTP/1.1`, `Host: ${u.host}`, 'Connection: Upgrade', 'Upgrade: websocket'];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      resolve({ head: buf.subarray(0, end).toString(), socket, rest: buf.subarray(end + 4) });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

test('upgrades (exec) run the same authentication and authorization, then tunnel to the orchestrator', {
  timeout: 60_000,
}, async () => {
  const path = '/api/v1/namespaces/default/pods/web/exec?command=sh&stdin=true';
  const anon = await upgrade(path, {});
  assert.match(anon.head, /^HTTP\/1.1 401/);
  anon.socket.destroy();

  const denied = await upgrade(path, bearer(aliceToken));
  assert.match(denied.head, /^HTTP\/1.1 403/);
  const status = await new Promise<string>((r) => {
    let t = denied.rest.toString();
    denied.socket.on('data', (d) => {
      t += d;
    });
    denied.socket.on('close', () => r(t));
  });
  assert.equal(
    (JSON.parse(status) as { message: string }).message,
    'pods "web" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "default"',
  );

  const before = spy.seen.length;
  const ok = await upgrade(path, bearer(adminToken));
  assert.match(ok.head, /^HTTP\/1.1 101/);
  const echoed = new Promise<string>((r) => ok.socket.once('data', (d) => r(d.toString())));
  ok.socket.write('hello through the tunnel');
  assert.equal(await echoed, 'hello through the tunnel');
  ok.socket.destroy();
  const s = spy.seen.slice(before).find((x) => x.upgrade);
  assert.ok(s, 'the upgrade reached the orchestrator');
  assert.equal(s.headers.authorization, `Bearer ${dev.token}`);
  assert.equal(s.headers['impersonate-user'], undefined);
  assert.equal(s.headers.upgrade, 'websocket');
  // Nothing refused ever reached the orchestrator.
  assert.equal(spy.seen.slice(before).filter((x) => x.upgrade).length, 1);
});

test('path tricks and oversized requests: 4xx, never forwarded, never a bypass', {
  timeout: 60_000,
}, async () => {
  const before = spy.seen.length;
  const tricks = [
    '/api/../kapis/iam.kubesphere.io/v1alpha2/users',
    '/api/v1/../../apis/iam.kubesphere.io/v1alpha2/users',
    '/api/v1/namespaces/default/configmaps/..%2F..%2F..%2Fnodes',
    '/apis/%2e%2e/api/v1/nodes',
    '//api/v1/nodes',
    '/api//v1/nodes',
    '/api/v1/./nodes',
    '/oauth/../api/v1/nodes',
    '/kapis/config.kubesphere.io/../../api/v1/nodes',
    '/api/v1/nodes%2f..',
  ];
  for (const path of tricks) {
    for (const token of [aliceToken, adminToken]) {
      const r = await raw('GET', path, bearer(token));
      assert.ok(r.status >= 400 && r.status < 500, `${path}: ${r.status} ${r.body.slice(0, 200)}`);
    }
    const anon = await raw('GET', path);
    assert.ok(
      anon.status === 401 || anon.status === 400 || anon.status === 404,
      `${path} anonymous: ${anon.status}`,
    );
  }
  const long = await raw(
    'GET',
    `/api/v1/namespaces/default/configmaps/${'a'.repeat(100_000)}`,
    bearer(adminToken),
  ).catch(() => ({ status: 431, body: '', headers: {} }));
  assert.ok(long.status >= 400 && long.status < 500, `very long path: ${long.status}`);
  const big = await raw('GET', '/api/v1/nodes', { ...bearer(adminToken), 'x-big': 'b'.repeat(80_000) }).catch(
    () => ({
      status: 431,
      body: '',
      headers: {},
    }),
  );
  assert.equal(big.status, 431);
  // Regular user: cluster-scoped reads stay forbidden however the path is spelled.
  const nodes = await raw('GET', '/api/v1/nodes', bearer(aliceToken));
  assert.equal(nodes.status, 403);
  const nsNodes = await raw('GET', '/api/v1/namespaces/default/nodes', bearer(aliceToken));
  assert.equal(nsNodes.status, 403);
  assert.deepEqual(
    spy.seen
      .slice(before)
      // Every request above is a GET without a query. kapiserver's own upkeep is not a forwarded request: its writes
      // (controllers, login records) are not GETs, and its reads are the reachability probe (GET /version), the
      // controllers' Lease, and informer lists and watches, which always carry a query.
      .filter((s) => s.method === 'GET' && !s.url.includes('?'))
      .filter((s) => s.url !== '/version' && !s.url.includes('/leases/kapiserver-controllers'))
      .map((s) => s.url),
    [],
    'none of these requests reached the orchestrator',
  );
});

test('orchestrator down: 503 Status and /readyz fails; it recovers without a restart', {
  timeout: 90_000,
}, async () => {
  await spy.stop();
  try {
    const res = await fetch(`${stack.url}/api/v1/namespaces/default/configmaps`, {
      headers: bearer(adminToken),
    });
    assert.equal(res.status, 503);
    const body = (await res.json()) as { kind: string; reason: string; code: number };
    assert.equal(body.kind, 'Status');
    assert.equal(body.reason, 'ServiceUnavailable');
    assert.equal(body.code, 503);
    await eventually(
      async () => (await fetch(`${stack.url}/readyz`)).status === 503,
      20_000,
      '/readyz to fail',
    );
  } finally {
    await spy.start();
  }
  await eventually(
    async () => (await fetch(`${stack.url}/api/v1/nodes`, { headers: bearer(adminToken) })).status === 200,
    30_000,
    'forwarding to recover',
  );
  await eventually(
    async () => (await fetch(`${stack.url}/readyz`)).status === 200,
    30_000,
    '/readyz to recover',
  );
});
