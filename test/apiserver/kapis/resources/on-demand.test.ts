// Informers started on demand: Events are not cached until they are listed, and an informer a request starts (and
// waits for itself) does not hold /readyz's informer-cache check back.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ClusterCache, ClusterConnection } from '../../../../src/apiserver/cluster/index.ts';
import { ResourceService } from '../../../../src/apiserver/kapis/resources/service.ts';
import { startTinyApiServer } from '../fixtures/tiny-apiserver.ts';

const tiny = await startTinyApiServer('/api/v1/events');
const cleanups: (() => Promise<void>)[] = [() => tiny.close()];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('events are cached only once listed, then kept current', async () => {
  for (const name of ['e1', 'e2'])
    tiny.put({ metadata: { name, namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' } });
  const cluster = tiny.connection();
  const cache = new ClusterCache(cluster, undefined, { maxBackoffMs: 200, absentRetryMs: 200 });
  cleanups.push(() => cache.close());
  const service = new ResourceService(cache, cluster);
  service.start();
  await cache.waitForSync(10_000);
  const cached = () => cache.stats().map((s) => s.resource);
  assert.ok(cached().includes('/v1/pods'), 'the other built-in types start at boot');
  assert.ok(!cached().includes('/v1/events'), 'events are not listed at boot');
  assert.ok(!tiny.requests.some((r) => r.startsWith('GET /api/v1/events')));

  const events = await service.builtin('events');
  assert.deepEqual(
    events.sorted('name').map((e) => e.name),
    ['e1', 'e2'],
  );
  assert.ok(cached().includes('/v1/events'));
  tiny.put({ metadata: { name: 'e3', namespace: 'default', creationTimestamp: '2024-01-01T00:00:01Z' } });
  const end = Date.now() + 10_000;
  while (events.size < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  assert.equal(events.size, 3, 'watched like any informer');
});

test('an informer asked for on demand does not hold readiness back; one asked for plainly does', async () => {
  // Nothing listens on port 1: these informers never sync.
  const cache = new ClusterCache(new ClusterConnection({ server: 'http://127.0.0.1:1' }), undefined, {
    maxBackoffMs: 200,
  });
  cleanups.push(() => cache.close());
  const ref = { group: '', version: 'v1', resource: 'events' };
  const inf = cache.informer(ref, { onDemand: true });
  assert.equal(inf.hasSynced(), false);
  assert.equal(cache.synced(), true);
  assert.equal(cache.informer(ref, { onDemand: true }), inf);
  assert.equal(cache.synced(), true);
  assert.equal(cache.informer(ref), inf, 'one shared informer');
  assert.equal(cache.synced(), false, 'a caller that needs it at once makes readiness wait for it');
  assert.equal(cache.informer(ref, { onDemand: true }), inf);
  assert.equal(cache.synced(), false);
});
