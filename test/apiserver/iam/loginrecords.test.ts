// The login-record queue against a real dev cluster behind a hop that can be taken down (test/helpers/spy.ts): a
// record is written off the response path, retried while the cluster is down, bounded, and every outcome counted.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import pino from 'pino';
import { ClusterConnection, KubeRest } from '../../../src/apiserver/cluster/index.ts';
import { installCrds } from '../../../src/apiserver/crds/index.ts';
import {
  LOGIN_RECORDS_PATH,
  type LoginAttempt,
  LoginRecorder,
  type RecorderLimits,
} from '../../../src/apiserver/iam/loginrecords.ts';
import type { UserObject } from '../../../src/apiserver/iam/users.ts';
import type { LoginRecordOutcome } from '../../../src/apiserver/metrics/index.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { type Spy, startSpy } from '../../helpers/spy.ts';

const logger = pino({ level: 'silent' });
let dev: TestDevCluster;
let spy: Spy;
let conn: ClusterConnection;
let rest: KubeRest;
let dir: string;
let counts: Record<LoginRecordOutcome, number>;
let n = 0;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-loginrecords-'));
  dev = await startTestDevCluster({ seedDemoData: false });
  spy = await startSpy(dev, dir);
  conn = ClusterConnection.fromFile(spy.kubeconfigPath, logger);
  rest = new KubeRest(conn);
  await installCrds(rest, logger);
});
after(async () => {
  await conn?.close();
  await spy?.stop();
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  counts = { written: 0, dropped: 0, failed: 0 };
});

const recorder = (limits: Partial<RecorderLimits> = {}) =>
  new LoginRecorder(rest, logger, (outcome, k = 1) => (counts[outcome] += k), {
    backoffMs: 20,
    maxBackoffMs: 100,
    ...limits,
  });
/** A User in the cluster (a record owned by a missing one would be garbage-collected). */
const user = (name = `u${++n}-${Date.now()}`): Promise<UserObject> =>
  rest.create<UserObject>('/apis/iam.kubesphere.io/v1alpha2/users', {
    apiVersion: 'iam.kubesphere.io/v1alpha2',
    kind: 'User',
    metadata: { name },
    spec: { email: `${name}@example.com` },
  });
/** A User that was never created (its records are refused or never seen). */
const absentUser = (name = `u${++n}-${Date.now()}`) =>
  ({ metadata: { name, uid: `uid-${name}` } }) as UserObject;
const attempt = (success = true): LoginAttempt => ({
  success,
  reason: success ? '' : 'wrong',
  sourceIP: '10.0.0.1',
  userAgent: 'test-agent',
});
const recordsOf = async (name: string) =>
  (
    await rest.list<{ metadata: { name: string; ownerReferences?: { uid: string }[] }; spec: LoginAttempt }>(
      `${LOGIN_RECORDS_PATH}?labelSelector=${encodeURIComponent(`iam.kubesphere.io/user-ref=${name}`)}`,
    )
  ).items;

test('records are written in the background, owned by the user; lastLoginTime follows a successful one', async () => {
  const r = recorder();
  const u = await user();
  const after: string[] = [];
  r.record(u, attempt(true), async () => after.push('success'));
  r.record(u, attempt(false), async () => after.push('failure'));
  assert.equal(r.pending, 2, 'record() queues and returns');
  await r.flush();
  const items = await recordsOf(u.metadata.name);
  assert.equal(items.length, 2);
  assert.deepEqual(items.map((i) => i.spec.success).sort(), [false, true]);
  assert.ok(items.every((i) => i.metadata.name.startsWith(`${u.metadata.name}-`)));
  assert.ok(items.every((i) => i.metadata.ownerReferences?.[0]?.uid === u.metadata.uid));
  assert.deepEqual(after, ['success']);
  assert.deepEqual(counts, { written: 2, dropped: 0, failed: 0 });
});

