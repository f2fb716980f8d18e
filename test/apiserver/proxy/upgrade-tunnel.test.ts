// The upgrade tunnel must never outlive a refused upgrade (the class of CVE-2018-1002105). kapiserver talks to a
// kubeadm-like orchestrator that knows it by a client certificate (admin rights, as admin.conf). A regular user who
// may exec in her own namespace tries to smuggle a second request onto kapiserver's upstream connection after an
// upgrade that is not switched (101): the secrets of kube-system must never come back, the first answer must be an
// ordinary response with Connection: close, and the connection must close. Upgrades of endpoints that never switch
// protocols are refused before the orchestrator sees them; kubectl exec still gets the orchestrator's own answer.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import { type DevCluster, startDevCluster } from '../../../src/devcluster/index.ts';
import { type ClientCertCluster, startClientCertCluster } from '../../helpers/client-cert-cluster.ts';
import { hasKubectl, NO_KUBECTL, runKubectl, writeKubeconfig } from '../../helpers/kubectl.ts';
import { bearer, createUser, devRest, eventually, login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

const NS = 'mallory-ns';
const SECRETS = '/api/v1/namespaces/kube-system/secrets';
let dir: string;
let dev: DevCluster;
let front: ClientCertCluster;
let stack: TestStack;
let malloryToken: string;
let adminToken: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-tunnel-'));
  dev = await startDevCluster({ dataDir: join(dir, 'dev'), port: 0 });
  front = await startClientCertCluster(dev, join(dir, 'front'));
  stack = await startTestStack({ dev, clusterKubeconfigPath: front.kubeconfigPath });
  adminToken = (await login(stack)).access_token;
  await createUser(stack, 'mallory', 'Mall0ry-passw0rd');
  malloryToken = (await login(stack, 'mallory', 'Mall0ry-passw0rd')).access_token;
  const rest = devRest(stack);
  await rest.create('/api/v1/namespaces', { metadata: { name: NS } });
  await rest.create(`/api/v1/namespaces/${NS}/pods`, {
    metadata: { name: 'web' },
    spec: { containers: [{ name: 'web', image: 'nginx' }] },
  });
  await rest.create(`${SECRETS}`, {
    metadata: { name: 'cluster-signing-key' },
    stringData: { key: 'do-not-leak' },
  });
  // mallory may run commands in pods of her own namespace, and nothing else.
  await rest.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
    metadata: { name: 'exec' },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
    ],
  });
  await rest.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
    metadata: { name: 'mallory-exec' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'exec' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'mallory' }],
  });
  await eventually(
    async () =>
      (await fetch(`${stack.url}/api/v1/namespaces/${NS}/pods`, { headers: bearer(malloryToken) })).status ===
      200,
    15_000,
    'mallory to be allowed in her namespace',
  );
});

after(async () => {
  await stack?.close();
  await front?.close();
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

function upgradeHead(method: string, path: string, token: string): string {
  return [
    `${method} ${path} HTTP/1.1`,
    'Host: kapiserver',
    `Authorization: Bearer ${token}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    '',
    '',
  ].join('\r\n');
}

const SMUGGLED = `GET ${SECRETS} HTTP/1.1\r\nHost: kapiserver\r\n\r\n`;

/**
 * Writes `first` on a raw socket to kapiserver; once the first response head arrives (or at once with `pipelined`)
 * writes the smuggled request too. Resolves with everything received and whether the server closed the connection
 * (rather than the 10 s guard, which the pre-fix tunnel ran into while keeping the connection open).
 */
function smuggle(first: string, pipelined: boolean): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(stack.api.port, '127.0.0.1', () => {
      socket.write(pipelined ? first + SMUGGLED : first);
    });
    let text = '';
    let sent = pipelined;
    const guard = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedByServer: false });
    }, 10_000);
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
      if (!sent && text.includes('\r\n\r\n')) {
        sent = true;
        socket.write(SMUGGLED, () => {});
      }
    });
    socket.on('error', () => {}); // a reset after close is fine: what was received is judged
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ text, closedByServer: true });
    });
    socket.on('timeout', () => reject(new Error('socket timeout')));
  });
}

/** URLs the cluster received since `since` that contain `prefix` (kapiserver's own informers also talk to it). */
function requested(since: number, prefix: string): string[] {
  return front.seen
    .slice(since)
    .map((s) => s.url)
    .filter((u) => u.includes(prefix));
}

const secretsRequested = (since: number) => requested(since, SECRETS);

test('the kubeadm-like cluster trusts only its client certificate, and kapiserver holds it', {
  timeout: 60_000,
}, async () => {
  const u = new URL(front.url);
  const refused = await new Promise<boolean>((resolve) => {
    const s = tls.connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false }, () => {
      s.write(`GET ${SECRETS} HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    let got = '';
    s.on('data', (d) => {
      got += d;
    });
    s.on('error', () => resolve(true));
    s.on('close', () => resolve(!got.includes('SecretList')));
  });
  assert.ok(refused, 'no client certificate, no answer');
  const asAdmin = await fetch(`${stack.url}${SECRETS}`, { headers: bearer(adminToken) });
  assert.equal(asAdmin.status, 200);
  const asMallory = await fetch(`${stack.url}${SECRETS}`, { headers: bearer(malloryToken) });
  assert.equal(asMallory.status, 403);
});

