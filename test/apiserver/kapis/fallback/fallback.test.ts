// The /kapis fallback over a real kapiserver on the dev cluster: reads from the cache with KubeSphere's list shape and
// query parameters, writes forwarded (with the client's resourceVersion), eligibility, 404/405 Status answers, RBAC per
// resource and namespace, and the write guards of forwarded /apis writes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser, login } from '../../../helpers/oauth.ts';
import { type Json, type KapisStack, startKapisStack, until } from '../helpers.ts';

const K = '/kapis';
const X = 'fb-x';
const Y = 'fb-y';
let s: KapisStack;
let alice: string;

async function mk(path: string, body: Json): Promise<Json> {
  const r = await s.kube('POST', path, body);
  assert.ok(r.status === 201 || r.status === 200, `create ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const deployment = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name, ...labels } },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

before(async () => {
  s = await startKapisStack();
  for (const ns of [X, Y]) await mk('/api/v1/namespaces', { metadata: { name: ns } });
  await mk(`/apis/apps/v1/namespaces/${X}/deployments`, deployment('web', { tier: 'front' }));
  await mk(`/apis/apps/v1/namespaces/${X}/deployments`, deployment('api', { tier: 'back' }));
  await mk(`/apis/apps/v1/namespaces/${Y}/deployments`, deployment('db'));
  await mk(`/api/v1/namespaces/${X}/secrets`, {
    metadata: { name: 'creds' },
    data: { password: 'c2VjcmV0' },
  });
  // alice may read deployments and create roles in X only; nothing about secrets, nothing in Y.
  await mk(`/apis/rbac.authorization.k8s.io/v1/namespaces/${X}/roles`, {
    metadata: { name: 'deploy-reader' },
    rules: [
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['create'] },
    ],
  });
  await mk(`/apis/rbac.authorization.k8s.io/v1/namespaces/${X}/rolebindings`, {
    metadata: { name: 'alice-deploy-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deploy-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
  });
  await createUser(s, 'alice', 'Alice-pass-123');
  alice = (await login(s, 'alice', 'Alice-pass-123')).access_token;
  await until(async () => {
    const r = await s.call('GET', `${K}/apps/v1/namespaces/${X}/deployments`);
    return r.status === 200 && r.body.items.length === 2;
  }, 'deployments through the fallback');
});

after(async () => {
  await s?.close();
});

describe('reads from the cache', () => {
  test('a namespaced list: Kubernetes list shape, remainingItemCount, no totalItems', async () => {
    const r = await s.call(
      'GET',
      `${K}/apps/v1/namespaces/${X}/deployments?limit=1&sortBy=name&ascending=true`,
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.kind, undefined);
    assert.equal(r.body.totalItems, undefined);
    assert.equal(r.body.metadata.remainingItemCount, 1);
    assert.deepEqual(
      r.body.items.map((i: Json) => i.metadata.name),
      ['api'],
    );
    assert.equal(r.body.items[0].kind, 'Deployment');
  });

  test('cluster-wide list, label filter, fieldSelector on a JSON path, labelSelector', async () => {
    const all = await s.call('GET', `${K}/apps/v1/deployments?names=web,db`);
    const mine = all.body.items
      .map((i: Json) => `${i.metadata.namespace}/${i.metadata.name}`)
      .filter((n: string) => n.startsWith('fb-'));
    assert.deepEqual(mine.sort(), [`${X}/web`, `${Y}/db`]);
    assert.ok(all.body.items.every((i: Json) => ['web', 'db'].includes(i.metadata.name)));
    const label = await s.call('GET', `${K}/apps/v1/namespaces/${X}/deployments?label=tier=back`);
    assert.deepEqual(
      label.body.items.map((i: Json) => i.metadata.name),
      ['api'],
    );
    const field = await s.call('GET', `${K}/apps/v1/deployments?fieldSelector=metadata.namespace=${Y}`);
    assert.deepEqual(
      field.body.items.map((i: Json) => i.metadata.name),
      ['db'],
    );
    const notField = await s.call(
      'GET',
      `${K}/apps/v1/namespaces/${X}/deployments?fieldSelector=metadata.name!=web`,
    );
    assert.deepEqual(
      notField.body.items.map((i: Json) => i.metadata.name),
      ['api'],
    );
    const sel = await s.call(
      'GET',
      `${K}/apps/v1/namespaces/${X}/deployments?labelSelector=tier%20in%20(front)`,
    );
    assert.deepEqual(
      sel.body.items.map((i: Json) => i.metadata.name),
      ['web'],
    );
    const unknown = await s.call('GET', `${K}/apps/v1/namespaces/${X}/deployments?color=blue`);
    assert.deepEqual(unknown.body.items, []);
  });

  test('one object, with kind and apiVersion; missing is a 404 Status', async () => {
    const r = await s.call('GET', `${K}/apps/v1/namespaces/${X}/deployments/web`);
    assert.equal(r.status, 200);
    assert.equal(r.body.apiVersion, 'apps/v1');
    assert.equal(r.body.metadata.name, 'web');
    const missing = await s.call('GET', `${K}/apps/v1/namespaces/${X}/deployments/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.kind, 'Status');
  });

  test('a KubeSphere group: global roles listed without kind on the list', async () => {
    const r = await s.call('GET', `${K}/iam.kubesphere.io/v1alpha2/globalroles?names=platform-admin`);
    assert.equal(r.status, 200);
    assert.equal(r.body.items.length, 1);
    assert.equal(r.body.items[0].kind, 'GlobalRole');
  });
});

