// Which login records retention removes: the oldest beyond the maximum, by creation time and then resourceVersion,
// the same whether picked out one by one (a login at a time) or sorted (many over at once).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry } from '../../../src/apiserver/cluster/index.ts';
import { oldest } from '../../../src/apiserver/controllers/loginrecords.ts';

let rv = 1000;
/** Records created within a few seconds: many share a second and differ only by resourceVersion (9 vs 10 digits). */
const records = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      ({
        name: `r${i}`,
        created: 1_700_000_000_000 + Math.floor(Math.random() * 4) * 1000,
        resourceVersion: String(rv++ * (Math.random() < 0.5 ? 1 : 1_000_000)),
      }) as unknown as Entry,
  ).sort(() => Math.random() - 0.5);

/** The reference: everything past the newest `keep`. */
function byFullSort(all: Entry[], count: number): string[] {
  const newestFirst = [...all].sort(
    (a, b) =>
      b.created - a.created ||
      b.resourceVersion.length - a.resourceVersion.length ||
      (b.resourceVersion > a.resourceVersion ? 1 : b.resourceVersion < a.resourceVersion ? -1 : 0),
  );
  return newestFirst
    .slice(Math.max(0, all.length - count))
    .map((r) => r.name)
    .sort();
}

test('the oldest records are picked, one over or many over the maximum', () => {
  for (const count of [0, 1, 2, 5, 8, 9, 30, 120, 150]) {
    const all = records(120);
    const got = [...oldest(all, count)].map((r) => r.name).sort();
    assert.deepEqual(got, count <= 0 ? [] : byFullSort(all, count), `count ${count}`);
  }
});

test('nothing is picked when within the maximum', () => {
  assert.equal(oldest(records(5), -3).size, 0);
  assert.equal(oldest([], 2).size, 0);
});
