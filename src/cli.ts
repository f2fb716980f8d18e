// Command-line flags and their environment-variable overrides (KAPISERVER_<FLAG>), kept apart from start-up logic.
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';

export interface CliOptions {
  bindAddress: string;
  port: number;
  securePort: number;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Extra names for the generated serving certificate. */
  tlsSans: string[];
  config?: string;
  kubeconfig?: string;
  dataDir: string;
  logLevel: string;
  devclusterPort: number;
  help: boolean;
  version: boolean;
}

export const USAGE = `kapiserver: cluster-management API server, wire-compatible with KubeSphere v3 ks-apiserver

Usage:
  kapiserver [flags]              run the API server (on the embedded dev cluster unless --kubeconfig or in-cluster)
  kapiserver devcluster [flags]   run only the embedded Kubernetes-compatible dev cluster

Flags (each also read from the environment variable in brackets):
  --bind-address <ip>            address to listen on (default 0.0.0.0) [KAPISERVER_BIND_ADDRESS]
  --port <n>                     plain HTTP port for KubeSphere clients (default 9090; 0 = any free port) [KAPISERVER_PORT]
  --secure-port <n>              HTTPS port for kubectl (default 9443; 0 = any free port) [KAPISERVER_SECURE_PORT]
  --tls-cert-file <file>         serving certificate for the secure port (default: generated under <data-dir>/pki) [KAPISERVER_TLS_CERT_FILE]
  --tls-private-key-file <file>  its private key [KAPISERVER_TLS_PRIVATE_KEY_FILE]
  --tls-san <name>[,<name>...]   extra DNS names or IP addresses for the generated certificate, which already names
                                 localhost, this host's name and every local address (repeatable) [KAPISERVER_TLS_SAN]
  --config <kubesphere.yaml>     KubeSphere configuration file [KAPISERVER_CONFIG]
  --kubeconfig <file>            use this Kubernetes cluster instead of the embedded dev cluster [KUBECONFIG_FILE]
  --data-dir <dir>               state directory (default .kapiserver) [KAPISERVER_DATA_DIR]
  --devcluster-port <n>          port of the embedded dev cluster, loopback only (default 6443) [KAPISERVER_DEVCLUSTER_PORT]
  --log-level <level>            trace|debug|info|warn|error|fatal|silent (default info) [KAPISERVER_LOG_LEVEL]
  --version                      print the version and exit
  -h, --help                     print this help and exit

Environment only:
  KAPISERVER_ADMIN_PASSWORD      password of the admin user created on first start (default: random, printed once)
  KAPISERVER_JWT_SECRET          HS256 key for tokens (default: generated once and kept)
`;

export class UsageError extends Error {}

function port(name: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535)
    throw new UsageError(`--${name}: expected a port number 0-65535, got "${value}"`);
  return n;
}

const DNS_NAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i;

/** --tls-san values: each a DNS name or an IP address; a value may list several, comma-separated. */
function tlsSans(values: string[]): string[] {
  const names = values
    .flatMap((v) => v.split(','))
    .map((n) => n.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!isIP(n) && (!DNS_NAME.test(n) || n.length > 253))
      throw new UsageError(`--tls-san: "${n}" is neither a DNS name nor an IP address`);
  }
  return names;
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'bind-address': { type: 'string' },
        port: { type: 'string' },
        'insecure-port': { type: 'string' },
        'secure-port': { type: 'string' },
        'tls-cert-file': { type: 'string' },
        'tls-private-key-file': { type: 'string' },
        'tls-san': { type: 'string', multiple: true },
        config: { type: 'string' },
        kubeconfig: { type: 'string' },
        'data-dir': { type: 'string' },
        'devcluster-port': { type: 'string' },
        'log-level': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const pick = (flag: string, envName: string): string | undefined =>
    (v[flag] as string | undefined) ?? (env[envName] || undefined);
  const logLevel = pick('log-level', 'KAPISERVER_LOG_LEVEL') ?? 'info';
  if (!LEVELS.has(logLevel))
    throw new UsageError(`--log-level: expected one of ${[...LEVELS].join(', ')}, got "${logLevel}"`);
  const opts: CliOptions = {
    bindAddress: pick('bind-address', 'KAPISERVER_BIND_ADDRESS') ?? '0.0.0.0',
    port: port('port', (v.port as string | undefined) ?? pick('insecure-port', 'KAPISERVER_PORT') ?? '9090'),
    securePort: port('secure-port', pick('secure-port', 'KAPISERVER_SECURE_PORT') ?? '9443'),
    tlsCertFile: pick('tls-cert-file', 'KAPISERVER_TLS_CERT_FILE'),
    tlsPrivateKeyFile: pick('tls-private-key-file', 'KAPISERVER_TLS_PRIVATE_KEY_FILE'),
    tlsSans: tlsSans(
      (v['tls-san'] as string[] | undefined) ?? (env.KAPISERVER_TLS_SAN ? [env.KAPISERVER_TLS_SAN] : []),
    ),
    config: pick('config', 'KAPISERVER_CONFIG'),
    kubeconfig: pick('kubeconfig', 'KUBECONFIG_FILE'),
    dataDir: pick('data-dir', 'KAPISERVER_DATA_DIR') ?? '.kapiserver',
    logLevel,
    devclusterPort: port('devcluster-port', pick('devcluster-port', 'KAPISERVER_DEVCLUSTER_PORT') ?? '6443'),
    help: v.help === true,
    version: v.version === true,
  };
  if (Boolean(opts.tlsCertFile) !== Boolean(opts.tlsPrivateKeyFile)) {
    throw new UsageError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  return opts;
}
