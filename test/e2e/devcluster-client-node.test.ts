// @kubernetes/client-node 1.x against a fresh dev cluster: typed CRUD, patches, an informer that recovers from
// a 410, and durability across kill -9 of a dev cluster child process.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ADD,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DELETE,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  UPDATE,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import {
  devRequest,
  startDevClusterProcess,
  startTestDevCluster,
  type TestDevCluster,
} from '../helpers/devcluster.ts';

function kubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function statusCode(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

describe('client-node against the dev cluster', { timeout: 300_000 }, () => {
  let dev: TestDevCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let kc: KubeConfig;

  before(async () => {
    dev = await startTestDevCluster({ bookmarkIntervalMs: 500 });
    kc = kubeConfig(dev.kubeconfigPath);
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
  });
  after(async () => {
    await dev?.close();
  });

  it('lists typed nodes and namespaces', async () => {
    const nodes = await core.listNode();
    assert.deepEqual(
      nodes.items.map((n) => n.metadata?.name),
      ['node1', 'node2', 'node3'],
    );
    assert.equal(nodes.items[0].status?.nodeInfo?.kubeletVersion, 'v1.33.1');
    assert.ok(Number(nodes.metadata?.resourceVersion) > 0);
    const cp = await core.listNode({ labelSelector: 'node-role.kubernetes.io/control-plane' });
    assert.deepEqual(
      cp.items.map((n) => n.metadata?.name),
      ['node1'],
    );
    const ns = await core.listNamespace();
    assert.ok(ns.items.some((n) => n.metadata?.name === 'kubesphere-system'));
  });

  it('creates, reads, patches, updates and deletes a configmap with Kubernetes semantics', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { generateName: 'cfg-', labels: { app: 'x' } }, data: { a: '1' } },
    });
    const name = created.metadata?.name ?? '';
    assert.match(name, /^cfg-[a-z0-9]{5}$/);
    assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(created.metadata?.creationTimestamp instanceof Date);
    assert.ok(created.metadata?.managedFields?.length);

    const patched = await core.patchNamespacedConfigMap(
      { name, namespace: 'default', body: { data: { b: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.deepEqual(patched.data, { a: '1', b: '2' });
    const jp = await core.patchNamespacedConfigMap(
      { name, namespace: 'default', body: [{ op: 'replace', path: '/data/a', value: 'one' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    assert.equal(jp.data?.a, 'one');

    const stale: V1ConfigMap = { ...created, data: { stale: 'yes' } };
    await assert.rejects(
      core.replaceNamespacedConfigMap({ name, namespace: 'default', body: stale }),
      (err) => statusCode(err) === 409,
    );
    const fresh = await core.readNamespacedConfigMap({ name, namespace: 'default' });
    const replaced = await core.replaceNamespacedConfigMap({
      name,
      namespace: 'default',
      body: { ...fresh, data: { c: '3' } },
    });
    assert.deepEqual(replaced.data, { c: '3' });
    assert.ok(Number(replaced.metadata?.resourceVersion) > Number(fresh.metadata?.resourceVersion));

    await assert.rejects(
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name } } }),
      (err) => statusCode(err) === 409,
    );
    await assert.rejects(
      core.createNamespacedConfigMap({ namespace: 'no-such-ns', body: { metadata: { name: 'x' } } }),
      (err) => statusCode(err) === 404,
    );
    await core.deleteNamespacedConfigMap({ name, namespace: 'default' });
    await assert.rejects(
      core.readNamespacedConfigMap({ name, namespace: 'default' }),
      (err) => statusCode(err) === 404,
    );
  });

  it('folds Secret stringData into base64 data', async () => {
    const s = await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'creds' }, stringData: { password: 'hunter2' } },
    });
    assert.equal(s.type, 'Opaque');
    assert.equal(s.data?.password, Buffer.from('hunter2').toString('base64'));
    assert.equal(s.stringData, undefined);
  });

  it('creates a deployment, strategic-merge patches it and scales it', async () => {
    const d = await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }] }] },
          },
        },
      },
    });
    assert.equal(d.metadata?.generation, 1);
    const p = await apps.patchNamespacedDeployment(
      {
        name: 'web',
        namespace: 'default',
        body: {
          spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'B', value: '2' }] }] } } },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(
      p.spec?.template.spec?.containers[0].env?.map((e) => e.name),
      ['B', 'A'],
    );
    assert.equal(p.metadata?.generation, 2);
    const scale = await apps.replaceNamespacedDeploymentScale({
      name: 'web',
      namespace: 'default',
      body: { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } },
    });
    assert.equal(scale.spec?.replicas, 3);
    assert.equal(
      (await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' })).spec?.replicas,
      3,
    );
    await assert.rejects(
      apps.createNamespacedDeployment({
        namespace: 'default',
        body: {
          metadata: { name: 'bad' },
          spec: {
            selector: { matchLabels: { a: 'b' } },
            template: { metadata: { labels: { a: 'c' } }, spec: { containers: [] } },
          },
        },
      }),
      (err) => statusCode(err) === 422,
    );
  });

  it('serves a CRD and its custom resources (the KubeSphere User type)', async () => {
    const ext = await devRequest(dev, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'users.iam.kubesphere.io' },
      spec: {
        group: 'iam.kubesphere.io',
        scope: 'Cluster',
        names: { plural: 'users', singular: 'user', kind: 'User', listKind: 'UserList' },
        versions: [
          {
            name: 'v1alpha2',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    assert.equal(ext.status, 201, ext.text);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const u = (await custom.createClusterCustomObject({
      group: 'iam.kubesphere.io',
      version: 'v1alpha2',
      plural: 'users',
      body: {
        apiVersion: 'iam.kubesphere.io/v1alpha2',
        kind: 'User',
        metadata: { name: 'admin' },
        spec: { email: 'a@example.com' },
        status: { state: 'ignored' },
      },
    })) as { metadata: { name: string }; status?: unknown };
    assert.equal(u.metadata.name, 'admin');
    assert.equal(u.status, undefined, 'status is dropped on create when the status subresource is enabled');
    const st = (await custom.patchClusterCustomObjectStatus(
      {
        group: 'iam.kubesphere.io',
        version: 'v1alpha2',
        plural: 'users',
        name: 'admin',
        body: { status: { state: 'Active' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as { status: { state: string } };
    assert.equal(st.status.state, 'Active');
    const list = (await custom.listClusterCustomObject({
      group: 'iam.kubesphere.io',
      version: 'v1alpha2',
      plural: 'users',
    })) as {
      items: unknown[];
    };
    assert.equal(list.items.length, 1);
  });

  it('an informer sees adds, updates and deletes, and recovers from a 410', async () => {
    const events: string[] = [];
    let lists = 0;
    const informer = makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'default' });
    });
    informer.on(ADD, (o) => events.push(`add:${o.metadata?.name}`));
    informer.on(UPDATE, (o) => events.push(`update:${o.metadata?.name}:${o.data?.v}`));
    informer.on(DELETE, (o) => events.push(`delete:${o.metadata?.name}`));
    let stopped = false;
    informer.on('error', () => {
      if (!stopped) setTimeout(() => void (!stopped && informer.start()), 200);
    });
    await informer.start();
    try {
      await waitFor(() => dev.watchCount() > 0, 'the informer watch');
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'inf' }, data: { v: '1' } },
      });
      await waitFor(() => events.includes('add:inf'), 'add event');
      await core.patchNamespacedConfigMap(
        { name: 'inf', namespace: 'default', body: { data: { v: '2' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await waitFor(() => events.includes('update:inf:2'), 'update event');
      await core.deleteNamespacedConfigMap({ name: 'inf', namespace: 'default' });
      await waitFor(() => events.includes('delete:inf'), 'delete event');

      // In one tick (no bookmark can slip in): drop the informer's watch, then write a configmap and a secret it
      // therefore never delivers, and compact the history past the informer's resourceVersion. Its re-watch gets a
      // 410 Expired, it re-lists, and so it learns about the configmap written meanwhile. (Ending the watch after
      // the writes would let the watch deliver them first: the writes reach its socket synchronously.)
      const listsBefore = lists;
      const cmDef = dev.rest.registry.find('', 'v1', 'configmaps');
      const secretDef = dev.rest.registry.find('', 'v1', 'secrets');
      assert.ok(cmDef && secretDef);
      dev.endWatches();
      dev.rest.create(cmDef, 'default', { metadata: { name: 'after-410' } });
      dev.rest.create(secretDef, 'default', { metadata: { name: 'bump' } });
      dev.store.compact(dev.store.currentRv);
      await waitFor(
        () => informer.list().some((o) => o.metadata?.name === 'after-410'),
        'the informer to re-list after 410',
      );
      assert.ok(lists > listsBefore, 'the informer re-listed');
      assert.ok(events.includes('add:after-410'));
    } finally {
      stopped = true;
      await informer.stop();
    }
  });

  it('watch over raw HTTP: headers at once, bookmarks, resume, 410 ERROR event', async () => {
    const https = await import('node:https');
    const rv = dev.store.currentRv;
    const lines: string[] = [];
    const req = https.request(
      `${dev.url}/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=5`,
      {
        ca: dev.caPem,
        headers: { Authorization: `Bearer ${dev.token}` },
      },
    );
    const status = await new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (c: string) => {
          buf += c;
          const parts = buf.split('\n');
          buf = parts.pop() ?? '';
          lines.push(...parts.filter(Boolean));
        });
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200, 'headers arrive before any event');
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'raw-watch' } } });
    await waitFor(() => lines.some((l) => l.includes('"raw-watch"')), 'the ADDED event');
    await waitFor(() => lines.some((l) => l.startsWith('{"type":"BOOKMARK"')), 'a bookmark');
    const added = JSON.parse(lines.find((l) => l.includes('"raw-watch"')) ?? '{}') as { type: string };
    assert.equal(added.type, 'ADDED');
    req.destroy();

    const old = await devRequest(
      dev,
      'GET',
      '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1',
    );
    const ev = JSON.parse(old.text.trim().split('\n')[0]) as {
      type: string;
      object: { code: number; reason: string };
    };
    assert.equal(ev.type, 'ERROR');
    assert.equal(ev.object.code, 410);
    assert.equal(ev.object.reason, 'Expired');
  });

  it('paginates with limit/continue over a consistent snapshot', async () => {
    // The namespace already holds the root CA publisher's ConfigMap, which sorts first.
    await dev.controllers.idle();
    assert.ok(dev.store.get('/configmaps', 'kube-public', 'kube-root-ca.crt'));
    for (let i = 0; i < 7; i++)
      await core.createNamespacedConfigMap({
        namespace: 'kube-public',
        body: { metadata: { name: `page-${i}` } },
      });
    const first = await core.listNamespacedConfigMap({ namespace: 'kube-public', limit: 3 });
    assert.equal(first.items.length, 3);
    assert.equal(first.metadata?.remainingItemCount, 5);
    await core.deleteNamespacedConfigMap({ name: 'page-5', namespace: 'kube-public' });
    await core.createNamespacedConfigMap({
      namespace: 'kube-public',
      body: { metadata: { name: 'page-9' } },
    });
    const names = first.items.map((i) => i.metadata?.name);
    let cont = first.metadata?._continue;
    while (cont) {
      const page = await core.listNamespacedConfigMap({
        namespace: 'kube-public',
        limit: 3,
        _continue: cont,
      });
      assert.equal(page.metadata?.resourceVersion, first.metadata?.resourceVersion);
      names.push(...page.items.map((i) => i.metadata?.name));
      cont = page.metadata?._continue;
    }
    assert.deepEqual(names, [
      'kube-root-ca.crt',
      'page-0',
      'page-1',
      'page-2',
      'page-3',
      'page-4',
      'page-5',
      'page-6',
    ]);
    const bad = await devRequest(dev, 'GET', '/api/v1/configmaps?labelSelector=a%20in%20(b');
    assert.equal(bad.status, 400);
    const badField = await devRequest(dev, 'GET', '/api/v1/configmaps?fieldSelector=spec.nope%3Dx');
    assert.equal(badField.status, 400);
    const byNode = await devRequest(dev, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode1');
    const onNode1 = (byNode.body as { items: { metadata: { name: string } }[] }).items.map(
      (p) => p.metadata.name,
    );
    const expected = dev.store
      .list('/pods')
      .filter((e) => (e.obj.spec as { nodeName?: string }).nodeName === 'node1')
      .map((e) => e.name);
    assert.ok(
      onNode1.some((n) => n.startsWith('kube-proxy-')),
      'the DaemonSet pod of node1',
    );
    assert.deepEqual(onNode1, expected);
  });

  it('rejects requests without the bearer token', async () => {
    const r = await devRequest({ ...dev, token: 'wrong' }, 'GET', '/api/v1/nodes');
    assert.equal(r.status, 401);
    assert.equal((r.body as { kind: string }).kind, 'Status');
  });
});

describe('dev cluster durability', { timeout: 180_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'devcluster-durable-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps acknowledged writes across kill -9', async () => {
    const first = await startDevClusterProcess(dataDir);
    try {
      for (let i = 0; i < 20; i++) {
        const r = await devRequest(first, 'POST', '/api/v1/namespaces/default/configmaps', {
          metadata: { name: `d${i}` },
          data: { i: String(i) },
        });
        assert.equal(r.status, 201, r.text);
      }
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    const second = await startDevClusterProcess(dataDir);
    try {
      assert.equal(second.token, first.token, 'the token survives restarts');
      const r = await devRequest(second, 'GET', '/api/v1/namespaces/default/configmaps');
      const items = (r.body as { items: { metadata: { name: string }; data: { i: string } }[] }).items.filter(
        (x) => x.metadata.name !== 'kube-root-ca.crt', // the root CA publisher's
      );
      assert.equal(items.length, 20);
      assert.equal(items.find((x) => x.metadata.name === 'd19')?.data.i, '19');
      const nodes = await devRequest(second, 'GET', '/api/v1/nodes');
      assert.equal((nodes.body as { items: unknown[] }).items.length, 3, 'demo data is not seeded twice');
    } finally {
      await second.close();
    }
  });
});
