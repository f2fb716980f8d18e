// Test harness for the embedded dev cluster: in-process (ephemeral port, temp data dir, demo data) or as a
// separate child process (for crash/durability tests that kill -9 it).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import {
  type DevCluster,
  type DevClusterInternal,
  type DevClusterInternalOptions,
  startDevClusterInternal,
} from '../../src/devcluster/index.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

export type TestDevCluster = DevClusterInternal & { dataDir: string };

/** Starts a dev cluster on an ephemeral port in a fresh temp dir; close() also removes the dir (unless given). */
export async function startTestDevCluster(
  opts: Partial<DevClusterInternalOptions> = {},
): Promise<TestDevCluster> {
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'devcluster-test-'));
  const logger = pino({ level: process.env.KAPISERVER_TEST_LOG_LEVEL ?? 'silent' });
  const dev = await startDevClusterInternal({ logger, ...opts, dataDir, port: opts.port ?? 0 });
  const close = dev.close.bind(dev);
  return Object.assign(dev, {
    dataDir,
    async close() {
      await close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

export interface DevClusterProcess extends DevCluster {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | string>;
  output: () => string;
}

/**
 * Runs `kapiserver devcluster` as a child process (default: on a free port) and waits until it listens; `nodeArgs`
 * go to node before the entry (e.g. --cpu-prof). `compiled` runs dist/main.js (after `npm run build`), as `npm start`
 * runs its embedded dev cluster, instead of the sources under tsx.
 */
export function startDevClusterProcess(
  dataDir: string,
  {
    port = 0,
    timeoutMs = 60_000,
    nodeArgs = [],
    compiled = false,
  }: { port?: number; timeoutMs?: number; nodeArgs?: string[]; compiled?: boolean } = {},
): Promise<DevClusterProcess> {
  const entry = compiled
    ? [join(ROOT, 'dist', 'main.js')]
    : ['--import', 'tsx', join(ROOT, 'src', 'main.ts')];
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      ...entry,
      'devcluster',
      '--data-dir',
      dataDir,
      '--port',
      String(port),
      '--log-level',
      'info',
    ],
    {
      cwd: ROOT,
      env: process.env,
    },
  );
  let out = '';
  const exited = new Promise<number | string>((res) =>
    child.on('exit', (code, signal) => res(code ?? signal ?? -1)),
  );
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dev cluster did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      // The JSON log line (stdout); the banner for people goes to stderr.
      const m = /"url":"(https:\/\/[^"]+)".*"msg":"dev cluster listening"/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.on('data', (x: Buffer) => {
        out += x.toString();
      });
      const dir = join(dataDir, 'devcluster');
      const url = m[1];
      resolvePromise({
        child,
        exited,
        output: () => out,
        url,
        port: Number(new URL(url).port),
        kubeconfigPath: join(dir, 'kubeconfig'),
        token: readFileSync(join(dir, 'token'), 'utf8').trim(),
        caPem: readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'),
        async close() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`dev cluster exited (${code}) before listening:\n${out}`));
    });
  });
}

/** Connection details of the dev cluster serving `dataDir` (e.g. kapiserver's child), read from its files. */
export function devClusterOf(
  dataDir: string,
): Pick<DevCluster, 'url' | 'token' | 'caPem' | 'kubeconfigPath'> {
  const kubeconfigPath = join(dataDir, 'devcluster', 'kubeconfig');
  const url = /server: (\S+)/.exec(readFileSync(kubeconfigPath, 'utf8'))?.[1];
  if (!url) throw new Error(`no server in ${kubeconfigPath}`);
  return {
    url,
    kubeconfigPath,
    token: readFileSync(join(dataDir, 'devcluster', 'token'), 'utf8').trim(),
    caPem: readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'),
  };
}

/** Minimal HTTPS JSON client against a dev cluster (real HTTP, trusts its CA). */
export async function devRequest(
  dev: Pick<DevCluster, 'url' | 'token' | 'caPem'>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  body: unknown;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}> {
  const https = await import('node:https');
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((res, rej) => {
    const req = https.request(
      `${dev.url}${path}`,
      {
        method,
        ca: dev.caPem,
        headers: {
          Authorization: `Bearer ${dev.token}`,
          Accept: 'application/json',
          ...(payload !== undefined
            ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) }
            : {}),
          ...headers,
        },
      },
      (r) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => {
          text += c;
        });
        r.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          res({ status: r.statusCode ?? 0, body: parsed, text, headers: r.headers });
        });
      },
    );
    req.on('error', rej);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export interface DevWatch {
  /** Events received so far, parsed, in arrival order. */
  events: { type: string; object: Record<string, unknown> }[];
  stop(): void;
}

/** A chunked HTTP watch (`path` carries `?watch=true...`) whose events are collected as they arrive. */
export async function devWatch(
  dev: Pick<DevCluster, 'url' | 'token' | 'caPem'>,
  path: string,
): Promise<DevWatch> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    const events: DevWatch['events'] = [];
    const req = https.request(`${dev.url}${path}`, {
      ca: dev.caPem,
      headers: { Authorization: `Bearer ${dev.token}` },
    });
    req.on('response', (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        const lines = buf.split('\n');
        buf = lines.pop() ?? '';
        for (const l of lines) if (l) events.push(JSON.parse(l));
      });
      res.on('error', () => {}); // the server went away: the events so far stay
      resolve({ events, stop: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
