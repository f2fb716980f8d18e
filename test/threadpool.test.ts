// The thread pool size main.ts sets before anything starts the pool: at least 4 and at least one thread per core,
// unless UV_THREADPOOL_SIZE was given.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { test } from 'node:test';

const MODULE = resolve(import.meta.dirname, '..', 'src', 'threadpool.ts');

/** UV_THREADPOOL_SIZE as a fresh process sees it after importing the module, given `env`. */
function sizeAfterImport(env: Record<string, string | undefined>): string {
  const script = `await import(${JSON.stringify(MODULE)}); process.stdout.write(process.env.UV_THREADPOOL_SIZE ?? '')`;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

test('an unset thread pool size becomes max(4, cores)', () => {
  assert.equal(sizeAfterImport({ UV_THREADPOOL_SIZE: '' }), String(Math.max(4, availableParallelism())));
});

test('an explicit thread pool size is kept', () => {
  assert.equal(sizeAfterImport({ UV_THREADPOOL_SIZE: '13' }), '13');
});
