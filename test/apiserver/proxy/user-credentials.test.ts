// No response carries a password hash or any credential of a User: not through /apis (get, list, watch, Table with
// includeObject, the objects that create, patch and delete answer with; kubectl -o yaml and -w), not through /kapis
// (users, members), and not through the plaintext password that `kubectl apply` keeps in its last-applied
// annotation. An admin still creates a user with a password through /apis and that user logs in with it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { hasKubectl, kubectlFor, NO_KUBECTL } from '../../helpers/kubectl.ts';
import { createUser, eventually, login } from '../../helpers/oauth.ts';
import { type KapisStack, startKapisStack } from '../kapis/helpers.ts';

const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const I = '/kapis/iam.kubesphere.io/v1alpha2';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const APPLIED_PASSWORD = 'Applied-Passw0rd-9';
let s: KapisStack;
let dir = '';
let uma = '';

/** Fails when `text` holds a bcrypt hash, a password field or the plaintext password of the applied user. */
function assertNoCredentials(text: string, what: string) {
  assert.ok(!/\$2[abxy]\$/.test(text), `${what}: a bcrypt hash reached the client: ${text.slice(0, 400)}`);
  assert.ok(!/"password"|(^|[^:\w])password:/im.test(text), `${what}: a password field reached the client`);
  assert.ok(!text.includes(APPLIED_PASSWORD), `${what}: a plaintext password reached the client`);
}

/** A raw request to kapiserver as `token`; `until` ends a streaming answer once the body so far satisfies it. */
function raw(
  method: string,
  path: string,
  token: string,
  opts: { accept?: string; type?: string; body?: string; until?: (body: string) => boolean } = {},
): Promise<{ status: number; type: string; body: string }> {
  const u = new URL(s.url);
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.accept) headers.accept = opts.accept;
  if (opts.type) headers['content-type'] = opts.type;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let body = '';
      const done = () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body });
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
        if (opts.until?.(body)) {
          req.destroy();
          done();
        }
      });
      res.on('end', done);
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`${method} ${path}: no answer within 15 s`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

before(async () => {
  s = await startKapisStack();
  dir = mkdtempSync(join(tmpdir(), 'kapis-user-credentials-'));
  await createUser(s, 'uma', 'uma-Passw0rd');
  uma = (await login(s, 'uma', 'uma-Passw0rd')).access_token;
  const grb = await s.kube('POST', `${IAM}/globalrolebindings`, {
    metadata: { name: 'uma-users-manager' },
    roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'GlobalRole', name: 'users-manager' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'uma' }],
  });
  assert.equal(grb.status, 201, JSON.stringify(grb.body));
  await eventually(
    async () => (await raw('GET', `${IAM}/users/uma`, uma)).status === 200,
    15_000,
    'uma reads',
  );
});

