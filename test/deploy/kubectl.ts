// kubectl for the deploy tests: a private HOME and discovery cache per runner, run from the repository root (the
// tests apply `deploy/` by relative path), optionally fed on stdin.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KubectlResult, runKubectl } from '../helpers/kubectl.ts';
import { ROOT } from '../helpers/process.ts';

export { hasKubectl } from '../helpers/kubectl.ts';

export function kubectlRunner(kubeconfig: () => string | undefined) {
  const home = mkdtempSync(join(tmpdir(), 'kapiserver-kubectl-home-'));
  const env = { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') };
  const run = (args: string[], input?: string): Promise<KubectlResult> => {
    const kc = kubeconfig();
    return runKubectl([...(kc ? ['--kubeconfig', kc] : []), ...args], { cwd: ROOT, env, input });
  };
  return { run, home };
}
