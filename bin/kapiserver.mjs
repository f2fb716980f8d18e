#!/usr/bin/env node
// Entry for the `kapiserver` command: runs the compiled JavaScript in dist/ (`npm run build` makes it).
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('kapiserver: dist/main.js is missing; run `npm run build` first\n');
  process.exit(1);
}
await import(main.href);
