// Volumes on the dev cluster with the real kubectl: `kubectl apply` of a claim and a pod that mounts it gives a Bound
// claim (`kubectl get pvc`), a provisioned volume of the default class (`kubectl get pv`) and a Running pod; the
// default class shows as `standard (default)`; deleting both removes the volume (reclaim policy Delete).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

if (!hasKubectl) console.log(`# skipping dev cluster volume tests: ${NO_KUBECTL}`);

let dev: TestDevCluster;
let kubectl: Kubectl;

async function ok(args: string[], stdin?: string): Promise<string> {
  const r = await kubectl.run(args, stdin);
  assert.equal(r.status, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

const MANIFEST = `
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 2Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: app
  namespace: default
spec:
  containers:
    - name: main
      image: nginx:1.27
      volumeMounts:
        - name: data
          mountPath: /data
  volumes:
    - name: data
      persistentVolumeClaim:
        claimName: data
`;

describe('volumes on the dev cluster', { skip: !hasKubectl && NO_KUBECTL, timeout: 300_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster();
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
  });
  after(async () => {
    await dev?.close();
  });

  it('kubectl get storageclass shows the default class', async () => {
    assert.match(
      await ok(['get', 'storageclass']),
      /^standard \(default\)\s+devcluster\.kapiserver\.io\/local-path\s+Delete\s+WaitForFirstConsumer\s+true\s+/m,
    );
  });

  it('apply a claim and a pod: the claim binds, the volume is provisioned, the pod runs; delete removes the volume', async () => {
    await ok(['apply', '-f', '-'], MANIFEST);
    await ok(['wait', '--for=condition=Ready', 'pod/app', '--timeout=60s']);
    await ok(['wait', '--for=jsonpath={.status.phase}=Bound', 'pvc/data', '--timeout=60s']);
    const pvc = await ok(['get', 'pvc', 'data']);
    const uid = (await ok(['get', 'pvc', 'data', '-o', 'jsonpath={.metadata.uid}'])).trim();
    assert.match(pvc, new RegExp(`^data\\s+Bound\\s+pvc-${uid}\\s+2Gi\\s+RWO\\s+standard\\s+`, 'm'));
    const pv = await ok(['get', 'pv']);
    assert.match(
      pv,
      new RegExp(`^pvc-${uid}\\s+2Gi\\s+RWO\\s+Delete\\s+Bound\\s+default/data\\s+standard\\s+`, 'm'),
    );
    assert.equal((await ok(['get', 'pod', 'app', '-o', 'jsonpath={.status.phase}'])).trim(), 'Running');
    const node = (await ok(['get', 'pod', 'app', '-o', 'jsonpath={.spec.nodeName}'])).trim();
    assert.equal(
      (
        await ok([
          'get',
          'pvc',
          'data',
          '-o',
          `jsonpath={.metadata.annotations.volume\\.kubernetes\\.io/selected-node}`,
        ])
      ).trim(),
      node,
    );

    await ok(['delete', '-f', '-', '--wait=true', '--timeout=60s'], MANIFEST);
    for (let i = 0; ; i++) {
      const left = await kubectl.run(['get', 'pv', `pvc-${uid}`]);
      if (left.status !== 0 && /NotFound/.test(left.stderr)) break;
      assert.ok(i < 100, `the volume is still there:\n${left.stdout}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});
