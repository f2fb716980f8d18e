// Runs the real `kapiserver` command as a child process and finds its ports from its JSON log.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
/** node arguments that run the `kapiserver` command from the sources under test (no build step in between). */
export const KAPISERVER = ['--import', 'tsx', resolve(ROOT, 'src', 'main.ts')];

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
