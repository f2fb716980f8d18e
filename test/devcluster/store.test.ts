import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Store, type StoreEvent } from '../../src/devcluster/store.ts';
import { StatusError } from '../../src/k8s/status.ts';

const dir = mkdtempSync(join(tmpdir(), 'devcluster-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const cm = (name: string, v: string) => ({ metadata: { name, namespace: 'ns' }, data: { v } });

describe('Store', () => {
  it('assigns one increasing resourceVersion and persists across reopen', () => {
    const path = join(dir, 'a.db');
    const s = new Store(path);
    const a = s.put('/configmaps', 'ns', 'a', cm('a', '1'));
    const b = s.put('/configmaps', 'ns', 'b', cm('b', '1'));
    const a2 = s.put('/configmaps', 'ns', 'a', cm('a', '2'));
    assert.deepEqual([a.rv, b.rv, a2.rv], [1, 2, 3]);
    assert.equal((a2.obj.metadata as Record<string, unknown>).resourceVersion, '3');
    s.remove('/configmaps', 'ns', 'b');
    s.close();
    const s2 = new Store(path);
    assert.equal(s2.currentRv, 4);
    assert.deepEqual(
      s2.list('/configmaps').map((e) => [e.name, (e.obj.data as Record<string, string>).v]),
      [['a', '2']],
    );
    s2.close();
  });

  it('keeps its resourceVersion across reopen when compaction took every event', () => {
    const path = join(dir, 'a2.db');
    const s = new Store(path);
    for (let i = 0; i < 3; i++) s.put('/configmaps', 'ns', `x${i}`, cm(`x${i}`, '1'));
    s.compact(s.currentRv);
    s.close();
    const s2 = new Store(path);
    assert.equal(s2.currentRv, 3);
    assert.equal(s2.put('/configmaps', 'ns', 'y', cm('y', '1')).rv, 4);
    s2.close();
    const s3 = new Store(path);
    assert.equal(s3.currentRv, 4, 'the newest event carries the counter');
    s3.close();
  });

  it('rebuilds consistent snapshots at older versions from the event log', () => {
    const s = new Store(join(dir, 'b.db'));
    s.put('/configmaps', 'ns', 'a', cm('a', '1')); // 1
    s.put('/configmaps', 'ns', 'b', cm('b', '1')); // 2
    const at = s.currentRv;
    s.put('/configmaps', 'ns', 'a', cm('a', '2')); // 3
    s.remove('/configmaps', 'ns', 'b'); // 4
    s.put('/configmaps', 'ns', 'c', cm('c', '1')); // 5
    const snap = s.snapshot('/configmaps', at);
    assert.deepEqual(
      snap.map((e) => [e.name, (e.obj.data as Record<string, string>).v, e.rv]),
      [
        ['a', '1', 1],
        ['b', '1', 2],
      ],
    );
    assert.deepEqual(
      s.list('/configmaps').map((e) => e.name),
      ['a', 'c'],
    );
    s.close();
  });

  it('replays events since a version and answers 410 once compacted', () => {
    const s = new Store(join(dir, 'c.db'));
    for (let i = 0; i < 5; i++) s.put('/configmaps', 'ns', `x${i}`, cm(`x${i}`, '1'));
    const seen: StoreEvent[] = [];
    const off = s.subscribe((e) => seen.push(e));
    s.remove('/configmaps', 'ns', 'x0');
    off();
    assert.deepEqual(
      seen.map((e) => [e.type, e.name, e.rv]),
      [['DELETED', 'x0', 6]],
    );
    assert.deepEqual(
      s.eventsSince('/configmaps', 3).map((e) => [e.type, e.name]),
      [
        ['ADDED', 'x3'],
        ['ADDED', 'x4'],
        ['DELETED', 'x0'],
      ],
    );
    s.compact(4);
    assert.throws(
      () => s.eventsSince('/configmaps', 2),
      (err: unknown) => err instanceof StatusError && err.code === 410,
    );
    assert.throws(
      () => s.snapshot('/configmaps', 2),
      (err: unknown) => err instanceof StatusError && err.code === 410,
    );
    assert.equal(s.eventsSince('/configmaps', 4).length, 2);
    s.close();
  });
  it('keeps list order through writes, and a list already given out unchanged', () => {
    const s = new Store(join(dir, 'order.db'));
    const names = (es: { ns: string; name: string }[]) => es.map((e) => `${e.ns}/${e.name}`);
    for (const [ns, name] of [
      ['b', 'y'],
      ['a', 'z'],
      ['b', 'x'],
      ['c', 'a'],
      ['a', 'b'],
    ])
      s.put('/configmaps', ns, name, { metadata: { name, namespace: ns } });
    const given = s.list('/configmaps');
    assert.deepEqual(names(given), ['a/b', 'a/z', 'b/x', 'b/y', 'c/a']);
    s.put('/configmaps', 'b', 'w', { metadata: { name: 'w', namespace: 'b' } });
    s.remove('/configmaps', 'a', 'b');
    s.put('/configmaps', 'c', 'a', { metadata: { name: 'a', namespace: 'c' }, data: { v: '2' } });
    assert.deepEqual(names(given), ['a/b', 'a/z', 'b/x', 'b/y', 'c/a'], 'the earlier list is a snapshot');
    assert.deepEqual(names(s.list('/configmaps')), ['a/z', 'b/w', 'b/x', 'b/y', 'c/a']);
    assert.deepEqual(names(s.list('/configmaps', 'b')), ['b/w', 'b/x', 'b/y']);
    assert.deepEqual(names(s.list('/configmaps', 'bb')), []);
    assert.equal(s.list('/configmaps', 'c')[0].rv, s.currentRv, 'an update replaces the entry in place');
    // Many writes between two lists: the order is rebuilt.
    const more = Array.from({ length: 100 }, (_, i) => `m${String(99 - i).padStart(2, '0')}`);
    for (const name of more) s.put('/configmaps', 'b', name, { metadata: { name, namespace: 'b' } });
    assert.deepEqual(names(s.list('/configmaps', 'b')), [
      ...[...more].sort().map((n) => `b/${n}`),
      'b/w',
      'b/x',
      'b/y',
    ]);
    s.close();
  });
});
