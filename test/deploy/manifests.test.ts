// The deploy/ manifests: what `kubectl kustomize` renders (the properties the issue asks for), and that the real
// kubectl applies them to the dev cluster, twice (idempotent), plus the NodePort variant.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, kubectlRunner } from './kubectl.ts';

let dev: TestDevCluster | undefined;
const { run: kubectl, home } = kubectlRunner(() => dev?.kubeconfigPath);

before(async () => {
  if (hasKubectl) dev = await startTestDevCluster();
});
after(async () => {
  await dev?.close();
  rmSync(home, { recursive: true, force: true });
});

type Obj = Record<string, unknown>;

/** Value at a dotted path (`spec.template.spec`), or undefined. */
function at(o: unknown, path: string): unknown {
  let cur = o;
  for (const k of path.split('.')) cur = cur && typeof cur === 'object' ? (cur as Obj)[k] : undefined;
  return cur;
}
const list = (o: unknown, path: string): Obj[] => (at(o, path) ?? []) as Obj[];

async function render(dir: string): Promise<Obj[]> {
  const r = await kubectl(['kustomize', dir]);
  assert.equal(r.status, 0, r.stderr);
  return parseAllDocuments(r.stdout).map((d) => d.toJSON() as Obj);
}

function one(objs: Obj[], kind: string, name: string): Obj {
  const found = objs.filter((o) => o.kind === kind && at(o, 'metadata.name') === name);
  assert.equal(found.length, 1, `${kind}/${name}`);
  return found[0];
}

const CLUSTER_SCOPED = ['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition'];
const skip = !hasKubectl && 'kubectl is not installed';

test('the kustomization renders the whole deployment in kubesphere-system', { skip }, async () => {
  const objs = await render('deploy/');
  for (const o of objs) {
    if (CLUSTER_SCOPED.includes(String(o.kind))) continue;
    assert.equal(at(o, 'metadata.namespace'), 'kubesphere-system', `${o.kind}/${at(o, 'metadata.name')}`);
  }
  one(objs, 'Namespace', 'kubesphere-system');
  one(objs, 'ServiceAccount', 'kubesphere');
  const config = one(objs, 'ConfigMap', 'kubesphere-config');
  assert.match(
    String((at(config, 'data') as Obj)['kubesphere.yaml']),
    /redis:\n\s+host: redis\.kubesphere-system\.svc/,
  );
  one(objs, 'Secret', 'kubesphere-secret');

  const deploy = one(objs, 'Deployment', 'ks-apiserver');
  assert.equal(at(deploy, 'spec.replicas'), 2);
  const pod = at(deploy, 'spec.template.spec');
  assert.equal(at(pod, 'serviceAccountName'), 'kubesphere');
  assert.equal(at(pod, 'securityContext.runAsNonRoot'), true);
  const [c] = list(pod, 'containers');
  assert.equal(at(c, 'readinessProbe.httpGet.path'), '/readyz');
  assert.equal(at(c, 'livenessProbe.httpGet.path'), '/livez');
  for (const r of ['requests.cpu', 'requests.memory', 'limits.memory']) assert.ok(at(c, `resources.${r}`), r);
  assert.equal(at(c, 'securityContext.readOnlyRootFilesystem'), true);
  assert.equal(at(c, 'securityContext.allowPrivilegeEscalation'), false);
  assert.deepEqual(
    list(c, 'ports').map((p) => [p.name, p.containerPort]),
    [
      ['http', 9090],
      ['https', 9443],
    ],
  );
  assert.ok((at(c, 'args') as string[]).includes('--config=/etc/kubesphere/kubesphere.yaml'));
  const jwt = list(c, 'env').find((e) => e.name === 'KAPISERVER_JWT_SECRET');
  assert.deepEqual(at(jwt, 'valueFrom.secretKeyRef'), {
    name: 'kubesphere-secret',
    key: 'jwtSecret',
    optional: true,
  });
  // Every writable path is a volume (the root filesystem is read-only).
  const mounts = list(c, 'volumeMounts').map((m) => m.mountPath);
  for (const p of ['/etc/kubesphere', '/var/lib/kapiserver', '/tmp']) assert.ok(mounts.includes(p), p);

  const svc = one(objs, 'Service', 'ks-apiserver');
  assert.equal(at(svc, 'spec.type'), 'ClusterIP');
  assert.deepEqual(
    list(svc, 'spec.ports').map((p) => [p.port, p.targetPort]),
    [
      [80, 'http'],
      [443, 'https'],
    ],
  );
  one(objs, 'Deployment', 'redis');
  one(objs, 'Service', 'redis');

  const nodeport = one(await render('deploy/nodeport'), 'Service', 'ks-apiserver');
  assert.equal(at(nodeport, 'spec.type'), 'NodePort');
  assert.deepEqual(
    list(nodeport, 'spec.ports').map((p) => [p.port, p.nodePort]),
    [
      [80, 30880],
      [443, 30443],
    ],
  );
});

test('kubectl apply -k deploy/ succeeds against the dev cluster, and again (idempotent)', {
  skip,
  timeout: 180_000,
}, async () => {
  const first = await kubectl(['apply', '-k', 'deploy/']);
  assert.equal(first.status, 0, first.stderr);
  for (const line of [
    'serviceaccount/kubesphere created',
    'clusterrole.rbac.authorization.k8s.io/kubesphere created',
    'configmap/kubesphere-config created',
    'secret/kubesphere-secret created',
    'deployment.apps/ks-apiserver created',
    'service/ks-apiserver created',
  ]) {
    assert.ok(first.stdout.includes(line), `${line}\n${first.stdout}`);
  }
  const second = await kubectl(['apply', '-k', 'deploy/']);
  assert.equal(second.status, 0, second.stderr);
  assert.ok(!/created/.test(second.stdout), second.stdout);

  const got = JSON.parse(
    (await kubectl(['-n', 'kubesphere-system', 'get', 'deployment', 'ks-apiserver', '-o', 'json'])).stdout,
  );
  assert.equal(at(got, 'spec.replicas'), 2);

  // Every CRD of the kustomization is registered and served.
  for (const crd of await render('deploy/crds')) {
    const r = await kubectl(['get', String(at(crd, 'spec.names.plural'))]);
    assert.equal(r.status, 0, `${at(crd, 'metadata.name')}: ${r.stderr}`);
  }

  const np = await kubectl(['apply', '-k', 'deploy/nodeport']);
  assert.equal(np.status, 0, np.stderr);
  const svc = JSON.parse(
    (await kubectl(['-n', 'kubesphere-system', 'get', 'service', 'ks-apiserver', '-o', 'json'])).stdout,
  );
  assert.equal(at(svc, 'spec.type'), 'NodePort');
  assert.deepEqual(
    list(svc, 'spec.ports').map((p) => p.nodePort),
    [30880, 30443],
  );
});
