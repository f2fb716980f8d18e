// The real kubectl for the forwarding tests: run asynchronously (the dev cluster answers from this same process),
// with a private HOME and discovery cache per runner; `watch` starts a long-running command and collects its output.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBECTL, type KubectlResult, runKubectl } from './kubectl.ts';

export { hasKubectl, type KubectlResult } from './kubectl.ts';

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
    run: (args, input) => runKubectl(args, { env, input }),
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