test('an upgrade of a non-upgrading endpoint (GET /api/v1) is refused before the cluster sees it; nothing is smuggled', {
  timeout: 60_000,
}, async () => {
  for (const pipelined of [false, true]) {
    const since = front.seen.length;
    const { text, closedByServer } = await smuggle(upgradeHead('GET', '/api/v1', malloryToken), pipelined);
    assert.ok(!text.includes('SecretList') && !text.includes('cluster-signing-key'), text);
    assert.match(text, /^HTTP\/1.1 400 /);
    assert.match(text, /\r\nConnection: close\r\n/);
    assert.equal(text.match(/HTTP\/1.1 /g)?.length, 1, text);
    const status = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { kind: string; message: string };
    assert.equal(status.kind, 'Status');
    assert.match(status.message, /can be upgraded/);
    assert.ok(closedByServer, 'kapiserver closed the connection');
    assert.deepEqual(
      front.seen.slice(since).filter((x) => x.url === '/api/v1' || x.url.startsWith(SECRETS)),
      [],
      'the cluster saw neither request',
    );
  }
});

test('an upgrade with a body or an unknown protocol is refused before the cluster sees it', {
  timeout: 60_000,
}, async () => {
  const exec = `/api/v1/namespaces/${NS}/pods/nope/exec?command=sh`;
  const withBody = upgradeHead('POST', exec, malloryToken).replace(
    'Connection: Upgrade',
    `Content-Length: ${SMUGGLED.length}\r\nConnection: Upgrade`,
  );
  const h2c = upgradeHead('GET', exec, malloryToken).replace('Upgrade: websocket', 'Upgrade: h2c');
  for (const [first, message] of [
    [withBody, /must not have a body/],
    [h2c, /can be upgraded/],
  ] as const) {
    const since = front.seen.length;
    const { text, closedByServer } = await smuggle(first, true);
    assert.match(text, /^HTTP\/1.1 400 /);
    assert.match(text, message);
    assert.ok(closedByServer);
    assert.deepEqual(requested(since, '/pods/nope/exec'), []);
    assert.deepEqual(secretsRequested(since), []);
  }
});

test('a refused upgrade whose client goes on sending and never closes is still closed by kapiserver', {
  timeout: 60_000,
}, async () => {
  const closed = await new Promise<boolean>((resolve) => {
    const socket = connect({ port: stack.api.port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(upgradeHead('GET', '/api/v1', malloryToken));
    });
    // It keeps writing, so it notices (by a reset) once kapiserver has really let go of the connection.
    const writer = setInterval(() => socket.write(SMUGGLED, () => {}), 100);
    const guard = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, 10_000);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(writer);
      clearTimeout(guard);
      resolve(true);
    });
  });
  assert.ok(closed, 'kapiserver closed the connection within a few seconds');
});

test('an exec the cluster answers without switching protocols is relayed and closed; nothing is smuggled', {
  timeout: 60_000,
}, async () => {
  const exec = `/api/v1/namespaces/${NS}/pods/nope/exec?command=sh&stdin=true&stdout=true`;
  for (const pipelined of [false, true]) {
    const since = front.seen.length;
    const { text, closedByServer } = await smuggle(upgradeHead('GET', exec, malloryToken), pipelined);
    assert.ok(!text.includes('SecretList') && !text.includes('cluster-signing-key'), text);
    // The dev cluster has no such pod: its 404, relayed as an ordinary response.
    assert.match(text, /^HTTP\/1.1 404 /);
    assert.match(text, /\r\nconnection: close\r\n/i);
    assert.equal(text.match(/HTTP\/1.1 /g)?.length, 1, text);
    assert.match(text, /pods \\"nope\\" not found/);
    assert.ok(closedByServer, 'kapiserver closed the connection');
    assert.deepEqual(secretsRequested(since), [], 'the smuggled request never reached the cluster');
    assert.equal(requested(since, '/pods/nope/exec').length, 1, 'the exec reached the cluster once');
  }
});

test('exec, attach and port-forward are authorized as create on their exact subresource', {
  timeout: 60_000,
}, async () => {
  for (const sub of ['attach', 'portforward']) {
    const since = front.seen.length;
    const { text } = await smuggle(
      upgradeHead('GET', `/api/v1/namespaces/${NS}/pods/nope/${sub}`, malloryToken),
      false,
    );
    assert.match(text, /^HTTP\/1.1 403 /);
    assert.match(
      text,
      new RegExp(`User \\\\"mallory\\\\" cannot create resource \\\\"pods/${sub}\\\\" in API group`),
    );
    assert.deepEqual(requested(since, `/pods/nope/${sub}`), []);
  }
  const since = front.seen.length;
  const watch = await smuggle(
    upgradeHead('GET', '/api/v1/namespaces/default/pods?watch=true', malloryToken),
    false,
  );
  assert.match(watch.text, /^HTTP\/1.1 403 /);
  assert.match(watch.text, /cannot watch resource \\"pods\\"/);
  assert.deepEqual(requested(since, '/api/v1/namespaces/default/pods?watch'), []);
});

test('kubectl exec (WebSocket, then SPDY) gets the cluster answer through kapiserver', {
  skip: hasKubectl ? false : NO_KUBECTL,
  timeout: 120_000,
}, async () => {
  for (const [name, token] of [
    ['admin', adminToken],
    ['mallory', malloryToken],
  ]) {
    const since = front.seen.length;
    const kubeconfig = writeKubeconfig(join(dir, `${name}.kubeconfig`), {
      server: stack.secureUrl,
      caPem: stack.caPem,
      token,
      namespace: NS,
    });
    const r = await runKubectl(['--kubeconfig', kubeconfig, 'exec', 'web', '--', 'true'], {
      timeoutMs: 60_000,
    });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /runs no processes: pods\/exec is not available/, `${name}: ${r.stderr}`);
    assert.ok(requested(since, '/pods/web/exec').length >= 1, 'the exec reached the cluster');
  }
});
