// Grouped commits: writes inside Store.batch share one SQLite commit; clients' subscribers (watches) get their events
// only once a second connection to the database can read them, in resourceVersion order; the controllers observe
// them at once. Over a dev cluster's Deployment burst: every event a watch delivers is committed, and a list plus its
// watch adds up to the next list.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { type Obj, Store, type StoreEvent } from '../../src/devcluster/store.ts';
import { devRequest, devWatch, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { createNamespace, defOf, deploymentBody, statusOf, until } from '../helpers/workloads.ts';

/** The resourceVersion another connection sees committed: its newest event's (or meta's, once compacted). */
const committedRv = (reader: Database.Database) =>
  (
    reader
      .prepare(
        "SELECT MAX((SELECT v FROM meta WHERE k = 'rv'), IFNULL((SELECT MAX(rv) FROM events), 0)) AS v",
      )
      .get() as { v: number }
  ).v;

describe('Store.batch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'grouped-commits-'));
  const store = new Store(join(dir, 'state.db'));
  const reader = new Database(join(dir, 'state.db'), { readonly: true });
  after(() => {
    reader.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits a batch once; watchers get its events after the commit, controllers at each write', () => {
    const watched: { ev: StoreEvent; committed: number }[] = [];
    const observed: { ev: StoreEvent; committed: number }[] = [];
    const offWatch = store.subscribe((ev) => watched.push({ ev, committed: committedRv(reader) }));
    const offObserve = store.subscribe((ev) => observed.push({ ev, committed: committedRv(reader) }), {
      uncommitted: true,
    });
    const before = store.currentRv;
    store.batch(() => {
      store.put('/configmaps', 'default', 'a', { metadata: { name: 'a' } });
      store.put('/configmaps', 'default', 'b', { metadata: { name: 'b' } });
      assert.equal(watched.length, 0, 'nothing watched inside the batch');
      store.remove('/configmaps', 'default', 'a');
    });
    store.put('/configmaps', 'default', 'c', { metadata: { name: 'c' } });
    offWatch();
    offObserve();
    assert.deepEqual(
      observed.map((o) => o.committed),
      [before, before, before, before + 4],
      'controllers see batched writes before their commit, a lone write after it',
    );
    assert.deepEqual(
      watched.map((w) => [w.ev.type, w.ev.name, w.ev.rv]),
      [
        ['ADDED', 'a', before + 1],
        ['ADDED', 'b', before + 2],
        ['DELETED', 'a', before + 3],
        ['ADDED', 'c', before + 4],
      ],
    );
    for (const w of watched)
      assert.ok(w.committed >= w.ev.rv, `rv ${w.ev.rv} committed before it was watched`);
  });

  it('commits what a batch wrote before it threw, and still delivers it', () => {
    const watched: string[] = [];
    const off = store.subscribe((ev) => watched.push(ev.name));
    assert.throws(
      () =>
        store.batch(() => {
          store.put('/configmaps', 'default', 'kept', { metadata: { name: 'kept' } });
          throw new Error('reconcile failed');
        }),
      /reconcile failed/,
    );
    off();
    assert.deepEqual(watched, ['kept']);
    const row = reader.prepare("SELECT rv FROM objects WHERE name = 'kept'").get() as { rv: number };
    assert.equal(row.rv, store.get('/configmaps', 'default', 'kept')?.rv);
  });
});

describe('grouped commits under a Deployment burst', { timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  let reader: Database.Database;
  const NS = 'burst';
  const REPLICAS = 60;

  before(async () => {
    dev = await startTestDevCluster({ simulation: { podStartMs: 20 } });
    reader = new Database(join(dev.dataDir, 'devcluster', 'state.db'), { readonly: true });
    createNamespace(dev, NS);
  });
  after(async () => {
    reader?.close();
    await dev?.close();
  });

  it('a watch sees only committed writes, in order, and list + watch equals the next list', async () => {
    let uncommitted = 0;
    const off = dev.store.subscribe((ev) => {
      if (committedRv(reader) < ev.rv) uncommitted++;
    });
    const path = `/api/v1/namespaces/${NS}/pods`;
    const start = await devRequest(dev, 'GET', path);
    const list = start.body as { metadata: { resourceVersion: string }; items: Obj[] };
    const w = await devWatch(dev, `${path}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      dev.rest.create(defOf(dev, 'apps', 'deployments'), NS, deploymentBody('burst', REPLICAS));
      const running = () =>
        dev.store.list('/pods', NS).filter((e) => statusOf(e.obj).phase === 'Running').length === REPLICAS;
      await until(running, 'every replica Running', 60_000);
      await dev.controllers.idle();
      const end = await devRequest(dev, 'GET', path);
      const last = end.body as { metadata: { resourceVersion: string }; items: Obj[] };
      await until(
        () =>
          w.events.length > 0 &&
          rvOf(w.events[w.events.length - 1].object) >= maxRv(last.items) &&
          last.items.length === REPLICAS,
        'the watch to catch up',
      );
      assert.equal(uncommitted, 0, 'no event reached a watcher before its commit');
      const rvs = w.events.map((e) => rvOf(e.object));
      assert.ok(
        rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]),
        'resourceVersions strictly increase',
      );
      const folded = new Map(list.items.map((o) => [nameOf(o), rvOf(o)]));
      for (const e of w.events) {
        if (e.type === 'DELETED') folded.delete(nameOf(e.object));
        else folded.set(nameOf(e.object), rvOf(e.object));
      }
      assert.deepEqual(
        [...folded].sort(),
        last.items.map((o) => [nameOf(o), rvOf(o)]).sort(),
        'the first list and its watch add up to the last list',
      );
    } finally {
      off();
      w.stop();
    }
  });
});

const nameOf = (o: Obj) => String((o.metadata as Obj).name);
const rvOf = (o: Obj) => Number((o.metadata as Obj).resourceVersion);
const maxRv = (items: Obj[]) => Math.max(0, ...items.map(rvOf));
