// Informer behaviour over HTTP: initial list, watch events, indexes, sorted views, handlers, resync after a broken
// watch and after 410 Gone, absent resource types.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ClusterCache } from '../../../src/apiserver/cluster/cache.ts';
import { listBody } from '../../../src/apiserver/kapis/resources/list.ts';
import { startTinyApiServer, type TinyApiServer } from './fixtures/tiny-apiserver.ts';

const NODES = { group: '', version: 'v1', resource: 'nodes' };

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function node(name: string, created: string, labels?: Record<string, string>) {
  return {
    metadata: { name, creationTimestamp: created, labels, managedFields: [{ manager: 'x' }] },
    spec: {},
  };
}

let tiny: TinyApiServer;
let cache: ClusterCache;

before(async () => {
  tiny = await startTinyApiServer('/api/v1/nodes');
  tiny.put(node('b', '2024-01-02T00:00:00Z', { role: 'worker', empty: '' }));
  tiny.put(node('a', '2024-01-03T00:00:00Z', { role: 'master' }));
  tiny.put(node('c', '2024-01-01T00:00:00Z'));
  cache = new ClusterCache(tiny.connection(), undefined, { maxBackoffMs: 200, absentRetryMs: 200 });
});

after(async () => {
  await cache?.close();
  await tiny?.close();
});

test('initial list: synced, compact entries, selfLink and kind filled in, managedFields dropped', async () => {
  const inf = cache.informer(NODES);
  assert.equal(cache.informer(NODES), inf, 'one shared informer per resource');
  assert.equal(await inf.waitForSync(10_000), true);
  assert.equal(cache.synced(), true);
  assert.equal(inf.size, 3);
  const b = inf.get('', 'b');
  assert.ok(b);
  const obj = b.object();
  assert.equal(obj.kind, 'Node');
  assert.equal(obj.apiVersion, 'v1');
  assert.equal(obj.metadata?.selfLink, '/api/v1/nodes/b');
  assert.equal(obj.metadata?.managedFields, undefined);
  assert.deepEqual(obj.metadata?.labels, { role: 'worker', empty: '' }, 'empty label values kept');
  assert.deepEqual(
    cache.stats().map((s) => [s.resource, s.synced, s.objects]),
    [['/v1/nodes', true, 3]],
  );
});

test('label index, custom index and sorted views follow watch events', async () => {
  const inf = cache.informer(NODES);
  await inf.waitForSync();
  inf.addIndex('role', (o) => {
    const r = o.metadata?.labels?.role;
    return r ? [r] : [];
  });
  const byCreated = () => inf.sorted('creationTimestamp').map((e) => e.name);
  const byName = () => inf.sorted('name').map((e) => e.name);
  assert.deepEqual(byCreated(), ['c', 'b', 'a']);
  assert.deepEqual(byName(), ['a', 'b', 'c']);
  assert.deepEqual([...inf.keysWithLabel('empty', '')], ['b']);
  assert.deepEqual([...inf.keysByIndex('role', 'master')], ['a']);

  tiny.put(node('d', '2023-12-31T00:00:00Z', { role: 'master' }));
  tiny.put(node('a', '2024-01-03T00:00:00Z', { role: 'worker' }));
  tiny.del('c');
  await until(() => inf.size === 3 && inf.get('', 'd') !== undefined, 'watch events');
  await until(() => inf.get('', 'a')?.labels?.role === 'worker', 'update of a');
  assert.deepEqual(byCreated(), ['d', 'b', 'a']);
  assert.deepEqual(byName(), ['a', 'b', 'd']);
  assert.deepEqual([...inf.keysByIndex('role', 'master')], ['d']);
  assert.deepEqual([...inf.keysWithLabel('role', 'worker')].sort(), ['a', 'b']);
  assert.deepEqual([...inf.keysWithLabel('role')].sort(), ['a', 'b', 'd']);
});

