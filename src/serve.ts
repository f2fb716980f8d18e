// kapiserver's composition root: config file -> the orchestrator (embedded dev cluster child unless a kubeconfig
// or in-cluster service account is given) -> the API server; graceful shutdown on SIGTERM/SIGINT.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { ClusterConnection } from './apiserver/cluster/index.ts';
import { startApiServer } from './apiserver/index.ts';
import type { CliOptions } from './cli.ts';
import {
  ConfigError,
  DEFAULT_CLIENT_SECRET,
  defaultConfig,
  type KubeSphereConfig,
  loadConfigFile,
  overlay,
} from './config/index.ts';
import { DirLockedError, lockDir } from './datadir-lock.ts';
import { type DevClusterChild, startDevClusterChild } from './devcluster/child.ts';
import { fail } from './fail.ts';
import { createLogger } from './logger.ts';
import { ensureLocalPki } from './pki/index.ts';

/** Bound on shutdown: past it the process exits anyway (Kubernetes sends SIGKILL 30 s after SIGTERM). */
const SHUTDOWN_DEADLINE_MS = 8000;

function loadConfig(path: string | undefined, logger: Logger): KubeSphereConfig {
  if (!path) return defaultConfig();
  const { config, warnings } = loadConfigFile(path);
  for (const w of warnings) logger.warn(w);
  return config;
}

export async function serve(cli: CliOptions, version: string): Promise<void> {
  const logger = createLogger(cli.logLevel, {}, { buffered: true });
  let config: KubeSphereConfig;
  try {
    // Flags and environment beat the file: in a Deployment the HS256 key comes from a Secret, shared by every replica.
    config = overlay(loadConfig(cli.config, logger), cli.configOverrides);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const dataDir = resolve(cli.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // One kapiserver per data directory (its token store, keys and PKI); the dev cluster child locks its own folder.
  try {
    lockDir(dataDir, 'kapiserver.lock');
  } catch (err) {
    if (err instanceof DirLockedError) fail(err.message, 1);
    throw err;
  }

  let devcluster: DevClusterChild | undefined;
  let cluster: ClusterConnection;
  if (cli.kubeconfig) {
    cluster = ClusterConnection.fromFile(cli.kubeconfig, logger);
    logger.info({ server: cluster.server }, 'using the cluster of the given kubeconfig');
  } else if (ClusterConnection.inClusterAvailable(cli.inClusterRoot)) {
    cluster = ClusterConnection.inCluster(cli.inClusterRoot, logger);
    logger.info({ server: cluster.server }, 'using the in-cluster service account');
  } else {
    // Certificates first: the child reuses them instead of racing to create the same files.
    await ensureLocalPki(dataDir, cli.tlsSans);
    devcluster = await startDevClusterChild({
      dataDir,
      port: cli.devclusterPort,
      logLevel: cli.logLevel,
      logger: logger.child({ component: 'devcluster' }),
      oidc: cli,
    });
    cluster = ClusterConnection.fromFile(devcluster.kubeconfigPath, logger);
    logger.info(
      { server: devcluster.url, kubeconfig: devcluster.kubeconfigPath, pid: devcluster.pid() },
      'embedded dev cluster started',
    );
  }

  const server = await startApiServer({
    config,
    cluster,
    logger,
    dataDir,
    host: cli.bindAddress,
    port: cli.port,
    securePort: cli.securePort,
    tlsCertFile: cli.tlsCertFile,
    tlsKeyFile: cli.tlsPrivateKeyFile,
    tlsSans: cli.tlsSans,
  });
  const shown = cli.bindAddress === '0.0.0.0' || cli.bindAddress === '::' ? '127.0.0.1' : cli.bindAddress;
  logger.info({ port: server.port, securePort: server.securePort }, 'kapiserver listening');
  // For people: stderr, so stdout stays one JSON log object per line for log collectors.
  process.stderr.write(
    [
      '',
      `kapiserver v${version} is listening on`,
      `  http://${shown}:${server.port}    (KubeSphere clients, curl)`,
      `  https://${shown}:${server.securePort}   (kubectl; CA: ${resolve(dataDir, 'pki', 'ca.crt')})`,
      devcluster ? `embedded dev cluster: kubectl --kubeconfig ${devcluster.kubeconfigPath} get nodes` : '',
      ...tokenHint(config, dataDir, `http://${shown}:${server.port}`),
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    try {
      await server.close();
      await devcluster?.close();
      logger.info('shutdown complete');
      logger.flush?.();
      process.exit(0);
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** How to get a token, with the real client id; a client secret is shown only when it is the well-known default. */
function tokenHint(config: KubeSphereConfig, dataDir: string, base: string): string[] {
  const client = config.authentication.oauthOptions.clients[0];
  if (!client)
    return ['No OAuth client is configured yet: add one under authentication.oauthOptions.clients.'];
  const passwordFile = join(dataDir, 'initial-admin-password');
  const password = existsSync(passwordFile) ? `$(cat ${resolve(passwordFile)})` : '<password>';
  const secret = client.secret === DEFAULT_CLIENT_SECRET ? client.secret : '<client secret>';
  return [
    'Get a token:',
    `  curl -s -X POST ${base}/oauth/token -H 'Content-Type: application/x-www-form-urlencoded' \\`,
    `    -d "grant_type=password&username=admin&password=${password}&client_id=${client.name}&client_secret=${secret}"`,
  ];
}
