// KubeSphere's real web console (ks-console v3.4.1, built by ../shared/tools/ks-console/build.sh) run against a
// kapiserver, and a headless Chromium that records what its pages ask the API server and what fails.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { freePort } from './ports.ts';
import { ROOT } from './process.ts';

export const CHROMIUM = '/usr/bin/chromium';
const RUN_SCRIPT = resolve(ROOT, '..', 'shared', 'tools', 'ks-console', 'run.sh');

/** Why the console cannot run here, or undefined when it can. */
export function consoleUnavailableReason(): string | undefined {
  const src = process.env.KS_CONSOLE_SRC;
  if (!src) return 'KS_CONSOLE_SRC is not set (build the console with ../shared/tools/ks-console/build.sh)';
  if (!existsSync(join(src, 'dist', 'server.js'))) return `no console build at ${src}/dist/server.js`;
  if (!existsSync(RUN_SCRIPT)) return `${RUN_SCRIPT} is missing`;
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} not installed (apt-get install -y chromium)`;
  return undefined;
}

export interface RunningConsole {
  url: string;
  log: () => string;
  stop(): Promise<void>;
}

/** Starts the console's server against `apiServer` (http://host:port) and waits until it answers. */
export async function startConsole(apiServer: string): Promise<RunningConsole> {
  const port = await freePort();
  // The run directory must not sit under a package.json with "type": "module": the bundle is CommonJS.
  const runDir = mkdtempSync(join(tmpdir(), 'ks-console-run-'));
  let out = '';
  const child: ChildProcess = spawn('bash', [RUN_SCRIPT, apiServer, String(port)], {
    env: { ...process.env, KS_CONSOLE_RUNDIR: runDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const stop = async () => {
    const pidFile = join(runDir, 'console.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : undefined;
    for (const p of [pid, child.pid]) {
      try {
        if (p) process.kill(p, 'SIGTERM');
      } catch {}
    }
    rmSync(runDir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${url}/login`);
      if (res.status === 200) {
        await primeWebSocketProxy(url);
        return { url, log: () => out, stop };
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 300));
  }
  await stop();
  throw new Error(`the console did not start:\n${out}`);
}

/**
 * The console's WebSocket proxy adds the user's token through a listener it registers only after forwarding its
 * first upgrade (server/components/wsProxy.js), so the first WebSocket of every console process reaches the API
 * server without credentials and is refused, whatever the server. One throwaway upgrade makes the browser's first
 * watch a normal one.
 */
function primeWebSocketProxy(url: string): Promise<void> {
  return new Promise((done) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/watch/namespaces`, {
      headers: { cookie: 'token=none' },
    });
    const end = () => {
      ws.terminate();
      done();
    };
    ws.on('unexpected-response', end);
    ws.on('open', end);
    ws.on('error', end);
  });
}

/** An API call the page made that failed, as `STATUS METHOD path?query`, or an uncaught page error. */
export type Failure = string;

/** A page that records failed API calls (through the console's proxy) and uncaught errors since `take()`. */
export interface WatchedPage {
  page: Page;
  /** What failed since the last call, emptied. */
  take(): Failure[];
}

const API_PATH = /^\/(api|apis|kapi|kapis)(\/|$)/;

export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  let failures: Failure[] = [];
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (API_PATH.test(u.pathname) && r.status() >= 400)
      failures.push(`${r.status()} ${r.request().method()} ${u.pathname}${u.search}`);
  });
  page.on('pageerror', (e) =>
    failures.push(`page error: ${(e.message || e.stack || String(e)).slice(0, 300)}`),
  );
  page.on('websocket', (ws) =>
    ws.on('socketerror', (e) => failures.push(`websocket ${new URL(ws.url()).pathname}: ${e}`)),
  );
  return {
    page,
    take() {
      const taken = [...new Set(failures)];
      failures = [];
      return taken;
    },
  };
}

/** Logs in through the console's own login page (which calls POST /oauth/token server-side). */
export async function consoleLogin(
  w: WatchedPage,
  url: string,
  username: string,
  password: string,
): Promise<void> {
  await w.page.goto(`${url}/login`);
  await w.page.fill('input[name="username"]', username);
  await w.page.fill('input[name="password"]', password);
  await w.page.click('button[type="submit"]');
  await w.page.waitForURL((u) => !u.pathname.startsWith('/login'), { timeout: 30_000 });
}