test('updates: views hold the new version in place, a changed sort key moves it, labels and indexes follow', async () => {
  const inf = cache.informer(NODES);
  await inf.waitForSync();
  const rank = (o: { metadata?: { labels?: Record<string, string> } }) =>
    Number(o.metadata?.labels?.rank ?? 0);
  const byRank = () => inf.sorted(rank).map((e) => e.name);
  inf.addIndex('rank', (o) => [String(rank(o))]);
  const names = inf.sorted('name').map((e) => e.name);
  assert.deepEqual(byRank(), [...names].sort(), 'equal keys: by name');

  const [first, second] = names;
  tiny.put(node(first, '2024-01-03T00:00:00Z', { rank: '5', role: 'worker' }));
  await until(() => inf.get('', first)?.labels?.rank === '5', 'rank update');
  assert.deepEqual(byRank(), [...names.slice(1), first], 'a changed key moves the entry');
  assert.deepEqual([...inf.keysByIndex('rank', '5')], [first]);
  assert.deepEqual([...inf.keysByIndex('rank', '0')].sort(), names.slice(1));
  assert.deepEqual([...inf.keysWithLabel('rank')], [first]);

  tiny.put(node(second, '2024-01-02T00:00:00Z', { role: 'worker', note: 'x' }));
  await until(() => inf.get('', second)?.labels?.note === 'x', 'label update');
  const fresh = inf.get('', second);
  assert.equal(inf.sorted('name')[1], fresh, 'the view holds the new entry in the old slot');
  assert.equal(inf.sorted(rank).includes(fresh as never), true);
  assert.equal(inf.sorted('creationTimestamp').filter((e) => e.name === second).length, 1, 'no stale copy');
  assert.deepEqual([...inf.keysWithLabel('note', 'x')], [second]);
  assert.deepEqual(
    inf.sorted('name').map((e) => e.name),
    names,
    'names keep their order',
  );
});

test('handlers: replay on subscribe, add/update/delete, resync after a broken watch and after 410', async () => {
  const inf = cache.informer(NODES);
  await inf.waitForSync();
  const seen: string[] = [];
  const off = inf.addEventHandler({
    onAdd: (o) => seen.push(`add ${o.metadata?.name}`),
    onUpdate: (o, old) =>
      seen.push(
        `update ${o.metadata?.name} ${old.object().metadata?.resourceVersion}->${o.metadata?.resourceVersion}`,
      ),
    onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
  });
  assert.deepEqual(seen.sort(), ['add a', 'add b', 'add d']);
  seen.length = 0;

  // A broken watch resumes from the last resourceVersion: nothing is lost, nothing replayed.
  const watchesBefore = inf.stats.watches;
  tiny.breakWatches();
  tiny.put(node('e', '2024-02-01T00:00:00Z'));
  await until(() => inf.get('', 'e') !== undefined, 'event after broken watch');
  assert.ok(inf.stats.watches > watchesBefore);
  assert.deepEqual(seen, ['add e']);
  seen.length = 0;

  // History compacted while the watch is down: the resumed watch gets 410, the informer relists and diffs.
  const listsBefore = inf.stats.lists;
  tiny.compact();
  tiny.breakWatches();
  tiny.del('b');
  tiny.put(node('f', '2024-02-02T00:00:00Z'));
  tiny.compact();
  await until(() => inf.get('', 'f') !== undefined && inf.get('', 'b') === undefined, 'relist after 410');
  assert.ok(inf.stats.relistsAfterGone >= 1, 'a 410 was seen');
  assert.ok(inf.stats.lists > listsBefore, 'relisted');
  assert.deepEqual(seen.sort(), ['add f', 'delete b']);
  assert.deepEqual(
    inf.sorted('creationTimestamp').map((e) => e.name),
    ['d', 'a', 'e', 'f'],
  );
  off();
  tiny.put(node('g', '2024-02-03T00:00:00Z'));
  await until(() => inf.get('', 'g') !== undefined, 'g');
  assert.deepEqual(seen.sort(), ['add f', 'delete b'], 'unsubscribed handler gets nothing');
});

