// One process per state directory: a lock file created exclusively, holding the owner's pid. Two servers on one
// SQLite file and one kubeconfig would overwrite each other's files and fail writes half-way; the second refuses.
// A lock left by a dead process (kill -9, power loss) is stale and taken over.
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
    readonly lockFile: string,
  ) {
    super(`${dir} is in use by process ${pid} (lock file ${lockFile}); stop it or use another --data-dir`);
  }
}

export interface DirLock {
  readonly file: string;
  release(): void;
}

/** Lock files this process holds: a second holder inside the same process is refused too. */
const heldHere = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

function holder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // removed meanwhile
  }
}

/** Is the lock's holder still running? Our own pid counts only if this process really took it (pid reuse). */
function held(file: string, pid: number | undefined): boolean {
  if (pid === undefined) return false;
  if (pid === process.pid) return heldHere.has(file);
  return alive(pid);
}

/** Moves a stale lock aside; if what was moved turns out to be a live holder's (it won a race), puts it back. */
function removeStale(file: string): void {
  const aside = `${file}.stale.${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // another starter moved it first; the next link decides
  }
  const pid = holder(aside);
  if (held(file, pid)) {
    try {
      linkSync(aside, file);
    } catch {
      // someone took the name meanwhile: the next link attempt finds their lock
    }
  }
  unlinkSync(aside);
}

/**
 * Takes `<dir>/<name>`, or throws DirLockedError naming the live holder. The file is written in full under a
 * private name and then hard-linked into place: link() fails if the name exists (the exclusive create) and a
 * reader never sees a half-written lock.
 */
export function lockDir(dir: string, name: string): DirLock {
  const file = join(dir, name);
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const pid = holder(file);
      if (held(file, pid) || attempt >= 3) throw new DirLockedError(dir, pid ?? 0, file);
      removeStale(file);
    }
  } finally {
    unlinkSync(draft);
  }
  if (heldHere.size === 0) process.once('exit', releaseAll);
  heldHere.add(file);
  return { file, release: () => release(file) };
}

function release(file: string): void {
  if (!heldHere.delete(file)) return;
  if (heldHere.size === 0) process.off('exit', releaseAll);
  if (holder(file) === process.pid) unlinkSync(file);
}

/** process.exit() skips close(): the locks go with the process, not only with an orderly stop. */
function releaseAll(): void {
  for (const file of [...heldHere]) release(file);
}
