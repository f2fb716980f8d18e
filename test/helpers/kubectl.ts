// The real kubectl for tests: where it is, a kubeconfig for a bearer-token HTTPS server, and an asynchronous run
// (the server under test often answers from this same process, so a synchronous spawn would deadlock); a runner with
// a private HOME and discovery cache, which can also start a long-running command (`watch`).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KUBECTL = '/usr/bin/kubectl';
export const hasKubectl = existsSync(KUBECTL);
export const NO_KUBECTL = 'kubectl is not installed at /usr/bin/kubectl';

export interface KubectlResult {
  status: number;
  stdout: string;
  stderr: string;
}

type KubeconfigOptions = { server: string; caPem: string; token: string; namespace?: string };

/** A kubeconfig for `server`, trusting `caPem`, authenticating with `token`. */
export function kubeconfigYaml(opts: KubeconfigOptions): string {
  const ca = Buffer.from(opts.caPem).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: t, cluster: {server: "${opts.server}", certificate-authority-data: ${ca}}}]`,
    `users: [{name: t, user: {token: "${opts.token}"}}]`,
    `contexts: [{name: t, context: {cluster: t, user: t, namespace: ${opts.namespace ?? 'default'}}}]`,
    'current-context: t',
    '',
  ].join('\n');
}

/** Writes `kubeconfigYaml(opts)` to `path` (mode 0600); returns `path`. */
export function writeKubeconfig(path: string, opts: KubeconfigOptions): string {
  writeFileSync(path, kubeconfigYaml(opts), { mode: 0o600 });
  return path;
}

/** Runs kubectl with `args`, feeding `input` on stdin; killed after `timeoutMs`. Never rejects. */
export function runKubectl(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL, args, { cwd: opts.cwd, env: opts.env ?? process.env });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
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
    child.stdin.end(opts.input ?? '');
  });
}

/** Like runKubectl, but resolves with stdout and rejects with stderr when kubectl fails. */
export async function kubectlOk(
  args: string[],
  opts: Parameters<typeof runKubectl>[1] = {},
): Promise<string> {
  const r = await runKubectl(args, opts);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.status}\n${r.stderr}`);
  return r.stdout;
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

/** A runner for a bearer-token HTTPS server. */
export function kubectlFor(opts: KubeconfigOptions): Kubectl {
  return kubectlWith(kubeconfigYaml(opts));
}