after(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const kubectlAs = (token: string) => kubectlFor({ server: s.secureUrl, caPem: s.caPem, token });

test('an admin creates a user with a password through /apis; the answer carries no credential; the user logs in', async () => {
  const created = await raw('POST', `${IAM}/users`, s.token, {
    type: 'application/json',
    body: JSON.stringify({
      apiVersion: 'iam.kubesphere.io/v1alpha2',
      kind: 'User',
      metadata: { name: 'pat' },
      spec: { email: 'pat@example.com', password: 'Pat-Passw0rd-1' },
    }),
  });
  assert.equal(created.status, 201, created.body);
  assertNoCredentials(created.body, 'create');
  assert.equal(JSON.parse(created.body).metadata.name, 'pat');
  await eventually(async () => (await login(s, 'pat', 'Pat-Passw0rd-1')).access_token, 15_000, 'pat logs in');
});

test('get, list, Table with includeObject, watch and write answers about users carry no credential', async () => {
  const one = await raw('GET', `${IAM}/users/uma`, uma);
  assert.equal(one.status, 200, one.body);
  assert.equal(JSON.parse(one.body).spec.email, 'uma@example.com');
  assertNoCredentials(one.body, 'get');

  const list = await raw('GET', `${IAM}/users`, uma);
  assert.equal(list.status, 200);
  const names = JSON.parse(list.body).items.map((u: { metadata: { name: string } }) => u.metadata.name);
  assert.ok(names.includes('admin') && names.includes('uma'), names.join());
  assertNoCredentials(list.body, 'list');
  assertNoCredentials((await raw('GET', `${IAM}/users?pretty=true`, uma)).body, 'pretty list');

  for (const include of ['Object', 'Metadata', 'None']) {
    const table = await raw('GET', `${IAM}/users?includeObject=${include}`, uma, { accept: TABLE });
    assert.equal(table.status, 200, table.body);
    assert.equal(JSON.parse(table.body).kind, 'Table');
    assertNoCredentials(table.body, `Table includeObject=${include}`);
  }

  // A watch streams its events (each filtered) as they come: every existing user, then a change made now.
  const sawAll = (b: string) => ['admin', 'uma', 'pat'].every((n) => b.includes(`"name":"${n}"`));
  const watch = raw('GET', `${IAM}/users?watch=1`, uma, { until: (b) => sawAll(b) && b.includes('Watched') });
  await new Promise((r) => setTimeout(r, 300));
  const patched = await raw('PATCH', `${IAM}/users/pat`, uma, {
    type: 'application/merge-patch+json',
    body: JSON.stringify({ spec: { displayName: 'Watched' } }),
  });
  assert.equal(patched.status, 200, patched.body);
  assertNoCredentials(patched.body, 'patch');
  const events = await watch;
  assert.equal(events.status, 200);
  assertNoCredentials(events.body, 'watch');
  const lines = events.body.trim().split('\n');
  assert.ok(
    lines.every((l) => ['ADDED', 'MODIFIED'].includes(JSON.parse(l).type)),
    events.body.slice(0, 300),
  );

  const tableWatch = await raw('GET', `${IAM}/users?watch=true&includeObject=Object`, uma, {
    accept: TABLE,
    until: sawAll,
  });
  assert.equal(tableWatch.status, 200);
  assertNoCredentials(tableWatch.body, 'Table watch');

  const put = JSON.parse((await raw('GET', `${IAM}/users/pat`, s.token)).body);
  put.spec.lang = 'en';
  const updated = await raw('PUT', `${IAM}/users/pat`, s.token, {
    type: 'application/json',
    body: JSON.stringify(put),
  });
  assert.equal(updated.status, 200, updated.body);
  assertNoCredentials(updated.body, 'update');
  // The update sent no password: the stored one is kept (the user still logs in).
  await login(s, 'pat', 'Pat-Passw0rd-1');

  const deleted = await raw('DELETE', `${IAM}/users/pat`, uma);
  assert.equal(deleted.status, 200, deleted.body);
  assertNoCredentials(deleted.body, 'delete');
});

test('a client that accepts no JSON gets 406, never an unfiltered encoding', async () => {
  for (const accept of ['application/vnd.kubernetes.protobuf', 'application/yaml', 'text/plain']) {
    const r = await raw('GET', `${IAM}/users/uma`, uma, { accept });
    assert.equal(r.status, 406, `${accept}: ${r.body}`);
    assert.equal(JSON.parse(r.body).kind, 'Status');
    assertNoCredentials(r.body, accept);
  }
  const mixed = await raw('GET', `${IAM}/users/uma`, uma, {
    accept: 'application/vnd.kubernetes.protobuf, application/json',
  });
  assert.equal(mixed.status, 200);
  assert.match(mixed.type, /^application\/json/);
  assertNoCredentials(mixed.body, 'protobuf-or-json');
});

test('kubectl apply, get -o yaml / -o json and get -w show no credential', {
  skip: !hasKubectl && NO_KUBECTL,
}, async () => {
  const admin = kubectlAs(s.token);
  const manifest = [
    'apiVersion: iam.kubesphere.io/v1alpha2',
    'kind: User',
    'metadata:',
    '  name: applied',
    'spec:',
    '  email: applied@example.com',
    `  password: ${APPLIED_PASSWORD}`,
    '',
  ].join('\n');
  const applied = await admin.run(['apply', '-f', '-'], manifest);
  assert.equal(applied.status, 0, applied.stderr);
  await eventually(
    async () => (await login(s, 'applied', APPLIED_PASSWORD)).access_token,
    15_000,
    'applied logs in',
  );

  const k = kubectlAs(uma);
  for (const format of ['yaml', 'json']) {
    const r = await k.run(['get', 'users.iam.kubesphere.io', '-o', format]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /applied@example\.com/);
    assertNoCredentials(r.stdout, `kubectl get -o ${format}`);
  }
  const table = await k.run(['get', 'users.iam.kubesphere.io']);
  assert.equal(table.status, 0, table.stderr);
  assertNoCredentials(table.stdout, 'kubectl get');

  const w = k.start(['get', 'users.iam.kubesphere.io', '-w', '-o', 'yaml']);
  try {
    await eventually(async () => w.output().includes('applied@example.com'), 15_000, 'kubectl -w output');
  } finally {
    w.stop();
  }
  assertNoCredentials(w.output(), 'kubectl get -w');
  // Re-applying the same manifest (three-way merge against the filtered object) keeps the password working.
  const again = await admin.run(['apply', '-f', '-'], manifest);
  assert.equal(again.status, 0, again.stderr);
  await eventually(
    async () => (await login(s, 'applied', APPLIED_PASSWORD)).access_token,
    15_000,
    're-applied',
  );
});

test('/kapis users and members carry no credential, the last-applied annotation included', async () => {
  const rbac = await s.kube('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'uma-view' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'uma' }],
  });
  assert.equal(rbac.status, 201, JSON.stringify(rbac.body));
  const paths = [`${I}/users`, `${I}/users/uma`, `${I}/users?name=applied`, `${I}/clustermembers`];
  if (hasKubectl) paths.push(`${I}/users/applied`);
  for (const path of paths) {
    const r = await eventually(
      async () => {
        const x = await s.call('GET', path);
        return x.status === 200 ? x : undefined;
      },
      15_000,
      path,
    );
    assertNoCredentials(JSON.stringify(r.body), path);
  }
});

