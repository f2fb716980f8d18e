// The one contract every TokenStore implementation passes (run by tokenstore.test.ts against memory and Redis).
// Each test gets a fresh store on a clock it advances: lifetimes and windows pass without sleeping.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import type { Clock } from '../../../src/apiserver/clock.ts';
import type { TokenStore } from '../../../src/apiserver/oauth/store/index.ts';
import { FakeClock } from '../../helpers/clock.ts';

const user = () => `user-${randomBytes(4).toString('hex')}`;
const tok = () => `tok.${randomBytes(16).toString('base64url')}.sig`;

/**
 * `dump` returns everything the backing service holds as text (e.g. all Redis keys and members), to check that no
 * token is stored in the clear; omitted for the memory store, whose maps are private.
 */
export function tokenStoreConformance(
  name: string,
  make: (clock: Clock) => TokenStore,
  skip?: string,
  dump?: () => Promise<string>,
): void {
  const opts = skip ? { skip } : {};
  /** A test on a fresh store and clock; the store is closed after it. */
  const storeTest = (
    title: string,
    body: (store: TokenStore, clock: FakeClock, t: TestContext) => Promise<void>,
  ) =>
    test(`${name}: ${title}`, opts, async (t) => {
      const clock = new FakeClock();
      const store = make(clock);
      try {
        await body(store, clock, t);
      } finally {
        await store.close();
      }
    });

  storeTest("an added token is active; unknown tokens and other users' tokens are not", async (s) => {
    const u = user();
    const t = tok();
    assert.equal(await s.isActive(u, t), false);
    await s.add(u, t, 60_000);
    assert.equal(await s.isActive(u, t), true);
    assert.equal(await s.isActive(u, tok()), false);
    assert.equal(await s.isActive(user(), t), false);
  });

  storeTest('a token expires after its lifetime; lifetime 0 means until revoked', async (s, clock) => {
    const u = user();
    const short = tok();
    const forever = tok();
    await s.add(u, short, 1000);
    await s.add(u, forever, 0);
    assert.equal(await s.isActive(u, short), true);
    clock.advance(1300);
    assert.equal(await s.isActive(u, short), false);
    assert.equal(await s.isActive(u, forever), true);
    await s.revoke(u, forever);
    assert.equal(await s.isActive(u, forever), false);
  });

  storeTest('revoke removes one token, revokeAll every token of that user only', async (s) => {
    const [u, other] = [user(), user()];
    const [a, b, c] = [tok(), tok(), tok()];
    await s.add(u, a, 60_000);
    await s.add(u, b, 60_000);
    await s.add(other, c, 60_000);
    await s.revoke(u, a);
    assert.equal(await s.isActive(u, a), false);
    assert.equal(await s.isActive(u, b), true);
    await s.revokeAll(u);
    assert.equal(await s.isActive(u, b), false);
    assert.equal(await s.isActive(other, c), true);
  });

  storeTest(
    'addTokens records several tokens at once, each with its lifetime; revokeOthers replaces the rest',
    async (s, clock) => {
      const [u, other] = [user(), user()];
      const [older, access, refresh, forever, theirs] = [tok(), tok(), tok(), tok(), tok()];
      await s.add(u, older, 60_000);
      await s.add(other, theirs, 60_000);
      await s.addTokens(u, [
        { token: access, ttlMs: 1000 },
        { token: refresh, ttlMs: 5000 },
      ]);
      assert.equal(await s.isActive(u, older), true, 'without revokeOthers, older tokens stay');
      assert.equal(await s.isActive(u, access), true);
      clock.advance(1300);
      assert.equal(await s.isActive(u, access), false);
      assert.equal(await s.isActive(u, refresh), true);
      await s.addTokens(u, [{ token: forever, ttlMs: 0 }], true);
      assert.equal(await s.isActive(u, older), false);
      assert.equal(await s.isActive(u, refresh), false);
      assert.equal(await s.isActive(u, forever), true);
      assert.equal(await s.isActive(other, theirs), true, "another user's tokens stay");
      clock.advance(10_000);
      assert.equal(await s.isActive(u, forever), true);
    },
  );

  storeTest("lockedUntilEach reads each subject's lock at once", async (s, clock) => {
    const [short, long, free] = [user(), user(), user()];
    assert.deepEqual(await s.lockedUntilEach([short, long]), [undefined, undefined]);
    await s.lock(short, 1000);
    await s.lock(long, 60_000);
    const [a, b, c] = await s.lockedUntilEach([short, long, free]);
    assert.equal(a, await s.lockedUntil(short));
    assert.equal(b, await s.lockedUntil(long));
    assert.ok(a !== undefined && b !== undefined && b > a);
    assert.equal(c, undefined);
    clock.advance(1300);
    assert.deepEqual(await s.lockedUntilEach([short, long, free]), [undefined, b, undefined]);
  });

  storeTest('consume succeeds exactly once, even when raced', async (s) => {
    const u = user();
    const t = tok();
    await s.add(u, t, 60_000);
    const results = await Promise.all(Array.from({ length: 10 }, () => s.consume(u, t)));
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal(await s.isActive(u, t), false);
    assert.equal(await s.consume(u, tok()), false);
  });

  storeTest('an expired token cannot be consumed', async (s, clock) => {
    const u = user();
    const t = tok();
    await s.add(u, t, 500);
    clock.advance(800);
    assert.equal(await s.consume(u, t), false);
  });

  storeTest('failures are counted within the window only', async (s, clock) => {
    const u = user();
    assert.equal(await s.recordFailure(u, 1000), 1);
    assert.equal(await s.recordFailure(u, 1000), 2);
    assert.equal(await s.recordFailure(u, 1000), 3);
    assert.equal(await s.failureCount(u, 1000), 3, 'counting does not record');
    assert.equal(await s.failureCount(u, 1000), 3);
    clock.advance(1300);
    assert.equal(await s.failureCount(u, 1000), 0);
    assert.equal(await s.recordFailure(u, 1000), 1);
    assert.equal(await s.recordFailure(user(), 1000), 1, 'counters are per user');
    assert.equal(await s.failureCount(user(), 1000), 0);
  });

  storeTest('a lock holds for its duration and clears the failure count', async (s, clock) => {
    const u = user();
    await s.recordFailure(u, 60_000);
    await s.recordFailure(u, 60_000);
    assert.equal(await s.lockedUntil(u), undefined);
    const before = clock.now();
    await s.lock(u, 1000);
    const until = await s.lockedUntil(u);
    assert.ok(until !== undefined && until >= before + 1000 && until <= clock.now() + 1000);
    assert.equal(await s.recordFailure(u, 60_000), 1, 'failures start again from zero');
    clock.advance(1300);
    assert.equal(await s.lockedUntil(u), undefined);
  });

  storeTest('tokens are not stored in the clear', async (s, _clock, t) => {
    if (!dump) return t.skip('no way to read this store from outside');
    const u = user();
    const token = tok();
    const sole = tok();
    await s.add(u, token, 60_000);
    await s.replaceSoleToken(`${u}:sole`, undefined, 'visible-state', sole, 60_000);
    const text = await dump();
    assert.ok(text.includes(u) && text.includes('visible-state'), 'the dump shows the stored data');
    assert.ok(!text.includes(token.slice(4, 24)), 'but not the token');
    assert.ok(!text.includes(sole.slice(4, 24)), 'nor a sole token');
  });

  storeTest('a record is kept for its lifetime under its kind and id, then gone', async (s, clock) => {
    const id = tok();
    await s.putRecord('code', id, '{"user":"alice"}', 1000);
    assert.equal(await s.getRecord('code', id), '{"user":"alice"}');
    assert.equal(await s.getRecord('session', id), undefined, 'another kind');
    assert.equal(await s.getRecord('code', tok()), undefined, 'another id');
    clock.advance(1300);
    assert.equal(await s.getRecord('code', id), undefined, 'expired');
  });

  storeTest('a record is replaced by a later put and removed by delete', async (s) => {
    const id = tok();
    await s.putRecord('session', id, 'first', 60_000);
    await s.putRecord('session', id, 'second value with spaces', 60_000);
    assert.equal(await s.getRecord('session', id), 'second value with spaces');
    await s.deleteRecord('session', id);
    assert.equal(await s.getRecord('session', id), undefined);
    await s.deleteRecord('session', id); // deleting what is gone is fine
  });

  storeTest(
    'a record is taken once: the value, then nothing; an expired one is never taken',
    async (s, clock) => {
      const id = tok();
      await s.putRecord('pending', id, 'the value', 60_000);
      assert.equal(await s.takeRecord('pending', id), 'the value');
      assert.equal(await s.takeRecord('pending', id), undefined);
      assert.equal(await s.getRecord('pending', id), undefined, 'taking removed it');
      const old = tok();
      await s.putRecord('pending', old, 'stale', 1000);
      clock.advance(1300);
      assert.equal(await s.takeRecord('pending', old), undefined);
      assert.equal(await s.takeRecord('code', tok()), undefined, 'unknown');
    },
  );

  storeTest('of concurrent takes of one record exactly one gets it', async (s) => {
    for (let round = 0; round < 5; round++) {
      const id = tok();
      await s.putRecord('idp-login', id, `round ${round}`, 60_000);
      const taken = await Promise.all(Array.from({ length: 20 }, () => s.takeRecord('idp-login', id)));
      assert.deepEqual(
        taken.filter((v) => v !== undefined),
        [`round ${round}`],
      );
    }
  });

  storeTest('record ids are not stored in the clear', async (s, _clock, t) => {
    if (!dump) return t.skip('no way to read this store from outside');
    const id = tok();
    await s.putRecord('code', id, 'visible-value', 60_000);
    const text = await dump();
    assert.ok(!text.includes(id.slice(4, 24)), 'not the id');
  });

  storeTest(
    "a sole token is replaced only from the expected state, and is then the owner's only token",
    async (s) => {
      const [owner, other] = [user(), user()];
      const [a, b, first, second, others] = [tok(), tok(), tok(), tok(), tok()];
      await s.add(owner, a, 60_000);
      await s.add(owner, b, 0);
      await s.add(other, others, 60_000);
      assert.equal(await s.soleTokenState(owner), undefined);
      assert.equal(await s.replaceSoleToken(owner, undefined, 'epoch 1', first, 60_000), true);
      assert.equal(await s.soleTokenState(owner), 'epoch 1');
      assert.deepEqual(
        [await s.isActive(owner, a), await s.isActive(owner, b), await s.isActive(owner, first)],
        [false, false, true],
      );
      assert.equal(await s.isActive(other, others), true, "another owner's tokens stay");
      assert.equal(await s.soleTokenState(other), undefined);

      assert.equal(await s.replaceSoleToken(owner, undefined, 'epoch 2', second, 60_000), false, 'stale');
      assert.equal(await s.replaceSoleToken(owner, 'epoch 0', 'epoch 2', second, 60_000), false, 'stale');
      assert.equal(await s.soleTokenState(owner), 'epoch 1');
      assert.equal(await s.isActive(owner, first), true);
      assert.equal(await s.isActive(owner, second), false);

      assert.equal(await s.replaceSoleToken(owner, 'epoch 1', 'epoch 2', second, 60_000), true);
      assert.equal(await s.isActive(owner, first), false);
      assert.equal(await s.isActive(owner, second), true);
      // Revocations remove the token, not the state it was derived from.
      await s.revoke(owner, second);
      assert.equal(await s.isActive(owner, second), false);
      assert.equal(await s.soleTokenState(owner), 'epoch 2');
    },
  );

  storeTest('a sole token and its state expire with their lifetime', async (s, clock) => {
    const owner = user();
    const [first, second] = [tok(), tok()];
    assert.equal(await s.replaceSoleToken(owner, undefined, 'epoch 1', first, 1000), true);
    clock.advance(1300);
    assert.equal(await s.soleTokenState(owner), undefined);
    assert.equal(await s.isActive(owner, first), false);
    assert.equal(await s.replaceSoleToken(owner, 'epoch 1', 'epoch 2', second, 1000), false, 'expired');
    assert.equal(await s.replaceSoleToken(owner, undefined, 'epoch 2', second, 1000), true);
    assert.equal(await s.isActive(owner, second), true);
  });

  storeTest('of concurrent replaces of one sole-token state exactly one wins', async (s) => {
    const owner = user();
    await s.replaceSoleToken(owner, undefined, 'epoch 0', tok(), 60_000);
    const tokens = Array.from({ length: 20 }, () => tok());
    const won = await Promise.all(
      tokens.map((t, i) => s.replaceSoleToken(owner, 'epoch 0', `epoch ${i + 1}`, t, 60_000)),
    );
    assert.equal(won.filter(Boolean).length, 1);
    const winner = won.indexOf(true);
    assert.equal(await s.soleTokenState(owner), `epoch ${winner + 1}`);
    const active = await Promise.all(tokens.map((t) => s.isActive(owner, t)));
    assert.deepEqual(
      active.map((v, i) => (v ? i : -1)).filter((i) => i >= 0),
      [winner],
    );
  });

  storeTest('healthy answers true and close finishes', async (s) => {
    await s.add(user(), tok(), 60_000); // once connected (a Redis client connects in the background)
    assert.equal(await s.healthy(), true);
    await s.close();
  });
}
