// kill -9 of a dev cluster child in the middle of its controllers' grouped commits (a Deployment scaling up while
// clients write): after the restart, every write answered to a client is there, and so is every pod state a watch was
// shown (a watch sees only committed writes).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Obj } from '../../src/devcluster/store.ts';
import { devRequest, devWatch, startDevClusterProcess } from '../helpers/devcluster.ts';

const NS = 'burst';
const WRITERS = 4;
const rvOf = (o: Obj) => Number((o.metadata as Obj).resourceVersion);
const nameOf = (o: Obj) => String((o.metadata as Obj).name);

describe('dev cluster crash during grouped commits', { timeout: 180_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'devcluster-crash-burst-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('loses no answered write and no watched pod state', async () => {
    const first = await startDevClusterProcess(dataDir);
    const acked: string[] = [];
    const watched = new Map<string, number>();
    try {
      const ns = await devRequest(first, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
      assert.equal(ns.status, 201, ns.text);
      const pods = `/api/v1/namespaces/${NS}/pods`;
      const listed = (await devRequest(first, 'GET', pods)).body as { metadata: { resourceVersion: string } };
      const w = await devWatch(
        first,
        `${pods}?watch=true&resourceVersion=${listed.metadata.resourceVersion}`,
      );
      const created = await devRequest(first, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
        metadata: { name: 'burst' },
        spec: {
          replicas: 150,
          selector: { matchLabels: { app: 'burst' } },
          template: {
            metadata: { labels: { app: 'burst' } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      });
      assert.equal(created.status, 201, created.text);
      let killed = false;
      const writers = Array.from({ length: WRITERS }, async (_, k) => {
        for (let i = 0; !killed; i++) {
          const name = `w${k}-${i}`;
          try {
            const r = await devRequest(first, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
              metadata: { name },
            });
            if (r.status === 201) acked.push(name);
          } catch {
            return; // cut off by the kill
          }
        }
      });
      // Kill while the controllers are busy: once the watch has shown a good part of the burst.
      const deadline = Date.now() + 60_000;
      while (w.events.length < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      first.child.kill('SIGKILL');
      killed = true;
      await first.exited;
      await Promise.all(writers);
      w.stop();
      for (const e of w.events) if (e.type !== 'DELETED') watched.set(nameOf(e.object), rvOf(e.object));
      assert.ok(watched.size > 0 && acked.length > 0, 'the kill came during the burst and the writes');
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }

    const second = await startDevClusterProcess(dataDir);
    try {
      const cms = (await devRequest(second, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).body as {
        items: Obj[];
      };
      const present = new Set(cms.items.map(nameOf));
      assert.deepEqual(
        acked.filter((n) => !present.has(n)),
        [],
        'every answered configmap survived',
      );
      const pods = (await devRequest(second, 'GET', `/api/v1/namespaces/${NS}/pods`)).body as {
        items: Obj[];
      };
      const after = new Map(pods.items.map((p) => [nameOf(p), rvOf(p)]));
      const lost = [...watched].filter(([name, rv]) => !((after.get(name) ?? 0) >= rv));
      assert.deepEqual(lost, [], 'every pod state a watch saw survived');
    } finally {
      await second.close();
    }
  });
});
