// `kapiserver devcluster`: runs only the embedded Kubernetes-compatible dev cluster.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import pino from 'pino';
import { DEVCLUSTER_USAGE, parseDevClusterCli, parseOrExit } from '../cli.ts';
import { createLogger } from '../logger.ts';
import type { ChildMessage } from './child.ts';
import { type DevCluster, startDevCluster } from './index.ts';

/** A dev cluster started by kapiserver waits this long for the child of a just-killed kapiserver to let go. */
const SUPERVISED_LOCK_WAIT_MS = 10_000;

export async function runDevClusterCli(argv: string[]): Promise<void> {
  const options = parseOrExit('kapiserver devcluster', () => parseDevClusterCli(argv));
  if (options.help) {
    process.stdout.write(DEVCLUSTER_USAGE);
    return;
  }
  const { port } = options;
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Started by kapiserver (an IPC channel to it): its log lines join kapiserver's, and it lives only as long as it.
  const supervised = process.send !== undefined;
  const level = options.logLevel;
  const logger = supervised ? createLogger(level, { component: 'devcluster' }) : pino({ level });
  // Until the server is up, losing kapiserver means there is nothing to close.
  let stop: (reason: string) => void = () => process.exit(0);
  // The channel closes when kapiserver exits in any way, kill -9 included: no orphan keeps the port and the lock.
  if (supervised) process.on('disconnect', () => stop('kapiserver exited'));
  let dev: DevCluster;
  try {
    dev = await startDevCluster({
      dataDir,
      host: options.bindAddress,
      port,
      logger,
      lockWaitMs: supervised ? SUPERVISED_LOCK_WAIT_MS : 0,
      oidc: options.oidcIssuerUrl
        ? {
            issuerUrl: options.oidcIssuerUrl,
            clientId: options.oidcClientId ?? '',
            usernameClaim: options.oidcUsernameClaim,
            usernamePrefix: options.oidcUsernamePrefix,
            groupsClaim: options.oidcGroupsClaim,
            groupsPrefix: options.oidcGroupsPrefix,
            caFile: options.oidcCaFile,
          }
        : undefined,
    });
  } catch (err) {
    const message = (err as Error).message;
    if (!supervised) {
      process.stderr.write(`kapiserver devcluster: ${message}\n`);
      process.exit(1);
    }
    // kapiserver prints the reason; exit once the message has left.
    process.send?.({ type: 'failed', message } satisfies ChildMessage, () => process.exit(1));
    return;
  }
  let stopping = false;
  stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'dev cluster shutting down');
    const deadline = setTimeout(() => process.exit(1), 5000);
    deadline.unref();
    dev.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (supervised) {
    process.send?.({
      type: 'ready',
      url: dev.url,
      port: dev.port,
      kubeconfigPath: dev.kubeconfigPath,
    } satisfies ChildMessage);
    return;
  }
  process.stderr.write(
    [
      '',
      `dev cluster (Kubernetes v1.33 API) listening on ${dev.url}`,
      `  kubectl --kubeconfig ${dev.kubeconfigPath} get nodes`,
      '',
    ].join('\n'),
  );
}
