// generateName as kube-apiserver 1.30+ (RetryGenerateName): a drawn name that is taken is drawn again, up to 8 names
// in all, before the create fails as AlreadyExists. The suffix source (crypto.randomBytes) is replaced for the
// duration of each case, so collisions are certain instead of one in 14 million.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';

let dev: TestDevCluster;
const realRandomBytes = crypto.randomBytes;

/** Makes every n-byte draw come from `next` (one byte value per draw) until restored. */
function drawSuffixes(next: () => number): void {
  (crypto as { randomBytes: unknown }).randomBytes = (n: number) => Buffer.alloc(n, next());
  syncBuiltinESMExports();
}

function restoreRandom(): void {
  crypto.randomBytes = realRandomBytes;
  syncBuiltinESMExports();
}

const create = (generateName: string) =>
  devRequest(dev, 'POST', '/api/v1/namespaces/default/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { generateName },
  });

describe('dev cluster generateName', { timeout: 60_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
  });
  after(async () => {
    restoreRandom();
    await dev?.close();
  });

  it('draws again when the generated name is taken', async () => {
    const draws = [0, 0, 0, 1];
    let i = 0;
    drawSuffixes(() => draws[Math.min(i++, draws.length - 1)]);
    try {
      const first = await create('retry-');
      assert.equal(first.status, 201);
      assert.equal((first.body as { metadata: { name: string } }).metadata.name, 'retry-bbbbb');
      const second = await create('retry-');
      assert.equal(second.status, 201, JSON.stringify(second.body));
      assert.equal((second.body as { metadata: { name: string } }).metadata.name, 'retry-ccccc');
    } finally {
      restoreRandom();
    }
  });

  it('fails as AlreadyExists after 8 taken names, and stores nothing', async () => {
    let draws = 0;
    drawSuffixes(() => {
      draws++;
      return 0;
    });
    try {
      assert.equal((await create('full-')).status, 201);
      draws = 0;
      const refused = await create('full-');
      assert.equal(refused.status, 409);
      assert.equal(draws, 8);
      assert.equal((refused.body as { reason: string }).reason, 'AlreadyExists');
    } finally {
      restoreRandom();
    }
    const list = await devRequest(dev, 'GET', '/api/v1/namespaces/default/configmaps');
    const names = (list.body as { items: { metadata: { name: string } }[] }).items
      .map((o) => o.metadata.name)
      .filter((n) => n.startsWith('full-'));
    assert.deepEqual(names, ['full-bbbbb']);
  });
});
