// The real kubectl for tests: where it is, a kubeconfig for a bearer-token HTTPS server, and an asynchronous run
// (the server under test often answers from this same process, so a synchronous spawn would deadlock).
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';

export const KUBECTL = '/usr/bin/kubectl';
export const hasKubectl = existsSync(KUBECTL);
export const NO_KUBECTL = 'kubectl is not installed at /usr/bin/kubectl';

export interface KubectlResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Writes a kubeconfig (mode 0600) for `server`, trusting `caPem`, authenticating with `token`; returns `path`. */
export function writeKubeconfig(
  path: string,
  opts: { server: string; caPem: string; token: string; namespace?: string },
): string {
  const ca = Buffer.from(opts.caPem).toString('base64');
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: t, cluster: {server: "${opts.server}", certificate-authority-data: ${ca}}}]`,
    `users: [{name: t, user: {token: "${opts.token}"}}]`,
    `contexts: [{name: t, context: {cluster: t, user: t, namespace: ${opts.namespace ?? 'default'}}}]`,
    'current-context: t',
    '',
  ].join('\n');
  writeFileSync(path, yaml, { mode: 0o600 });
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
