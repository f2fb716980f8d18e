// The real kubectl, run asynchronously (the dev cluster may be answering from this same process) with a private
// HOME and discovery cache, optionally fed on stdin.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';

export const KUBECTL = '/usr/bin/kubectl';
export const hasKubectl = existsSync(KUBECTL);

export interface KubectlResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function kubectlRunner(kubeconfig: () => string | undefined) {
  const home = mkdtempSync(join(tmpdir(), 'kapiserver-kubectl-home-'));
  const run = (args: string[], input?: string): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const kc = kubeconfig();
      const child = spawn(KUBECTL, [...(kc ? ['--kubeconfig', kc] : []), ...args], {
        cwd: ROOT,
        env: { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') },
      });
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
    });
  return { run, home };
}
