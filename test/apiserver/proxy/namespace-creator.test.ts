// The creator of a namespace created through /api is the caller (stance 7: the namespace controller makes the
// creator the namespace's admin): a user allowed to create namespaces who names `admin` as creator gets a namespace
// whose creator, and admin, is themself, with raw HTTP, kubectl and impersonation alike. Later writes through /api
// (update, merge, JSON and strategic patches, server-side apply) cannot change or drop the creator (422).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hasKubectl, kubectlFor, NO_KUBECTL } from '../../helpers/kubectl.ts';
import { createUser, eventually, login } from '../../helpers/oauth.ts';
import { type Json, type KapisStack, startKapisStack } from '../kapis/helpers.ts';

const CREATOR = 'kubesphere.io/creator';
const NS = '/api/v1/namespaces';
const RB = (ns: string, name: string) =>
  `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/${name}`;
const kubectlOpts = { skip: !hasKubectl && NO_KUBECTL };
let s: KapisStack;
let dir = '';
let nina = '';

function raw(
  method: string,
  path: string,
  opts: { token?: string; type?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Json }> {
  const u = new URL(s.url);
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token ?? nina}`, ...opts.headers };
  const body =
    opts.body === undefined
      ? undefined
      : typeof opts.body === 'string'
        ? opts.body
        : JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => {
        let parsed: Json = text;
        try {
          parsed = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`${method} ${path}: no answer within 15 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const namespace = (name: string, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, ...(annotations ? { annotations } : {}) },
});
const stored = async (name: string) => (await s.kube('GET', `${NS}/${name}`)).body;
const creatorOf = async (name: string) => (await stored(name)).metadata.annotations?.[CREATOR];

/** The namespace's creator binding once the controller made it; and no `admin-admin` binding there. */
async function assertAdminIs(ns: string, user: string) {
  const rb = await eventually(
    async () => {
      const r = await s.kube('GET', RB(ns, `${user}-admin`));
      return r.status === 200 && r.body;
    },
    15_000,
    `${user}-admin in ${ns}`,
  );
  assert.deepEqual(
    rb.subjects.map((x: { kind: string; name: string }) => [x.kind, x.name]),
    [['User', user]],
  );
  // The controller binds on first sight, before it labels the namespace: once labelled, no other binding comes.
  await eventually(
    async () => (await stored(ns)).metadata.labels?.['kubesphere.io/namespace'] === ns,
    15_000,
    `${ns} reconciled`,
  );
  if (user !== 'admin') assert.equal((await s.kube('GET', RB(ns, 'admin-admin'))).status, 404);
}

before(async () => {
  s = await startKapisStack();
  dir = mkdtempSync(join(tmpdir(), 'namespace-creator-'));
  await createUser(s, 'nina', 'nina-Passw0rd');
  nina = (await login(s, 'nina', 'nina-Passw0rd')).access_token;
  const role = await s.kube('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: 'namespace-writer' },
    rules: [
      {
        apiGroups: [''],
        resources: ['namespaces', 'namespaces/status'],
        verbs: ['create', 'get', 'list', 'update', 'patch'],
      },
    ],
  });
  assert.equal(role.status, 201, JSON.stringify(role.body));
  const binding = await s.kube('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'nina-namespace-writer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespace-writer' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'nina' }],
  });
  assert.equal(binding.status, 201, JSON.stringify(binding.body));
  await eventually(
    async () => (await raw('GET', `${NS}/default`)).status === 200,
    15_000,
    'nina reads namespaces',
  );
});

after(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const kubectlAs = (token: string) => kubectlFor({ server: s.secureUrl, caPem: s.caPem, token });

test('a create naming admin as creator gets the caller as creator, and the caller as admin', async () => {
  const created = await raw('POST', NS, { body: namespace('ns-raw', { [CREATOR]: 'admin', note: 'kept' }) });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.metadata.annotations[CREATOR], 'nina');
  assert.equal(created.body.metadata.annotations.note, 'kept', 'other annotations pass');
  assert.equal(await creatorOf('ns-raw'), 'nina');
  await assertAdminIs('ns-raw', 'nina');

  // Without annotations, and with a null map, the caller is the creator all the same.
  for (const [name, annotations] of [
    ['ns-plain', undefined],
    ['ns-null', null],
  ] as const) {
    const body = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations } };
    const r = await raw('POST', NS, { body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(await creatorOf(name), 'nina');
  }
});