describe('what is not served', () => {
  test('core, apiextensions, unknown groups and types, subresources: 404 Status', async () => {
    for (const path of [
      `${K}/v1/namespaces/${X}/secrets`,
      `${K}/apiextensions.k8s.io/v1/customresourcedefinitions`,
      `${K}/example.com/v1/widgets`,
      `${K}/apps/v1/widgets`,
      `${K}/apps/v9/deployments`,
      `${K}/apps/v1/namespaces/${X}/deployments/web/scale`,
      `${K}/apps/v1/namespaces/no-such-ns/deployments`,
      `${K}/apps/v1/workspaces/any/deployments`,
      // X is in no workspace: a workspace path does not reach it (KubeSphere ignores the workspace).
      `${K}/apps/v1/workspaces/any/namespaces/${X}/deployments`,
    ]) {
      const r = await s.call('GET', path);
      assert.equal(r.status, 404, path);
      assert.equal(r.body.kind, 'Status', path);
    }
  });

  test('a path a route serves with another method is a 405 Status; a collection delete too', async () => {
    const r = await s.call('DELETE', `${K}/resources.kubesphere.io/v1alpha3/nodes`);
    assert.equal(r.status, 405);
    assert.equal(r.body.kind, 'Status');
    const all = await s.call('DELETE', `${K}/apps/v1/namespaces/${X}/deployments`);
    assert.equal(all.status, 405);
    assert.equal(all.body.kind, 'Status');
  });

  test('a CRD is served only when labelled kubesphere.io/resource-served', async () => {
    const crd = (labels: Record<string, string>) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com', labels },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    await mk('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd({}));
    await until(async () => (await s.kube('GET', '/apis/example.com/v1')).status === 200, 'the CRD served');
    await mk(`/apis/example.com/v1/namespaces/${X}/gadgets`, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g1' },
    });
    const before = await s.call('GET', `${K}/example.com/v1/namespaces/${X}/gadgets`);
    assert.equal(before.status, 404);
    const cur = (
      await s.kube('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com')
    ).body;
    cur.metadata.labels = { 'kubesphere.io/resource-served': 'true' };
    assert.equal(
      (
        await s.kube(
          'PUT',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com`,
          cur,
        )
      ).status,
      200,
    );
    const r = await until(async () => {
      const x = await s.call('GET', `${K}/example.com/v1/namespaces/${X}/gadgets`);
      return x.status === 200 && x.body.items.length === 1 ? x : undefined;
    }, 'gadgets through the fallback');
    assert.equal(r.body.kind, 'GadgetList');
    assert.equal(r.body.apiVersion, 'example.com/v1');
    const created = await s.call('POST', `${K}/example.com/v1/namespaces/${X}/gadgets`, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g2' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal((await s.kube('GET', `/apis/example.com/v1/namespaces/${X}/gadgets/g2`)).status, 200);
  });
});

describe('writes', () => {
  test('POST creates (answer null); the kind must match; the namespace is the path one', async () => {
    const r = await s.call('POST', `${K}/apps/v1/namespaces/${X}/deployments`, deployment('created'));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body, null);
    assert.equal((await s.kube('GET', `/apis/apps/v1/namespaces/${X}/deployments/created`)).status, 200);
    const wrong = await s.call('POST', `${K}/apps/v1/namespaces/${X}/deployments`, {
      ...deployment('x'),
      kind: 'StatefulSet',
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.kind, 'Status');
    const moved = deployment('moved');
    const elsewhere = await s.call('POST', `${K}/apps/v1/namespaces/${X}/deployments`, {
      ...moved,
      metadata: { ...moved.metadata, namespace: Y },
    });
    assert.equal(elsewhere.status, 400);
    assert.equal((await s.kube('GET', `/apis/apps/v1/namespaces/${Y}/deployments/moved`)).status, 404);
  });

  test('PUT keeps the client resourceVersion: a stale one is a 409, nothing lost', async () => {
    const cur = (await s.kube('GET', `/apis/apps/v1/namespaces/${X}/deployments/web`)).body;
    const stale = structuredClone(cur);
    cur.metadata.labels.edited = 'first';
    const ok = await s.call('PUT', `${K}/apps/v1/namespaces/${X}/deployments/web`, cur);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    stale.metadata.labels.edited = 'second';
    const conflict = await s.call('PUT', `${K}/apps/v1/namespaces/${X}/deployments/web`, stale);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.kind, 'Status');
    const now = (await s.kube('GET', `/apis/apps/v1/namespaces/${X}/deployments/web`)).body;
    assert.equal(now.metadata.labels.edited, 'first');
  });

  test('PATCH with the full object changes what differs; DELETE removes', async () => {
    const cur = await until(async () => {
      const x = await s.call('GET', `${K}/apps/v1/namespaces/${X}/deployments/created`);
      return x.status === 200 ? x.body : undefined;
    }, 'created in the cache');
    cur.metadata.labels = { app: 'created', patched: 'yes' };
    const r = await s.call('PATCH', `${K}/apps/v1/namespaces/${X}/deployments/created`, cur);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const now = (await s.kube('GET', `/apis/apps/v1/namespaces/${X}/deployments/created`)).body;
    assert.deepEqual(now.metadata.labels, { app: 'created', patched: 'yes' });
    assert.equal(now.spec.template.spec.containers[0].image, 'nginx');
    const del = await s.call('DELETE', `${K}/apps/v1/namespaces/${X}/deployments/created`);
    assert.equal(del.status, 200);
    await until(
      async () => (await s.kube('GET', `/apis/apps/v1/namespaces/${X}/deployments/created`)).status === 404,
      'deleted',
    );
  });

  test('RBAC writes pass the escalation guard, as forwarded /apis writes do', async () => {
    // alice may create roles in X, but not one granting more than she holds.
    const role = (name: string, rules: Json[]) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name },
      rules,
    });
    const roles = `${K}/rbac.authorization.k8s.io/v1/namespaces/${X}/roles`;
    const denied = await s.call(
      'POST',
      roles,
      role('too-much', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]),
      alice,
    );
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /not currently held/);
    assert.equal(
      (await s.kube('GET', `/apis/rbac.authorization.k8s.io/v1/namespaces/${X}/roles/too-much`)).status,
      404,
    );
    const held = role('subset', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }]);
    const ok = await s.call('POST', roles, held, alice);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(
      (await s.kube('GET', `/apis/rbac.authorization.k8s.io/v1/namespaces/${X}/roles/subset`)).status,
      200,
    );
  });
});

describe('RBAC per resource and namespace', () => {
  test('a namespace member reads only their namespace and only what their role names', async () => {
    const own = await s.call('GET', `${K}/apps/v1/namespaces/${X}/deployments`, undefined, alice);
    assert.equal(own.status, 200);
    const other = await s.call('GET', `${K}/apps/v1/namespaces/${Y}/deployments`, undefined, alice);
    assert.equal(other.status, 403);
    assert.equal(other.body.kind, 'Status');
    const cluster = await s.call('GET', `${K}/apps/v1/deployments`, undefined, alice);
    assert.equal(cluster.status, 403);
    const write = await s.call('DELETE', `${K}/apps/v1/namespaces/${X}/deployments/web`, undefined, alice);
    assert.equal(write.status, 403);
  });

  test('no list secrets in X: 403 on the /kapis path naming secrets there', async () => {
    for (const path of [
      `${K}/v1/namespaces/${X}/secrets`,
      `${K}/resources.kubesphere.io/v1alpha3/namespaces/${X}/secrets`,
    ]) {
      const r = await s.call('GET', path, undefined, alice);
      assert.equal(r.status, 403, path);
      assert.ok(!JSON.stringify(r.body).includes('c2VjcmV0'));
    }
  });
});
