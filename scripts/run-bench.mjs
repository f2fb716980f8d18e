#!/usr/bin/env node
// Runs every benchmark under bench/ (or those matching the given substrings) one after another, so they do not
// compete for the machine's cores. Each benchmark prints JSON and a one-line summary.
// `compare <before-rev> [<after-rev>]` runs bench/compare-revisions.ts instead: the request-path benchmarks of two
// revisions side by side (it needs the revisions, so a plain run leaves it out).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const COMPARE = 'compare-revisions.ts';
const bench = (file, args = []) =>
  spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`, ...args], { stdio: 'inherit' }).status;

const args = process.argv.slice(2);
if (args[0] === 'compare') process.exit(bench(COMPARE, args.slice(1)) === 0 ? 0 : 1);

const files = readdirSync('bench')
  .filter((f) => f.endsWith('.ts') && !f.startsWith('_') && f !== COMPARE)
  .filter((f) => args.length === 0 || args.some((s) => f.includes(s)))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f}`);
  if (bench(f) !== 0) failed++;
}
process.exit(failed ? 1 : 0);
