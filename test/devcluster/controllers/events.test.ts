// Events as client-go's EventCorrelator records them: repeats counted on one Event, similar events combined, and a
// token bucket per source and object that drops the excess (the correlator alone, then through a dev cluster).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventCorrelator, type EventFacts } from '../../../src/devcluster/controllers/event-correlator.ts';
import { recordEvent } from '../../../src/devcluster/controllers/events.ts';
import type { Obj } from '../../../src/devcluster/store.ts';
import { FakeClock } from '../../helpers/clock.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { createNamespace, defOf } from '../../helpers/workloads.ts';

const MINUTE = 60_000;
const facts = (over: Partial<EventFacts> = {}): EventFacts => ({
  component: 'kubelet',
  host: 'node2',
  involved: { kind: 'Pod', namespace: 'ev', name: 'web-1', uid: 'u1', apiVersion: 'v1', fieldPath: '' },
  type: 'Normal',
  reason: 'Pulled',
  message: 'Container image "nginx" already present on machine',
  ...over,
});
let names = 0;
const fresh = () => `e${names++}`;

describe('EventCorrelator', () => {
  it('counts an identical event on the first one', () => {
    const c = new EventCorrelator();
    const first = c.correlate(facts(), 0, fresh());
    const again = c.correlate(facts(), MINUTE, fresh());
    assert.ok(!first.skip && !again.skip);
    assert.deepEqual(
      [first.repeat, first.count, again.repeat, again.count, again.name, again.firstMs],
      [false, 1, true, 2, first.name, 0],
    );
    const other = c.correlate(
      facts({ involved: { ...facts().involved, fieldPath: 'spec.containers{b}' } }),
      0,
      'x',
    );
    assert.ok(!other.skip && !other.repeat, 'another field path is another event');
  });

  it('combines the 10th distinct message of similar events, then counts the combined one', () => {
    const c = new EventCorrelator();
    const out = Array.from({ length: 12 }, (_, i) =>
      c.correlate(facts({ message: `Created pod: p${i}` }), i, fresh()),
    );
    assert.ok(out.every((r) => !r.skip));
    const ok = out.filter((r) => !r.skip);
    assert.ok(ok.slice(0, 9).every((r) => !r.repeat && !r.message.startsWith('(combined')));
    assert.equal(ok[9].message, '(combined from similar events): Created pod: p9');
    assert.equal(ok[9].repeat, false);
    assert.deepEqual([ok[11].repeat, ok[11].count, ok[11].name], [true, 3, ok[9].name]);
    assert.equal(ok[11].message, '(combined from similar events): Created pod: p11');
    // Ten quiet minutes later, similar events start afresh.
    const later = c.correlate(facts({ message: 'Created pod: q' }), 11 + 10 * MINUTE + 1, fresh());
    assert.ok(!later.skip && later.message === 'Created pod: q' && !later.repeat);
  });

  it('lets a source burst 25 events about an object, then one more every 5 minutes', () => {
    const c = new EventCorrelator();
    const allowed = (at: number, n: number, tag: string, over: Partial<EventFacts> = {}) =>
      Array.from({ length: n }, (_, i) =>
        c.correlate(facts({ reason: `${tag}${i}`, ...over }), at, fresh()),
      ).filter((r) => !r.skip).length;
    assert.equal(allowed(0, 30, 'a'), 25);
    assert.equal(allowed(4 * MINUTE, 1, 'b'), 0);
    assert.equal(allowed(5 * MINUTE, 2, 'c'), 1);
    const otherPod = { involved: { ...facts().involved, name: 'web-2', uid: 'u2' } };
    assert.equal(allowed(5 * MINUTE, 3, 'd', otherPod), 3, 'each object has its own bucket');
    assert.equal(
      allowed(5 * MINUTE, 3, 'e', { component: 'default-scheduler', host: '' }),
      3,
      'and each source',
    );
  });
});

describe('recorded events in the dev cluster', { timeout: 60_000 }, () => {
  let dev: TestDevCluster;
  const clock = new FakeClock();
  const NS = 'ev';
  const eventsAbout = (name: string) =>
    dev.store.list('/events', NS).filter((e) => (e.obj.involvedObject as Obj).name === name);

  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false, now: () => clock.now() });
    createNamespace(dev, NS);
  });
  after(async () => {
    await dev?.close();
  });

  it('a repeated event is one Event with count 2 and a later lastTimestamp', () => {
    const cm = dev.rest.create(defOf(dev, '', 'configmaps'), NS, { metadata: { name: 'twice' } }).obj;
    const involved = { ...cm, apiVersion: 'v1', kind: 'ConfigMap' };
    const ctx = dev.controllers.context;
    recordEvent(ctx, 'test-controller', involved, 'Warning', 'Broken', 'it broke');
    const first = eventsAbout('twice')[0].obj;
    clock.advance(MINUTE);
    recordEvent(ctx, 'test-controller', involved, 'Warning', 'Broken', 'it broke');
    const events = eventsAbout('twice');
    assert.equal(events.length, 1);
    const ev = events[0].obj;
    assert.equal(ev.count, 2);
    assert.equal((ev.metadata as Obj).name, (first.metadata as Obj).name);
    assert.equal(ev.firstTimestamp, first.firstTimestamp);
    assert.ok(String(ev.lastTimestamp) > String(first.lastTimestamp));
  });

  it('caps the events a source records about one object', () => {
    const cm = dev.rest.create(defOf(dev, '', 'configmaps'), NS, { metadata: { name: 'chatty' } }).obj;
    const involved = { ...cm, apiVersion: 'v1', kind: 'ConfigMap' };
    for (let i = 0; i < 40; i++)
      recordEvent(dev.controllers.context, 'test-controller', involved, 'Normal', `Step${i}`, `step ${i}`);
    assert.equal(eventsAbout('chatty').length, 25);
  });
});
