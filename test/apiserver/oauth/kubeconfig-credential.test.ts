// A user's kubeconfig credential over each token store (SQLite file, real redis-server): every download returns the
// same token until it is revoked or outdated, then a new one that replaces it; the store never holds more than one
// kubeconfig token of a user (counted in the SQLite file and in Redis itself), also with replicas racing and after
// a signing key change.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { UserObject, Users } from '../../../src/apiserver/iam/users.ts';
import { InvalidTokenError, TokenIssuer } from '../../../src/apiserver/oauth/jwt.ts';
import {
  LocalTokenStore,
  RedisTokenStore,
  type TokenStore,
} from '../../../src/apiserver/oauth/store/index.ts';
import { TokenService } from '../../../src/apiserver/oauth/tokens.ts';
import { defaultConfig } from '../../../src/config/index.ts';
import { kubeconfigRecordsInFile, kubeconfigRecordsInRedis } from '../../helpers/kubeconfig-records.ts';
import { redisUnavailableReason, startRedis, type TestRedis } from '../../helpers/redis-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'kapiserver-kubeconfig-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const redisSkip = redisUnavailableReason();
let redis: TestRedis | undefined;
before(async () => {
  if (!redisSkip) redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

const issuerWith = (secret: string) =>
  new TokenIssuer({ secret, issuer: () => 'kubesphere', clockSkewMs: () => 10_000 });

/** A user cache holding exactly the given objects (replaced by the test to change a user). */
class FakeUsers {
  readonly byName = new Map<string, UserObject>();
  get(name: string): UserObject | undefined {
    return this.byName.get(name);
  }
  set(name: string, uid: string, password: string): UserObject {
    const u = { metadata: { name, uid }, spec: { password }, status: { state: 'Active' } } as UserObject;
    this.byName.set(name, u);
    return u;
  }
}

interface Backend {
  name: string;
  skip?: string;
  /** A new connection to the same backing store (another replica's). */
  open(): TokenStore;
  /** Replicas that may share it (a SQLite file has one process, the data directory's lock holder). */
  replicas: number;
  /** How many kubeconfig tokens of `user` the backing store holds, read from outside. */
  kubeconfigRecords(user: string): number;
}

const file = join(dir, 'tokens.db');
const backends: Backend[] = [
  {
    name: 'sqlite',
    replicas: 1,
    open: () => new LocalTokenStore(file),
    kubeconfigRecords: (user) => kubeconfigRecordsInFile(file, user),
  },
  {
    name: 'redis',
    skip: redisSkip,
    replicas: 3,
    open: () => new RedisTokenStore({ host: '127.0.0.1', port: redis!.port, password: '', db: 0 }),
    kubeconfigRecords: (user) => kubeconfigRecordsInRedis(redis!.port, user),
  },
];

let seq = 0;
function setup(b: Backend, secret = 'first-secret-0123456789abcdef0123') {
  const users = new FakeUsers();
  const stores: TokenStore[] = [];
  const service = (s = secret) => {
    const store = b.open();
    stores.push(store);
    return new TokenService(
      issuerWith(s),
      store,
      users as unknown as Users,
      () => defaultConfig().authentication,
    );
  };
  after(() => Promise.all(stores.map((s) => s.close())));
  return { users, service, name: `kc-user-${b.name}-${++seq}` };
}

async function refusal(tokens: TokenService, token: string): Promise<string> {
  try {
    await tokens.authenticate(token);
  } catch (err) {
    assert.ok(err instanceof InvalidTokenError);
    return err.reason;
  }
  assert.fail('the token was accepted');
}

for (const b of backends) {
  const opts = b.skip ? { skip: b.skip } : {};

  test(
    `${b.name}: every download returns the same working token; 50 downloads leave one record`,
    opts,
    async () => {
      const { users, service, name } = setup(b);
      const tokens = service();
      const user = users.set(name, 'uid-1', 'hash-1');
      const first = await tokens.kubeconfigToken(user);
      assert.equal((await tokens.authenticate(first)).name, name);
      const again = await Promise.all(Array.from({ length: 50 }, () => tokens.kubeconfigToken(user)));
      assert.deepEqual(new Set(again), new Set([first]));
      assert.equal(b.kubeconfigRecords(name), 1);
    },
  );

  test(
    `${b.name}: a revoked token is never handed out again; the next download replaces it`,
    opts,
    async () => {
      const { users, service, name } = setup(b);
      const tokens = service();
      const user = users.set(name, 'uid-1', 'hash-1');
      const first = await tokens.kubeconfigToken(user);
      await tokens.revoke(first);
      const second = await tokens.kubeconfigToken(user);
      assert.notEqual(second, first, 'even within the same second');
      assert.match(await refusal(tokens, first), /revoked/);
      assert.equal((await tokens.authenticate(second)).name, name);
      assert.equal(await tokens.kubeconfigToken(user), second);
      // Revoking every token of the user (a password change, a disable) also ends it.
      await tokens.revokeAll(name);
      const third = await tokens.kubeconfigToken(user);
      assert.ok(third !== first && third !== second);
      assert.equal(b.kubeconfigRecords(name), 1);
    },
  );

  test(
    `${b.name}: new credentials or a recreated user get a new token, which replaces the old`,
    opts,
    async () => {
      const { users, service, name } = setup(b);
      const tokens = service();
      const before = await tokens.kubeconfigToken(users.set(name, 'uid-1', 'hash-1'));
      const changed = await tokens.kubeconfigToken(users.set(name, 'uid-1', 'hash-2'));
      assert.notEqual(changed, before);
      assert.match(await refusal(tokens, before), /revoked/);
      const recreated = await tokens.kubeconfigToken(users.set(name, 'uid-2', 'hash-2'));
      assert.notEqual(recreated, changed);
      assert.equal((await tokens.authenticate(recreated)).name, name);
      assert.equal(b.kubeconfigRecords(name), 1);
    },
  );

  test(
    `${b.name}: replicas racing for a new credential (or concurrent downloads) agree on one token`,
    opts,
    async () => {
      const { users, service, name } = setup(b);
      const replicas = Array.from({ length: b.replicas }, () => service());
      const user = users.set(name, 'uid-1', 'hash-1');
      for (let round = 0; round < 3; round++) {
        const got = await Promise.all(
          Array.from({ length: 12 }, (_, i) => replicas[i % replicas.length].kubeconfigToken(user)),
        );
        assert.equal(new Set(got).size, 1, `round ${round}`);
        assert.equal((await replicas[round % replicas.length].authenticate(got[0])).name, name);
        assert.equal(b.kubeconfigRecords(name), 1);
        await replicas[0].revoke(got[0]);
      }
    },
  );

  test(`${b.name}: after a signing key change the new token replaces the old one`, opts, async () => {
    const { users, service, name } = setup(b);
    const user = users.set(name, 'uid-1', 'hash-1');
    const before = await service().kubeconfigToken(user);
    const rotated = service('second-secret-0123456789abcdef012');
    const after = await rotated.kubeconfigToken(user);
    assert.notEqual(after, before);
    assert.equal((await rotated.authenticate(after)).name, name);
    assert.equal(await rotated.kubeconfigToken(user), after);
    assert.equal(b.kubeconfigRecords(name), 1);
  });
}
