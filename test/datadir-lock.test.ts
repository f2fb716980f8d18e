// The data-directory lock in one process: exclusive, naming its holder, taken over when stale, released on close.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DirLockedError, lockDir } from '../src/datadir-lock.ts';

const dir = mkdtempSync(join(tmpdir(), 'datadir-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

test('a held lock refuses a second taker, naming the holder pid, the directory and the lock file', () => {
  const lock = lockDir(dir, 'a.lock');
  assert.equal(readFileSync(join(dir, 'a.lock'), 'utf8'), `${process.pid}\n`);
  assert.throws(
    () => lockDir(dir, 'a.lock'),
    (err: unknown) =>
      err instanceof DirLockedError &&
      err.pid === process.pid &&
      err.message.includes(dir) &&
      err.message.includes(String(process.pid)) &&
      err.message.includes(join(dir, 'a.lock')),
  );
  lock.release();
  assert.equal(existsSync(join(dir, 'a.lock')), false);
  lockDir(dir, 'a.lock').release(); // free again
});

test('a lock held by another live process refuses; one left by a dead process is taken over', () => {
  // pid 1 is always alive (and not ours).
  writeFileSync(join(dir, 'b.lock'), '1\n');
  assert.throws(() => lockDir(dir, 'b.lock'), DirLockedError);
  assert.equal(readFileSync(join(dir, 'b.lock'), 'utf8'), '1\n', 'the live holder keeps its lock');

  writeFileSync(join(dir, 'b.lock'), `${deadPid()}\n`);
  const lock = lockDir(dir, 'b.lock');
  assert.equal(readFileSync(join(dir, 'b.lock'), 'utf8'), `${process.pid}\n`);
  lock.release();
});

test('a lock naming our own pid that we did not take (pid reuse after a restart) is stale; garbage too', () => {
  writeFileSync(join(dir, 'c.lock'), `${process.pid}\n`);
  lockDir(dir, 'c.lock').release();
  writeFileSync(join(dir, 'c.lock'), 'not a pid');
  lockDir(dir, 'c.lock').release();
  assert.deepEqual(readdirSync(dir), [], 'no drafts or set-aside files are left behind');
});

test('a process that exits without closing leaves no lock behind', () => {
  const lockModule = join(import.meta.dirname, '..', 'src', 'datadir-lock.ts');
  const script = `const m = await import(${JSON.stringify(lockModule)}); m.lockDir(${JSON.stringify(dir)}, 'd.lock'); m.lockDir(${JSON.stringify(dir)}, 'e.lock'); process.exit(3);`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 3, r.stderr);
  assert.deepEqual(readdirSync(dir), []);
});
