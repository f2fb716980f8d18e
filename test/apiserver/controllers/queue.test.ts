// The controllers' work queue: a key asked for sooner than its pending delay comes sooner (a failed reconcile's
// retry, or a burst's shared reconcile, is not held back by a retention requeue days away), and one asked for later
// does not push back the one pending.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkQueue } from '../../../src/apiserver/controllers/queue.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The next key, or 'none' if none comes within `ms`. */
async function next(q: WorkQueue, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const none = new Promise<string>((r) => {
    timer = setTimeout(() => r('none'), ms);
  });
  const key = await Promise.race([q.get().then((k) => k ?? 'shut down'), none]);
  clearTimeout(timer);
  return key;
}

test('a key added after a short delay comes then, though a day-long delay was pending for it', async () => {
  const q = new WorkQueue();
  try {
    q.addAfter('user-a', DAY_MS);
    q.addAfter('user-a', 20);
    assert.equal(await next(q, 5000), 'user-a');
    q.done('user-a');
  } finally {
    q.shutDown();
  }
});

test('a longer delay asked for a key does not push back the shorter one pending', async () => {
  const q = new WorkQueue();
  try {
    q.addAfter('user-b', 20);
    q.addAfter('user-b', DAY_MS);
    assert.equal(await next(q, 5000), 'user-b');
    q.done('user-b');
    // Handed out once: the day-long request did not leave a second timer behind.
    assert.equal(await next(q, 100), 'none');
  } finally {
    q.shutDown();
  }
});
