#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ with tsc (imports rewritten from .ts to .js) and copies the files the code
// reads at run time (the protobuf schemas), so production runs plain JavaScript with no TypeScript loader.
//   --if-stale       do nothing when dist/ is newer than every file under src/ (what `npm start` runs first)
//   --out-dir DIR    compile somewhere else than dist/ (the image test builds into its own copy)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const ASSETS = ['.proto'];
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out-dir');
const out = outIndex >= 0 ? resolve(args[outIndex + 1]) : join(ROOT, 'dist');
const stamp = join(out, '.built');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  });
}

const sources = files(SRC);
if (args.includes('--if-stale') && existsSync(stamp)) {
  const built = statSync(stamp).mtimeMs;
  const newest = Math.max(
    ...sources.map((f) => statSync(f).mtimeMs),
    statSync(join(ROOT, 'package.json')).mtimeMs,
  );
  if (newest < built) process.exit(0);
}

rmSync(out, { recursive: true, force: true });
const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(tsc)) {
  console.error('build: TypeScript is not installed (run `npm ci` first)');
  process.exit(1);
}
const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out], {
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
for (const file of sources) {
  if (ASSETS.some((ext) => file.endsWith(ext))) cpSync(file, join(out, relative(SRC, file)));
}
writeFileSync(stamp, `${new Date().toISOString()}\n`);
