// The connection to the orchestrator's API server: one place that knows its URL, CA and credentials, whether they
// come from the embedded dev cluster's kubeconfig, a user's kubeconfig, or the in-cluster service account.
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import { type ClusterAccess, readKubeconfig } from './kubeconfig.ts';

export interface ClusterTls {
  ca?: string;
  cert?: string;
  key?: string;
  /** Only true when the kubeconfig explicitly says insecure-skip-tls-verify (logged loudly at start). */
  insecureSkipVerify: boolean;
}

/** How often a rotated service-account token file is re-read. */
const TOKEN_FILE_TTL_MS = 60_000;

/** Where in-cluster mode finds the mounted service account (under an optional root, for tests). */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export class ClusterConnection {
  readonly server: string;
  readonly tls: ClusterTls;
  /** undici dispatcher with the cluster's TLS settings and connection reuse, shared by every caller. */
  readonly dispatcher: Agent;
  private readonly access: ClusterAccess;
  private tokenCache?: { value: string; readAt: number };
  private reachable = false;
  /** Why the last probe failed, for the log line and /readyz. */
  private lastFailure = '';
  private versionInfo?: Record<string, unknown>;

  constructor(access: ClusterAccess, logger?: Logger) {
    this.access = access;
    this.server = access.server.replace(/\/+$/, '');
    this.tls = {
      ca: access.ca,
      cert: access.cert,
      key: access.key,
      insecureSkipVerify: access.insecureSkipVerify === true,
    };
    if (this.tls.insecureSkipVerify) {
      logger?.warn(
        { server: this.server },
        'kubeconfig sets insecure-skip-tls-verify: the orchestrator certificate is NOT verified',
      );
    }
    this.dispatcher = new Agent({
      connect: {
        ca: this.tls.ca,
        cert: this.tls.cert,
        key: this.tls.key,
        rejectUnauthorized: !this.tls.insecureSkipVerify,
      },
      keepAliveTimeout: 30_000,
      connections: 128,
    });
  }

  static fromFile(path: string, logger?: Logger): ClusterConnection {
    return new ClusterConnection(readKubeconfig(path), logger);
  }

  /**
   * In-cluster mode: KUBERNETES_SERVICE_HOST/PORT plus the mounted service-account token and CA. `root` prefixes the
   * mount path, for tests that stage those files elsewhere.
   */
  static inCluster(root = '', logger?: Logger): ClusterConnection {
    const host = process.env.KUBERNETES_SERVICE_HOST ?? '';
    const port = process.env.KUBERNETES_SERVICE_PORT ?? '';
    // The plain-HTTP ports of a kube-apiserver's insecure serving (and kubectl proxy).
    const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
    return new ClusterConnection(
      {
        server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
        ca: readFileSync(`${root}${SERVICE_ACCOUNT_DIR}/ca.crt`, 'utf8'),
        tokenFile: `${root}${SERVICE_ACCOUNT_DIR}/token`,
      },
      logger,
    );
  }

  static inClusterAvailable(root = ''): boolean {
    try {
      readFileSync(`${root}${SERVICE_ACCOUNT_DIR}/token`);
      return Boolean(process.env.KUBERNETES_SERVICE_HOST);
    } catch {
      return false;
    }
  }

  /** The `Authorization` header value for the orchestrator (token files are re-read as they rotate). */
  authorization(): string | undefined {
    const { token, tokenFile, username, password } = this.access;
    if (token) return `Bearer ${token}`;
    if (tokenFile) {
      const now = Date.now();
      if (!this.tokenCache || now - this.tokenCache.readAt > TOKEN_FILE_TTL_MS) {
        this.tokenCache = { value: readFileSync(tokenFile, 'utf8').trim(), readAt: now };
      }
      return `Bearer ${this.tokenCache.value}`;
    }
    if (username && password) return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    return undefined;
  }

  /** Probes the orchestrator (GET /version); remembers the answer for readiness and /version. */
  async probe(timeoutMs = 3000): Promise<boolean> {
    try {
      const auth = this.authorization();
      const res = await request(`${this.server}/version`, {
        dispatcher: this.dispatcher,
        headers: auth ? { authorization: auth } : {},
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const body = await res.body.text();
      this.reachable = res.statusCode === 200;
      if (this.reachable) this.versionInfo = JSON.parse(body) as Record<string, unknown>;
      else this.lastFailure = `GET /version answered ${res.statusCode}`;
    } catch (err) {
      this.reachable = false;
      this.lastFailure = (err as Error).message;
    }
    return this.reachable;
  }

  /**
   * Probes every `intervalMs` until stopped. While the orchestrator does not answer, one error line per interval says
   * so (with the reason); the first success after that says it is back. Returns the stop function.
   */
  watchReachability(intervalMs: number, logger: Logger): () => void {
    let wasReachable = this.reachable;
    const report = () => {
      if (this.reachable && !wasReachable) logger.info({ server: this.server }, 'orchestrator reachable');
      if (!this.reachable)
        logger.error(
          { server: this.server, reason: this.lastFailure, retryInSeconds: intervalMs / 1000 },
          'orchestrator unreachable: /readyz reports it; retrying',
        );
      wasReachable = this.reachable;
    };
    report();
    const timer = setInterval(() => void this.probe().then(report), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  get isReachable(): boolean {
    return this.reachable;
  }

  /** The orchestrator's last known /version document. */
  get kubernetesVersion(): Record<string, unknown> | undefined {
    return this.versionInfo;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
