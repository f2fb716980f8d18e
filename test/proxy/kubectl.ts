// The real kubectl for the forwarding tests: run asynchronously (the dev cluster answers from this same process),
// with a private HOME and discovery cache per runner; `watch` starts a long-running command and collects its output.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KUBECTL = '/usr/bin/kubectl';
export const hasKubectl = existsSync(KUBECTL);

export interface KubectlResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface Kubectl {
  kubeconfig: string;
  run(args: string[], input?: string): Promise<KubectlResult>;
  /** Starts a long-running command; `output()` is what it printed so far; `stop()` kills it. */
  start(args: string[]): { child: ChildProcess; output(): string; stop(): void };
}

/** Writes `kubeconfigYaml` to a private file and returns a runner for it. */
export function kubectlWith(kubeconfigYaml: string): Kubectl {
  const home = mkdtempSync(join(tmpdir(), 'kapiserver-e-kubectl-'));
  const kubeconfig = join(home, 'kubeconfig');
  writeFileSync(kubeconfig, kubeconfigYaml, { mode: 0o600 });
  const env = { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache'), KUBECONFIG: kubeconfig };
  return {
    kubeconfig,
    run: (args, input) =>
      new Promise((resolve) => {
        const child = spawn(KUBECTL, args, { env });
        let stdout = '';
        let stderr = '';
        const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
        child.stdout.on('data', (d) => {
          stdout += d;
        });
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ status: code ?? -1, stdout, stderr });
        });
        child.stdin.end(input ?? '');
      }),
    start(args) {
      const child = spawn(KUBECTL, args, { env });
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        out += d;
      });
      return { child, output: () => out, stop: () => child.kill('SIGKILL') };
    },
  };
}
