// `kapiserver devcluster`: runs only the embedded Kubernetes-compatible dev cluster.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { startDevCluster } from './index.ts';

const USAGE = `Usage: kapiserver devcluster [flags]

Runs the embedded Kubernetes-compatible API server alone (HTTPS, bearer token, SQLite state).

Flags:
  --data-dir <dir>        state directory (default .kapiserver)
  --bind-address <addr>   listen address (default 127.0.0.1)
  --port <n>              HTTPS port (default 6443; 0 picks a free port)
  --log-level <level>     pino level (default info)
  -h, --help              show this help
`;

export async function runDevClusterCli(argv: string[]): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        'bind-address': { type: 'string' },
        port: { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const portText = String(values.port ?? '6443');
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    process.stderr.write(`--port: "${portText}" is not a port number\n`);
    process.exit(2);
  }
  const dataDir = resolve(String(values['data-dir'] ?? '.kapiserver'));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const logger = pino({ level: String(values['log-level'] ?? 'info') });
  const dev = await startDevCluster({
    dataDir,
    host: String(values['bind-address'] ?? '127.0.0.1'),
    port,
    logger,
  });
  process.stdout.write(
    [
      '',
      `dev cluster (Kubernetes v1.33 API) listening on ${dev.url}`,
      `  kubectl --kubeconfig ${dev.kubeconfigPath} get nodes`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'dev cluster shutting down');
    const deadline = setTimeout(() => process.exit(1), 5000);
    deadline.unref();
    dev.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