test("a user's lastLoginTime updates run one at a time; of those arriving meanwhile only the latest runs", async () => {
  const r = recorder();
  const u = await user();
  const other = await user();
  const ran: string[] = [];
  let running = 0;
  let most = 0;
  let release: () => void = () => {};
  const released = new Promise<void>((res) => {
    release = res;
  });
  const update = (label: string, wait?: Promise<void>) => async () => {
    running++;
    most = Math.max(most, running);
    ran.push(label);
    await wait;
    running--;
  };
  r.record(u, attempt(true), update('first', released));
  while (!ran.includes('first')) await new Promise((res) => setTimeout(res, 5));
  r.record(u, attempt(true), update('second'));
  r.record(u, attempt(true), update('third'));
  r.record(other, attempt(true), update('other'));
  while (r.pending > 1) await new Promise((res) => setTimeout(res, 5));
  assert.deepEqual(ran, ['first', 'other'], "another user's update does not wait");
  release();
  await r.flush();
  assert.deepEqual(ran, ['first', 'other', 'third']);
  assert.equal(most, 2, "one at a time per user (the other user's ran beside)");
  assert.equal((await recordsOf(u.metadata.name)).length, 3, 'every login still has its record');
  assert.deepEqual(counts, { written: 4, dropped: 0, failed: 0 });
});

test('while the cluster is down records wait (bounded: the excess is dropped and counted), then are written', async () => {
  const r = recorder({ maxQueued: 3, maxAttempts: 1000 });
  const u = await user();
  await spy.stop();
  try {
    for (let i = 0; i < 5; i++) r.record(u, attempt());
    assert.equal(counts.dropped, 2);
    assert.ok(r.pending <= 3);
    // Let several retries fail.
    const seen = spy.seen.length;
    await new Promise((res) => setTimeout(res, 200));
    assert.equal(spy.seen.length, seen, 'nothing reached the cluster');
    assert.equal(counts.written, 0);
  } finally {
    await spy.start();
  }
  await r.flush();
  assert.equal((await recordsOf(u.metadata.name)).length, 3);
  assert.deepEqual(counts, { written: 3, dropped: 2, failed: 0 });
});

test('a record that keeps failing is dropped after its attempts, counted as failed', async () => {
  const r = recorder({ maxAttempts: 3 });
  await spy.stop();
  try {
    r.record(absentUser(), attempt());
    r.record(absentUser(), attempt());
    await r.flush();
  } finally {
    await spy.start();
  }
  assert.equal(r.pending, 0);
  assert.deepEqual(counts, { written: 0, dropped: 0, failed: 2 });
});

test('a refusal no retry can change (an invalid name) is tried once', async () => {
  const r = recorder();
  const before = spy.seen.filter((s) => s.method === 'POST').length;
  r.record(absentUser('Not_A-Valid-Name'), attempt());
  await r.flush();
  assert.equal(spy.seen.filter((s) => s.method === 'POST').length - before, 1);
  assert.deepEqual(counts, { written: 0, dropped: 0, failed: 1 });
});

test('close waits a bounded time for queued records, drops the rest, and takes no more', async () => {
  const r = recorder({ closeTimeoutMs: 100, maxAttempts: 1000 });
  await spy.stop();
  try {
    r.record(absentUser(), attempt());
    r.record(absentUser(), attempt());
    await r.close();
    r.record(absentUser(), attempt());
  } finally {
    await spy.start();
  }
  await r.flush();
  assert.equal(r.pending, 0);
  assert.deepEqual(counts, { written: 0, dropped: 3, failed: 0 });
});

test('records arriving while none is being written wait for each other, and close writes them at once', async () => {
  const r = recorder({ lingerMs: 60_000 });
  const u = await user();
  const posts = () => spy.seen.filter((s) => s.method === 'POST').length;
  const before = posts();
  for (let i = 0; i < 3; i++) r.record(u, attempt());
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(posts(), before, 'nothing is written while the batch gathers');
  assert.equal(r.pending, 3);
  await r.close();
  assert.equal(posts() - before, 3);
  assert.equal((await recordsOf(u.metadata.name)).length, 3);
  assert.deepEqual(counts, { written: 3, dropped: 0, failed: 0 });
});
