// Completes package-lock.json with the other platforms' optional native packages.
//
// Why: this workplace's npm registry mirror only carries the Linux builds of packages such as @biomejs/cli-* and
// @node-rs/bcrypt-*. `npm install` then writes a lock without the other platforms' entries, and `npm ci` refuses
// it ("Missing: @biomejs/cli-darwin-x64@ from lock file"). Each missing entry is added with its os/cpu/libc
// constraints, so npm ci skips it on every platform it does not fit instead of fetching it.
// Run after any `npm install` that changes the lock: node scripts/lock-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const OSES = ['android', 'darwin', 'freebsd', 'linux', 'win32'];
const CPUS = { x64: 'x64', arm64: 'arm64', arm: 'arm', ia32: 'ia32' };

/** Reads the platform from a package name like `@node-rs/bcrypt-linux-arm64-musl` or `@biomejs/cli-win32-x64`. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const osIndex = parts.findIndex((p) => OSES.includes(p));
  if (osIndex < 0) return undefined;
  const cpu = CPUS[parts[osIndex + 1]];
  if (!cpu) return undefined;
  const rest = parts.slice(osIndex + 2);
  const platform = { os: [parts[osIndex]], cpu: [cpu] };
  if (parts[osIndex] === 'linux') platform.libc = [rest.includes('musl') ? 'musl' : 'glibc'];
  return platform;
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const depPath = `node_modules/${dep}`;
    if (lock.packages[depPath]) continue;
    const platform = platformOf(dep);
    if (!platform) {
      console.warn(
        `lock-platforms: ${dep} (optional dependency of ${path}) has no platform in its name; left out`,
      );
      continue;
    }
    lock.packages[depPath] = { version, ...platform, optional: true, ...(entry.dev ? { dev: true } : {}) };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : a < b ? -1 : 1)),
);
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platforms: added ${added} platform entries`);
