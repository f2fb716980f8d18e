// A namespace-scoped grant never reaches a cluster-scoped resource through a path that places it "inside" a
// namespace (/api/v1/namespaces/nest/namespaces/x, /api/v1/namespaces/nest/nodes, ...): kapiserver refuses (403,
// whatever the cluster behind would answer) and the dev cluster itself answers 404 as kube-apiserver does (no
// namespaced route exists for those resources).
// Legitimate namespaced calls and the namespace object itself (/api/v1/namespaces/nest) keep working.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devRequest } from '../../helpers/devcluster.ts';
import { bearer, createUser, devRest, eventually, login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
let stack: TestStack;
let token = '';

async function asNina(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { ...bearer(token), ...(body ? { 'content-type': contentType } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
}

const exists = async (path: string) => (await devRequest(stack.dev, 'GET', path)).status === 200;

describe('paths nesting cluster-scoped resources in a namespace', { timeout: 120_000 }, () => {
  before(async () => {
    stack = await startTestStack();
    const rest = devRest(stack);
    for (const ns of ['nest', 'victim']) await rest.create('/api/v1/namespaces', { metadata: { name: ns } });
    await rest.create(`${RBAC}/namespaces/nest/roles`, {
      metadata: { name: 'everything', namespace: 'nest' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    });
    await rest.create(`${RBAC}/namespaces/nest/rolebindings`, {
      metadata: { name: 'nina-everything', namespace: 'nest' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'everything' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'nina' }],
    });
    await rest.create(`${RBAC}/clusterroles`, { metadata: { name: 'keep-me' }, rules: [] });
    await createUser(stack, 'nina', 'Nina-Passw0rd');
    token = (await login(stack, 'nina', 'Nina-Passw0rd')).access_token;
    await eventually(
      async () => (await asNina('GET', '/api/v1/namespaces/nest/configmaps')).status === 200,
      20_000,
      "nina's RoleBinding to reach kapiserver's cache",
    );
  });
  after(async () => {
    await stack?.close();
  });

  it('refuses list/get/create/patch/delete of Namespaces under /namespaces/nest/ and changes nothing', async () => {
    const attempts: [string, string, unknown?, string?][] = [
      ['GET', '/api/v1/namespaces/nest/namespaces'],
      ['GET', '/api/v1/namespaces/nest/namespaces/victim'],
      ['GET', '/api/v1/namespaces/nest/namespaces?watch=true'],
      ['POST', '/api/v1/namespaces/nest/namespaces', { metadata: { name: 'created-by-nina' } }],
      [
        'PATCH',
        '/api/v1/namespaces/nest/namespaces/victim',
        { metadata: { labels: { owned: 'nina' } } },
        'application/merge-patch+json',
      ],
      ['PUT', '/api/v1/namespaces/nest/namespaces/victim', { metadata: { name: 'victim' } }],
      ['PUT', '/api/v1/namespaces/nest/namespaces/victim/finalize', { metadata: { name: 'victim' } }],
      ['DELETE', '/api/v1/namespaces/nest/namespaces/victim'],
      ['DELETE', '/api/v1/namespaces/nest/namespaces'],
    ];
    for (const [method, path, body, ct] of attempts) {
      const r = await asNina(method, path, body, ct);
      assert.equal(r.status, 403, `${method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      assert.equal(r.body.kind, 'Status', `${method} ${path}`);
    }
    assert.equal(await exists('/api/v1/namespaces/created-by-nina'), false, 'no namespace created');
    const victim = await devRequest(stack.dev, 'GET', '/api/v1/namespaces/victim');
    assert.equal(victim.status, 200, 'victim still exists');
    const v = victim.body as { metadata: { labels?: Record<string, string>; deletionTimestamp?: string } };
    assert.equal(v.metadata.deletionTimestamp, undefined, 'victim not being deleted');
    assert.equal(v.metadata.labels?.owned, undefined, 'victim not patched');
  });

  it('refuses other cluster-scoped resources under /namespaces/nest/', async () => {
    const attempts: [string, string, unknown?][] = [
      ['GET', '/api/v1/namespaces/nest/nodes'],
      ['POST', '/api/v1/namespaces/nest/nodes', { metadata: { name: 'evil-node' } }],
      ['GET', '/api/v1/namespaces/nest/persistentvolumes'],
      ['GET', `${RBAC}/namespaces/nest/clusterroles`],
      ['GET', `${RBAC}/namespaces/nest/clusterroles/keep-me`],
      [
        'POST',
        `${RBAC}/namespaces/nest/clusterroles`,
        { metadata: { name: 'evil' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
      ],
      [
        'POST',
        `${RBAC}/namespaces/nest/clusterrolebindings`,
        {
          metadata: { name: 'evil' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'nina' }],
        },
      ],
      ['DELETE', `${RBAC}/namespaces/nest/clusterroles/keep-me`],
      ['GET', '/apis/apiextensions.k8s.io/v1/namespaces/nest/customresourcedefinitions'],
      ['GET', '/apis/storage.k8s.io/v1/namespaces/nest/volumeattachments'],
      ['GET', '/apis/iam.kubesphere.io/v1alpha2/namespaces/nest/users'],
      ['GET', '/apis/iam.kubesphere.io/v1alpha2/namespaces/nest/globalroles'],
      ['GET', '/apis/iam.kubesphere.io/v1alpha2/namespaces/nest/workspacerolebindings'],
      [
        'POST',
        '/apis/iam.kubesphere.io/v1alpha2/namespaces/nest/workspacerolebindings',
        {
          metadata: { name: 'evil-wrb' },
          roleRef: { apiGroup: 'iam.kubesphere.io', kind: 'WorkspaceRole', name: 'x' },
        },
      ],
    ];
    for (const [method, path, body] of attempts) {
      const r = await asNina(method, path, body);
      assert.equal(r.status, 403, `${method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      assert.equal(r.body.kind, 'Status', `${method} ${path}`);
    }
    assert.equal(await exists('/api/v1/nodes/evil-node'), false);
    assert.equal(await exists(`${RBAC}/clusterroles/evil`), false);
    assert.equal(await exists(`${RBAC}/clusterrolebindings/evil`), false);
    assert.equal(await exists('/apis/iam.kubesphere.io/v1alpha2/workspacerolebindings/evil-wrb'), false);
    assert.equal(await exists(`${RBAC}/clusterroles/keep-me`), true);
  });

  it('keeps namespaced calls and the namespace object itself working', async () => {
    assert.equal((await asNina('GET', '/api/v1/namespaces/nest')).status, 200);
    assert.equal((await asNina('GET', '/api/v1/namespaces/nest/status')).status, 200);
    const created = await asNina('POST', '/api/v1/namespaces/nest/configmaps', {
      metadata: { name: 'fine' },
      data: { a: '1' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await asNina('GET', '/api/v1/namespaces/nest/configmaps/fine')).status, 200);
    assert.equal((await asNina('DELETE', '/api/v1/namespaces/nest/configmaps/fine')).status, 200);
    // Not beyond its own namespace, and not the namespace list.
    assert.equal((await asNina('GET', '/api/v1/namespaces/victim')).status, 403);
    assert.equal((await asNina('GET', '/api/v1/namespaces')).status, 403);
  });

  it('the dev cluster answers 404 for cluster-scoped resources under a namespace, as kube-apiserver', async () => {
    const paths: [string, string, unknown?][] = [
      ['GET', '/api/v1/namespaces/nest/namespaces'],
      ['GET', '/api/v1/namespaces/nest/namespaces/victim'],
      ['POST', '/api/v1/namespaces/nest/namespaces', { metadata: { name: 'created-directly' } }],
      ['DELETE', '/api/v1/namespaces/nest/namespaces/victim'],
      ['PUT', '/api/v1/namespaces/nest/namespaces/victim/finalize', { metadata: { name: 'victim' } }],
      ['GET', '/api/v1/namespaces/nest/nodes'],
      ['GET', `${RBAC}/namespaces/nest/clusterroles`],
      ['POST', `${RBAC}/namespaces/nest/clusterroles`, { metadata: { name: 'evil2' }, rules: [] }],
    ];
    for (const [method, path, body] of paths) {
      const r = await devRequest(stack.dev, method, path, body);
      assert.equal(r.status, 404, `${method} ${path}: ${r.text.slice(0, 300)}`);
      assert.equal((r.body as { kind?: string }).kind, 'Status');
    }
    assert.equal(await exists('/api/v1/namespaces/created-directly'), false);
    assert.equal(await exists('/api/v1/namespaces/victim'), true);
    assert.equal(await exists(`${RBAC}/clusterroles/evil2`), false);
    assert.equal((await devRequest(stack.dev, 'GET', '/api/v1/namespaces/nest')).status, 200);
  });
});
