// ResourceQuota and LimitRange are stored and served by the dev cluster (KubeSphere's console reads both on every
// project page), checked with the real kubectl: created, listed by short name, read back as written.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

describe('ResourceQuota and LimitRange', { skip: !hasKubectl && NO_KUBECTL, timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  let kubectl: Kubectl;
  before(async () => {
    dev = await startTestDevCluster();
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
  });
  after(() => dev?.close());

  it('kubectl creates, lists and reads them back', async () => {
    const created = await kubectl.run(['create', 'quota', 'team', '--hard=pods=5,cpu=2', '-n', 'default']);
    assert.equal(created.status, 0, created.stderr);
    const limits = JSON.stringify({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'defaults', namespace: 'default' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m' } }] },
    });
    const applied = await kubectl.run(['apply', '-f', '-'], limits);
    assert.equal(applied.status, 0, applied.stderr);

    const quota = JSON.parse(
      (await kubectl.run(['get', 'quota', 'team', '-n', 'default', '-o', 'json'])).stdout,
    );
    assert.equal(quota.kind, 'ResourceQuota');
    assert.deepEqual(quota.spec.hard, { pods: '5', cpu: '2' });
    const lr = JSON.parse((await kubectl.run(['get', 'limits', '-A', '-o', 'json'])).stdout);
    assert.deepEqual(
      lr.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['defaults'],
    );
    assert.equal(lr.items[0].spec.limits[0].default.cpu, '500m');
  });
});
