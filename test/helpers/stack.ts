// Test harness: a fresh embedded dev cluster plus a kapiserver in this process, on ephemeral ports and a temp dir.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { ClusterConnection } from '../../src/apiserver/cluster/index.ts';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/index.ts';
import { parseCli } from '../../src/cli.ts';
import { configFromDocument, type KubeSphereConfig, overlay } from '../../src/config/index.ts';
import { type DevCluster, startDevCluster } from '../../src/devcluster/index.ts';

export interface TestStack {
  dataDir: string;
  dev: DevCluster;
  api: RunningApiServer;
  config: KubeSphereConfig;
  /** http://127.0.0.1:<port> of kapiserver's plain port. */
  url: string;
  /** https://127.0.0.1:<port> of kapiserver's secure port (trust `caPem`). */
  secureUrl: string;
  caPem: string;
  /** Password of the bootstrap `admin` user (set through the configuration). */
  adminPassword: string;
  close(): Promise<void>;
}

export interface StackOptions {
  /** A kubesphere.yaml document (parsed form); `authentication.adminPassword` is filled in when absent. */
  configDocument?: Record<string, unknown>;
  /** Reuse an existing dev cluster (e.g. two kapiserver replicas on one cluster). */
  dev?: DevCluster;
  dataDir?: string;
  /**
   * kapiserver's orchestrator kubeconfig (default: the dev cluster's own). Lets a test put a recording or faulty
   * hop between kapiserver and the dev cluster (the dev cluster is still started and used by the test helpers).
   */
  clusterKubeconfigPath?: string;
  /** Logger for the dev cluster and kapiserver (default: silent unless KAPISERVER_TEST_LOG_LEVEL); e.g. to capture logs. */
  logger?: Logger;
}

export async function startTestStack(opts: StackOptions = {}): Promise<TestStack> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'kapiserver-test-'));
  const logger = opts.logger ?? pino({ level: process.env.KAPISERVER_TEST_LOG_LEVEL ?? 'silent' });
  const adminPassword = `Adm1n-${randomBytes(9).toString('base64url')}`;
  const doc = structuredClone(opts.configDocument ?? {}) as { authentication?: Record<string, unknown> };
  doc.authentication = { adminPassword, ...(doc.authentication ?? {}) };
  // The environment's overrides (KAPISERVER_ADMIN_PASSWORD...) beat the document, as in the real process.
  const config = overlay(configFromDocument(doc, 'in test').config, parseCli([]).configOverrides);
  const ownDev = !opts.dev;
  const dev = opts.dev ?? (await startDevCluster({ dataDir, port: 0, logger }));
  const cluster = ClusterConnection.fromFile(opts.clusterKubeconfigPath ?? dev.kubeconfigPath, logger);
  const api = await startApiServer({
    config,
    cluster,
    logger,
    dataDir,
    host: '127.0.0.1',
    port: 0,
    securePort: 0,
  });
  return {
    dataDir,
    dev,
    api,
    config,
    url: `http://127.0.0.1:${api.port}`,
    secureUrl: `https://127.0.0.1:${api.securePort}`,
    caPem: api.caPem ?? dev.caPem,
    adminPassword: String(config.authentication.adminPassword),
    async close() {
      await api.close();
      if (ownDev) await dev.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
