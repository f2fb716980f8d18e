// Starts a real, throw-away Prometheus (/usr/bin/prometheus, Debian package `prometheus`) on a free loopback port
// with a temporary storage directory, scraping the given targets every second, and stops it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './ports.ts';

export const PROMETHEUS = '/usr/bin/prometheus';

/** Why Prometheus tests cannot run here, or undefined when the binary is available. */
export function prometheusUnavailableReason(): string | undefined {
  const r = spawnSync(PROMETHEUS, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    return `prometheus is not installed at ${PROMETHEUS} (apt-get install -y prometheus); skipping the Prometheus run`;
  }
  return undefined;
}

export interface ScrapeTarget {
  job: string;
  /** host:port */
  target: string;
  metricsPath?: string;
  /** A bearer token for the scrape (written to a file Prometheus reads, never on its command line). */
  bearerToken?: string;
}

export interface TestPrometheus {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Resolves once every target has been scraped successfully (up == 1). */
  waitForScrape(timeoutMs?: number): Promise<void>;
  /** An instant query through Prometheus' own API (for the test's assertions). */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  targets: ScrapeTarget[];
  /** Listen here (e.g. a port reserved with freePort() that a server was already told about); default: a free one. */
  port?: number;
  /** Recording rules, as Prometheus' rule file groups. */
  ruleGroups?: { name: string; rules: { record: string; expr: string }[] }[];
}

export async function startPrometheus(opts: PrometheusOptions): Promise<TestPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'kapiserver-prometheus-'));
  const scrapeConfigs = opts.targets.map((t, i) => {
    let authorization: Record<string, string> | undefined;
    if (t.bearerToken) {
      const tokenFile = join(dir, `token-${i}`);
      writeFileSync(tokenFile, t.bearerToken, { mode: 0o600 });
      authorization = { type: 'Bearer', credentials_file: tokenFile };
    }
    return {
      job_name: t.job,
      metrics_path: t.metricsPath ?? '/metrics',
      ...(authorization ? { authorization } : {}),
      static_configs: [{ targets: [t.target] }],
    };
  });
  const rules = join(dir, 'rules.yml');
  writeFileSync(rules, stringify({ groups: opts.ruleGroups ?? [] }));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s', scrape_timeout: '1s' },
      rule_files: [rules],
      scrape_configs: scrapeConfigs,
    }),
  );
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });

  const query = async (expr: string) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { data?: { result?: [] } };
    return body.data?.result ?? [];
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    query,
    async waitForScrape(timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const up = await query('up');
        if (
          up.length === opts.targets.length &&
          up.every((s: { value: [number, string] }) => s.value[1] === '1')
        ) {
          return;
        }
        if (Date.now() > until)
          throw new Error(`no successful scrape of every target: ${JSON.stringify(up)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    stop,
  };
}