test('an impersonated create has the impersonated user as creator', async () => {
  const r = await raw('POST', NS, {
    token: s.token,
    headers: { 'impersonate-user': 'nina' },
    body: namespace('ns-impersonated', { [CREATOR]: 'admin' }),
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(await creatorOf('ns-impersonated'), 'nina');
  await assertAdminIs('ns-impersonated', 'nina');

  // The admin creating for itself is its own creator.
  const own = await raw('POST', NS, {
    token: s.token,
    body: namespace('ns-by-admin', { [CREATOR]: 'nina' }),
  });
  assert.equal(own.status, 201, JSON.stringify(own.body));
  assert.equal(await creatorOf('ns-by-admin'), 'admin');
});

test('YAML creates get the caller as creator; undecodable bodies are refused and create nothing', async () => {
  const yaml = await raw('POST', NS, {
    type: 'application/yaml',
    body: `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-yaml\n  annotations:\n    ${CREATOR}: admin\n    note: kept\n`,
  });
  assert.equal(yaml.status, 201, JSON.stringify(yaml.body));
  assert.deepEqual(
    [await creatorOf('ns-yaml'), (await stored('ns-yaml')).metadata.annotations.note],
    ['nina', 'kept'],
  );
  const proto = await raw('POST', NS, { type: 'application/vnd.kubernetes.protobuf', body: 'k8s\0garbage' });
  assert.equal(proto.status, 400, JSON.stringify(proto.body));
  for (const body of ['[]', '{"metadata":"x"}', '{"metadata":{"name":"ns-bad","annotations":[]}}', '{']) {
    const r = await raw('POST', NS, { body });
    assert.equal(r.status, 400, `${body}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.kind, 'Status');
  }
  assert.equal((await s.kube('GET', `${NS}/ns-bad`)).status, 404);
});

test('updates and patches may not change or drop the creator (422); other changes go through', async () => {
  assert.equal((await raw('POST', NS, { body: namespace('ns-kept') })).status, 201);
  const path = `${NS}/ns-kept`;
  const refusals: [string, string, unknown][] = [
    ['PATCH', 'application/merge-patch+json', { metadata: { annotations: { [CREATOR]: 'admin' } } }],
    ['PATCH', 'application/merge-patch+json', { metadata: { annotations: { [CREATOR]: null } } }],
    [
      'PATCH',
      'application/strategic-merge-patch+json',
      { metadata: { annotations: { [CREATOR]: 'admin' } } },
    ],
    ['PATCH', 'application/json-patch+json', [{ op: 'replace', path: '/metadata/annotations', value: {} }]],
    [
      'PATCH',
      'application/json-patch+json',
      [{ op: 'replace', path: `/metadata/annotations/kubesphere.io~1creator`, value: 'admin' }],
    ],
  ];
  for (const [method, type, body] of refusals) {
    const r = await raw(method, path, { type, body });
    assert.equal(r.status, 422, `${type} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.reason, 'Invalid');
    assert.equal(r.body.details.causes[0].field, `metadata.annotations[${CREATOR}]`);
  }
  const current = (await raw('GET', path)).body;
  const put = await raw('PUT', path, {
    body: { ...current, metadata: { ...current.metadata, annotations: { [CREATOR]: 'admin' } } },
  });
  assert.equal(put.status, 422, JSON.stringify(put.body));
  const dropped = await raw('PUT', path, {
    body: { ...current, metadata: { ...current.metadata, annotations: {} } },
  });
  assert.equal(dropped.status, 422, JSON.stringify(dropped.body));
  const status = await raw('PUT', `${path}/status`, {
    body: { ...current, metadata: { ...current.metadata, annotations: { [CREATOR]: 'admin' } } },
  });
  assert.ok(status.status === 422 || (await creatorOf('ns-kept')) === 'nina', JSON.stringify(status.body));
  assert.equal(await creatorOf('ns-kept'), 'nina');

  // Changes that keep the creator are written, through the same buffered body.
  const label = await raw('PATCH', path, {
    type: 'application/merge-patch+json',
    body: { metadata: { labels: { team: 'blue' } } },
  });
  assert.equal(label.status, 200, JSON.stringify(label.body));
  const same = await raw('PATCH', path, {
    type: 'application/merge-patch+json',
    body: { metadata: { annotations: { [CREATOR]: 'nina', note: 'x' } } },
  });
  assert.equal(same.status, 200, JSON.stringify(same.body));
  const after = await stored('ns-kept');
  assert.equal(after.metadata.labels.team, 'blue');
  assert.deepEqual([after.metadata.annotations[CREATOR], after.metadata.annotations.note], ['nina', 'x']);
  await assertAdminIs('ns-kept', 'nina');
  assert.equal((await s.kube('GET', RB('ns-kept', 'admin-admin'))).status, 404);
});

test('server-side apply: creating may name only the caller; changing the creator is refused', async () => {
  const apply = (name: string, annotations?: Record<string, string>) =>
    raw('PATCH', `${NS}/${name}?fieldManager=test&force=true`, {
      type: 'application/apply-patch+yaml',
      body: namespace(name, annotations),
    });
  const other = await apply('ns-applied', { [CREATOR]: 'admin' });
  assert.equal(other.status, 422, JSON.stringify(other.body));
  assert.equal((await s.kube('GET', `${NS}/ns-applied`)).status, 404, 'the refused apply created nothing');
  const own = await apply('ns-applied', { [CREATOR]: 'nina' });
  assert.equal(own.status, 201, JSON.stringify(own.body));
  await assertAdminIs('ns-applied', 'nina');
  const change = await apply('ns-applied', { [CREATOR]: 'admin' });
  assert.equal(change.status, 422, JSON.stringify(change.body));
  assert.equal(await creatorOf('ns-applied'), 'nina');
});

test(
  'kubectl (a protobuf create, create -f, apply, --as) names the caller as creator; edits of it are refused',
  kubectlOpts,
  async () => {
    const k = kubectlAs(nina);
    const created = await k.run(['create', 'namespace', 'ns-kubectl']);
    assert.equal(created.status, 0, created.stderr);
    assert.equal(await creatorOf('ns-kubectl'), 'nina');
    await assertAdminIs('ns-kubectl', 'nina');

    const manifest = JSON.stringify(namespace('ns-kubectl-f', { [CREATOR]: 'admin' }));
    const fromFile = await k.run(['create', '-f', '-'], manifest);
    assert.equal(fromFile.status, 0, fromFile.stderr);
    assert.equal(await creatorOf('ns-kubectl-f'), 'nina');
    await assertAdminIs('ns-kubectl-f', 'nina');

    const applied = await k.run(
      ['apply', '-f', '-'],
      JSON.stringify(namespace('ns-kubectl-apply', { [CREATOR]: 'admin' })),
    );
    assert.equal(applied.status, 0, applied.stderr);
    assert.equal(await creatorOf('ns-kubectl-apply'), 'nina');

    const annotate = await k.run(['annotate', '--overwrite', 'namespace', 'ns-kubectl', `${CREATOR}=admin`]);
    assert.notEqual(annotate.status, 0);
    assert.match(annotate.stderr, /kubesphere\.io\/creator/);
    const ssa = await k.run(
      ['apply', '--server-side', '--force-conflicts', '-f', '-'],
      JSON.stringify(namespace('ns-kubectl', { [CREATOR]: 'admin' })),
    );
    assert.notEqual(ssa.status, 0);
    assert.match(ssa.stderr, /422|kubesphere\.io\/creator/);
    assert.equal(await creatorOf('ns-kubectl'), 'nina');

    // The admin impersonating nina creates as nina.
    const admin = kubectlAs(s.token);
    const as = await admin.run(['create', 'namespace', 'ns-kubectl-as', '--as', 'nina']);
    assert.equal(as.status, 0, as.stderr);
    assert.equal(await creatorOf('ns-kubectl-as'), 'nina');
    assert.equal((await s.kube('GET', RB('ns-kubectl-f', 'admin-admin'))).status, 404);
  },
);