test('a WebSocket watch of users is served by kapiserver, one filtered event per message', async () => {
  const url = `${s.url.replace(/^http/, 'ws')}${IAM}/users?watch=1`;
  // Every existing user arrives as an ADDED event, each in its own text message, none with a credential.
  const messages = await new Promise<string[]>((resolve, reject) => {
    const got: string[] = [];
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${uma}` } });
    ws.on('message', (data, isBinary) => {
      assert.equal(isBinary, false);
      got.push(data.toString());
      if (['admin', 'uma', 'applied'].every((n) => got.some((m) => m.includes(`"name":"${n}"`)))) {
        ws.close();
        resolve(got);
      }
    });
    ws.on('error', reject);
    const names = () => got.map((m) => JSON.parse(m).object?.metadata?.name);
    setTimeout(() => reject(new Error(`only these events in 15 s: ${names()}`)), 15_000).unref();
  });
  for (const m of messages) {
    const event = JSON.parse(m);
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.kind, 'User');
    assertNoCredentials(m, 'WebSocket watch event');
  }
  // Without credentials, or with the token in the query string (never read), the upgrade is refused with 401.
  for (const target of [url, `${url}&access_token=${uma}`]) {
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(target);
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('open', () => reject(new Error('upgraded without credentials')));
      ws.on('error', () => {});
    });
    assert.equal(status, 401, target.replace(uma, '<token>'));
  }
});
