#!/usr/bin/env node
// Runs the test files under test/ with node's built-in runner (Node 20's --test does not glob).
// Usage: node scripts/run-tests.mjs [--unit | --e2e] [substring filter...]
//   --unit: tests of one module or area (test/ mirrors src/): what they need of kapiserver and the dev cluster runs
//           inside the test process, on loopback ports (some drive the real kubectl against it)
//   --e2e:  test/e2e and test/deploy: kapiserver as its own processes, real clients (kubectl, client-node, chromium),
//           redis-server, the deploy manifests and image
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function walk(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const suite = args.find((a) => a === '--unit' || a === '--e2e');
const filters = args.filter((a) => a !== suite);
const isE2e = (f) => f.startsWith(join('test', 'e2e')) || f.startsWith(join('test', 'deploy'));
const files = walk('test')
  .filter((f) => suite === undefined || (suite === '--e2e') === isE2e(f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './scripts/test-stdout-blocking.mjs',
    '--test',
    '--test-reporter=spec',
    '--test-concurrency=2',
    '--test-force-exit',
    ...files,
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, KAPISERVER_LOG_LEVEL: process.env.KAPISERVER_LOG_LEVEL ?? 'silent' },
  },
);
process.exit(result.status ?? 1);
