// Runs the real `kapiserver` command as a child process and finds its ports from its JSON log.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
/** node arguments that run the `kapiserver` command from the sources under test (no build step in between). */
export const KAPISERVER = ['--import', 'tsx', resolve(ROOT, 'src', 'main.ts')];

/** Flags for a kapiserver on loopback, free ports and `dataDir`; with the embedded dev cluster unless a kubeconfig is given. */
export function localFlags(dataDir: string, kubeconfig?: string): string[] {
  const flags = ['--data-dir', dataDir, '--bind-address', '127.0.0.1', '--port', '0', '--secure-port', '0'];
  return kubeconfig ? ['--kubeconfig', kubeconfig, ...flags] : [...flags, '--devcluster-port', '0'];
}

export interface KapiserverProcess {
  child: ChildProcessWithoutNullStreams;
  port: number;
  securePort: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/** Starts `kapiserver <args>` and waits (up to `timeoutMs`) for its "kapiserver listening" log line. */
export function startKapiserverProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): Promise<KapiserverProcess> {
  const child = spawn(process.execPath, [...KAPISERVER, '--log-level', 'info', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | string>((res) =>
    child.on('exit', (code, signal) => res(code ?? signal ?? -1)),
  );
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kapiserver did not start in ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.stdout.on('data', (d) => {
      out += d;
      for (const line of out.split('\n')) {
        if (!line.includes('"kapiserver listening"')) continue;
        const { port, securePort } = JSON.parse(line) as { port: number; securePort: number };
        clearTimeout(timer);
        resolvePromise({ child, port, securePort, stdout: () => out, stderr: () => err, exited });
        return;
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`kapiserver exited (${code}) before listening\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}

/** Runs `kapiserver <args>` to its end without blocking this process (a running kapiserver's pipes keep flowing). */
export function runKapiserver(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...KAPISERVER, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((res) =>
    child.on('close', (code, signal) => res({ code: code ?? signal ?? -1, stdout, stderr })),
  );
}

/** Whether a process with this pid exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid in a lock file (<data-dir>/kapiserver.lock, <data-dir>/devcluster/devcluster.lock), if present. */
export function lockHolder(lockFile: string): number | undefined {
  try {
    return Number(readFileSync(lockFile, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Test cleanup: SIGKILLs the dev cluster child serving `dataDir`, if one still runs. The pid comes from its lock file
 * and is killed only if that process's command line names the directory (a pid can be reused by another process).
 */
export function killDevClusterOf(dataDir: string): void {
  const pid = lockHolder(join(dataDir, 'devcluster', 'devcluster.lock'));
  if (!pid) return;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes('devcluster') && cmdline.includes(dataDir)) process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}
