// The connection to the orchestrator's API server: one place that knows its URL, CA and credentials, whether they
// come from the embedded dev cluster's kubeconfig, a user's kubeconfig, or the in-cluster service account.
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Agent, request } from 'undici';

export interface ClusterTls {
  ca?: string;
  cert?: string;
  key?: string;
  /** Only true when the kubeconfig explicitly says insecure-skip-tls-verify (logged loudly at start). */
  insecureSkipVerify: boolean;
}

/** How often a rotated service-account token file is re-read. */
const TOKEN_FILE_TTL_MS = 60_000;

export class ClusterConnection {
  readonly kubeConfig: KubeConfig;
  readonly server: string;
  readonly tls: ClusterTls;
  /** undici dispatcher with the cluster's TLS settings and connection reuse, shared by every caller. */
  readonly dispatcher: Agent;
  private tokenCache?: { value: string; readAt: number };
  private reachable = false;
  /** Why the last probe failed, for the log line and /readyz. */
  private lastFailure = '';
  private versionInfo?: Record<string, unknown>;

  constructor(kubeConfig: KubeConfig, logger?: Logger) {
    this.kubeConfig = kubeConfig;
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    const user = kubeConfig.getCurrentUser();
    this.tls = {
      ca: cluster.caData
        ? Buffer.from(cluster.caData, 'base64').toString()
        : cluster.caFile
          ? readFileSync(cluster.caFile, 'utf8')
          : undefined,
      cert: user?.certData
        ? Buffer.from(user.certData, 'base64').toString()
        : user?.certFile
          ? readFileSync(user.certFile, 'utf8')
          : undefined,
      key: user?.keyData
        ? Buffer.from(user.keyData, 'base64').toString()
        : user?.keyFile
          ? readFileSync(user.keyFile, 'utf8')
          : undefined,
      insecureSkipVerify: cluster.skipTLSVerify === true,
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
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    return new ClusterConnection(kc, logger);
  }

  /**
   * In-cluster mode: KUBERNETES_SERVICE_HOST plus the mounted service-account token and CA. `root` prefixes the
   * mount path (/var/run/secrets/kubernetes.io/serviceaccount), for tests that stage those files elsewhere.
   */
  static inCluster(root = '', logger?: Logger): ClusterConnection {
    const kc = new KubeConfig();
    kc.loadFromCluster(root || undefined);
    return new ClusterConnection(kc, logger);
  }

  static inClusterAvailable(root = ''): boolean {
    try {
      readFileSync(`${root}/var/run/secrets/kubernetes.io/serviceaccount/token`);
      return Boolean(process.env.KUBERNETES_SERVICE_HOST);
    } catch {
      return false;
    }
  }

  /** The `Authorization` header value for the orchestrator (token files are re-read as they rotate). */
  authorization(): string | undefined {
    const user = this.kubeConfig.getCurrentUser();
    if (!user) return undefined;
    if (user.token) return `Bearer ${user.token}`;
    const provider = user.authProvider as { name?: string; config?: { tokenFile?: string } } | undefined;
    const file = provider?.name === 'tokenFile' ? provider.config?.tokenFile : undefined;
    if (file) {
      const now = Date.now();
      if (!this.tokenCache || now - this.tokenCache.readAt > TOKEN_FILE_TTL_MS) {
        this.tokenCache = { value: readFileSync(file, 'utf8').trim(), readAt: now };
      }
      return `Bearer ${this.tokenCache.value}`;
    }
    if (user.username && user.password) {
      return `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
    }
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