test('a resource type the server does not serve is synced and empty, and keeps being retried', async () => {
  const inf = cache.informer({ group: 'iam.kubesphere.io', version: 'v1alpha2', resource: 'users' });
  assert.equal(await inf.waitForSync(10_000), true);
  assert.equal(inf.isAbsent(), true);
  assert.equal(inf.size, 0);
  const count = () => tiny.requests.filter((r) => r.startsWith('GET /apis/iam.kubesphere.io')).length;
  const n = count();
  await until(() => count() > n, 'retry of the absent type');
});

test('non-ASCII text survives the cache and a list page byte for byte', async () => {
  const server = await startTinyApiServer('/api/v1/configmaps');
  const own = new ClusterCache(server.connection());
  try {
    const text = 'Grüße, 节点 ✓ 🚀';
    server.put({ metadata: { name: 'cm', namespace: 'ns', annotations: { note: text } }, data: { k: text } });
    const inf = own.informer({ group: '', version: 'v1', resource: 'configmaps' });
    assert.equal(await inf.waitForSync(10_000), true);
    const entry = inf.get('ns', 'cm');
    assert.ok(entry);
    assert.equal(entry.object().metadata?.annotations?.note, text);
    assert.equal(JSON.parse(entry.json).data.k, text);
    assert.equal(Buffer.from(entry.bytes).toString(), entry.json);
    const body = JSON.parse(listBody({ entries: [entry, entry], total: 7 }).toString('utf8'));
    assert.equal(body.totalItems, 7);
    assert.deepEqual(
      body.items.map((i: { data: { k: string } }) => i.data.k),
      [text, text],
    );
    const empty = JSON.parse(listBody({ entries: [], total: 0 }).toString('utf8'));
    assert.deepEqual(empty, { items: [], totalItems: 0 });
  } finally {
    await own.close();
    await server.close();
  }
});

test("a namespace's sorted view holds only its entries, follows changes, and is rebuilt after the namespace empties", async () => {
  const server = await startTinyApiServer('/api/v1/configmaps');
  const own = new ClusterCache(server.connection());
  const cm = (name: string, namespace: string, created: string) => ({
    metadata: { name, namespace, creationTimestamp: created },
  });
  try {
    server.put(cm('b', 'one', '2024-01-02T00:00:00Z'));
    server.put(cm('a', 'one', '2024-01-03T00:00:00Z'));
    server.put(cm('c', 'two', '2024-01-01T00:00:00Z'));
    const inf = own.informer({ group: '', version: 'v1', resource: 'configmaps' });
    assert.equal(await inf.waitForSync(10_000), true);
    const keys = (ns: string) => inf.sorted('creationTimestamp', ns).map((e) => e.key);
    assert.deepEqual(keys('one'), ['one/b', 'one/a']);
    assert.deepEqual(keys('two'), ['two/c']);
    assert.deepEqual(keys('none'), []);

    server.put(cm('d', 'one', '2024-01-01T00:00:00Z'));
    server.del('c', 'two');
    await until(() => inf.get('one', 'd') !== undefined && inf.get('two', 'c') === undefined, 'changes');
    assert.deepEqual(keys('one'), ['one/d', 'one/b', 'one/a']);
    assert.deepEqual(keys('two'), []);
    server.put(cm('e', 'two', '2024-01-05T00:00:00Z'));
    await until(() => inf.get('two', 'e') !== undefined, 'e');
    assert.deepEqual(keys('two'), ['two/e']);
    assert.deepEqual(
      inf.sorted('creationTimestamp').map((e) => e.key),
      ['one/d', 'one/b', 'one/a', 'two/e'],
    );
  } finally {
    await own.close();
    await server.close();
  }
});
