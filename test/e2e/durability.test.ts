// Durability loop: writes acknowledged (2xx) before a kill -9 are there after the restart. (a) The dev cluster alone
// under concurrent ConfigMap creates; (b) kapiserver and its dev cluster child, killed together, under concurrent
// user creates through /kapis. Each round kills at a random moment; the locks the dead processes leave are stale and
// must not block the restart.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { devClusterOf, devRequest, startDevClusterProcess } from '../helpers/devcluster.ts';
import { bearer, login } from '../helpers/oauth.ts';
import { killDevClusterOf, lockHolder, startKapiserverProcess } from '../helpers/process.ts';

const ROUNDS = 3;
const WRITERS = 6;
const dirs: string[] = [];
const processes: ChildProcess[] = [];
after(() => {
  for (const p of processes) p.kill('SIGKILL'); // a no-op for those that have exited
  for (const d of dirs) {
    killDevClusterOf(d);
    rmSync(d, { recursive: true, force: true });
  }
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A kill moment between 300 ms and 1.5 s into the writes. */
const randomDelay = () => 300 + Math.floor(Math.random() * 1200);

/**
 * Runs WRITERS concurrent loops of `write(name)` until `stopped()`; returns the names whose write was acknowledged.
 * A write cut off by the kill (connection reset) is simply not acknowledged.
 */
async function writeUntilKilled(
  prefix: string,
  write: (name: string) => Promise<number>,
  stopped: () => boolean,
): Promise<string[]> {
  const acked: string[] = [];
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; !stopped(); i++) {
        const name = `${prefix}-${w}-${i}`;
        try {
          if ((await write(name)) < 300) acked.push(name);
        } catch {
          return; // the server is gone
        }
      }
    }),
  );
  return acked;
}

/** The names of the objects in a list answer. */
const names = (list: { body: unknown }) =>
  new Set((list.body as { items: { metadata: { name: string } }[] }).items.map((o) => o.metadata.name));

test('dev cluster: every acknowledged ConfigMap create survives kill -9, round after round', {
  timeout: 120_000,
}, async () => {
  const dataDir = tempDir('durability-dev-');
  const acked: string[] = [];
  // Each start first checks what the rounds before it acknowledged; the last start only checks.
  for (let round = 0; round <= ROUNDS; round++) {
    const dev = await startDevClusterProcess(dataDir);
    processes.push(dev.child);
    const present = names(await devRequest(dev, 'GET', '/api/v1/namespaces/default/configmaps'));
    assert.deepEqual(
      acked.filter((n) => !present.has(n)),
      [],
      `acknowledged but lost after kill -9 (round ${round})`,
    );
    if (round === ROUNDS) {
      await dev.close();
      break;
    }
    let killed = false;
    setTimeout(() => {
      killed = true;
      dev.child.kill('SIGKILL');
    }, randomDelay());
    acked.push(
      ...(await writeUntilKilled(
        `r${round}`,
        async (name) =>
          (
            await devRequest(dev, 'POST', '/api/v1/namespaces/default/configmaps', {
              metadata: { name },
              data: { name },
            })
          ).status,
        () => killed,
      )),
    );
    await dev.exited;
  }
  assert.ok(acked.length > 0, 'some creates were acknowledged');
});

test('kapiserver: every acknowledged user created through /kapis survives kill -9 of kapiserver and its child', {
  timeout: 180_000,
}, async () => {
  const dataDir = tempDir('durability-kapi-');
  const args = ['--data-dir', dataDir, '--bind-address', '127.0.0.1', '--port', '0', '--secure-port', '0'];
  const acked: string[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const p = await startKapiserverProcess([...args, '--devcluster-port', '0']);
    processes.push(p.child);
    const child = lockHolder(join(dataDir, 'devcluster', 'devcluster.lock'))!;
    const present = names(
      await devRequest(devClusterOf(dataDir), 'GET', '/apis/iam.kubesphere.io/v1alpha2/users'),
    );
    assert.deepEqual(
      acked.filter((n) => !present.has(n)),
      [],
      `acknowledged but lost after kill -9 (round ${round})`,
    );
    if (round === ROUNDS) {
      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0);
      break;
    }
    const url = `http://127.0.0.1:${p.port}`;
    const adminPassword = readFileSync(join(dataDir, 'initial-admin-password'), 'utf8').trim();
    const auth = bearer(await login({ url, adminPassword }));
    let killed = false;
    setTimeout(() => {
      killed = true;
      process.kill(child, 'SIGKILL');
      p.child.kill('SIGKILL');
    }, randomDelay());
    acked.push(
      ...(await writeUntilKilled(
        `r${round}`,
        async (name) =>
          (
            await fetch(`${url}/kapis/iam.kubesphere.io/v1alpha2/users`, {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({ metadata: { name }, spec: { email: `${name}@example.com` } }),
            })
          ).status,
        () => killed,
      )),
    );
    await p.exited;
  }
  assert.ok(acked.length > 0, 'some creates were acknowledged');
});
