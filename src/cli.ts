// Every flag and environment override, in one table per command: flag -> environment variable -> where the value
// goes (an option for start-up, or a kubesphere.yaml field, applied as the configuration's last layer). --help is
// generated from it. `kapiserver devcluster` takes a few of the same flags (no environment: as kapiserver's child it
// must not pick up kapiserver's variables). Nothing else reads process.env for configuration.
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { fail } from './fail.ts';

/** kube-apiserver's --oidc-* flags: the dev cluster trusts ID tokens from this issuer (see devcluster/oidc.ts). */
export interface OidcFlags {
  oidcIssuerUrl?: string;
  oidcClientId?: string;
  oidcUsernameClaim?: string;
  oidcUsernamePrefix?: string;
  oidcGroupsClaim?: string;
  oidcGroupsPrefix?: string;
  oidcCaFile?: string;
}

export interface CliOptions extends OidcFlags {
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
  /** Prefix of the in-cluster service-account mount, for tests that stage those files elsewhere. */
  inClusterRoot: string;
  /** kubesphere.yaml fields set by flags or the environment: they beat the file and the live ClusterConfiguration. */
  configOverrides: Record<string, unknown>;
  help: boolean;
  version: boolean;
}

/** `kapiserver devcluster`'s options. */
export interface DevClusterOptions extends OidcFlags {
  dataDir: string;
  bindAddress: string;
  port: number;
  logLevel: string;
  help: boolean;
}

type Raw = string | string[];

interface Setting<Options> {
  /** Long flag without the dashes; absent: environment only. */
  flag?: string;
  short?: string;
  /** Another spelling of the flag (ks-apiserver's), accepted but not listed. */
  alias?: string;
  env?: string;
  /** Value placeholder in --help; absent: a boolean flag. */
  arg?: string;
  repeatable?: boolean;
  /** --help text; absent: not listed (a test hook). */
  help?: string;
  default?: string;
  /** Where the value goes: an option, or a kubesphere.yaml path (`authentication.jwtSecret`). */
  option?: keyof Options & string;
  configPath?: string;
  parse?: (raw: Raw, flag: string) => unknown;
}

export class UsageError extends Error {}

/** A command's options from `parse`; a usage error is printed with a pointer to --help, and the process exits 2. */
export function parseOrExit<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof UsageError) fail(`${err.message}\nRun '${command} --help' for usage.`);
    throw err;
  }
}

function port(raw: Raw, flag: string): number {
  const value = String(raw);
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535)
    throw new UsageError(`--${flag}: expected a port number 0-65535, got "${value}"`);
  return n;
}

const DNS_NAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i;

/** --tls-san values: each a DNS name or an IP address; a value may list several, comma-separated. */
function tlsSans(raw: Raw): string[] {
  const names = [raw]
    .flat()
    .flatMap((v) => v.split(','))
    .map((n) => n.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!isIP(n) && (!DNS_NAME.test(n) || n.length > 253))
      throw new UsageError(`--tls-san: "${n}" is neither a DNS name nor an IP address`);
  }
  return names;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** An absolute http(s) URL without query or fragment (where clients reach kapiserver). */
function externalUrl(raw: Raw, flag: string): string {
  const value = String(raw);
  const u = URL.canParse(value) ? new URL(value) : undefined;
  if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash)
    throw new UsageError(`--${flag}: expected an http(s) URL without query or fragment, got "${value}"`);
  return value.replace(/\/+$/, '');
}

/** `true` or `false`, as kube-apiserver's boolean flags take them (`--flag=false`). */
function booleanValue(raw: Raw, flag: string): boolean {
  const value = String(raw);
  if (value !== 'true' && value !== 'false')
    throw new UsageError(`--${flag}: expected true or false, got "${value}"`);
  return value === 'true';
}

function logLevel(raw: Raw, flag: string): string {
  const level = String(raw);
  if (!LEVELS.includes(level))
    throw new UsageError(`--${flag}: expected one of ${LEVELS.join(', ')}, got "${level}"`);
  return level;
}

// The flags both commands take alike.
const DATA_DIR = {
  flag: 'data-dir',
  arg: '<dir>',
  option: 'dataDir',
  default: '.kapiserver',
  help: 'state directory',
} as const;
const LOG_LEVEL = {
  flag: 'log-level',
  arg: '<level>',
  option: 'logLevel',
  parse: logLevel,
  default: 'info',
  help: `${LEVELS.join('|')}`,
} as const;
const HELP = { flag: 'help', short: 'h', option: 'help', help: 'print this help and exit' } as const;

const OIDC_FLAGS: [flag: string, option: keyof OidcFlags, arg: string, help: string][] = [
  [
    'oidc-issuer-url',
    'oidcIssuerUrl',
    '<url>',
    'trust ID tokens from this OIDC issuer (https), as kube-apiserver',
  ],
  ['oidc-client-id', 'oidcClientId', '<id>', 'the audience those ID tokens must have'],
  ['oidc-username-claim', 'oidcUsernameClaim', '<claim>', 'claim naming the user (default sub)'],
  [
    'oidc-username-prefix',
    'oidcUsernamePrefix',
    '<prefix>',
    'before user names (default <issuer># unless the claim is email; - for none)',
  ],
  ['oidc-groups-claim', 'oidcGroupsClaim', '<claim>', 'claim listing the groups'],
  ['oidc-groups-prefix', 'oidcGroupsPrefix', '<prefix>', 'before group names'],
  ['oidc-ca-file', 'oidcCaFile', '<file>', "CA bundle for the issuer (default: the system's)"],
];

/** The --oidc-* settings: the dev cluster's own, or kapiserver's --devcluster-oidc-* that it passes to its child. */
function oidcSettings(forKapiserver: boolean): Setting<OidcFlags>[] {
  return OIDC_FLAGS.map(([flag, option, arg, help]) =>
    forKapiserver
      ? {
          flag: `devcluster-${flag}`,
          env: `KAPISERVER_DEVCLUSTER_${flag.replaceAll('-', '_').toUpperCase()}`,
          option,
          arg,
          help: `dev cluster: ${help}`,
        }
      : { flag, option, arg, help },
  );
}

/** The child's --oidc-* arguments for what kapiserver was given. */
export function oidcFlagArgs(o: OidcFlags): string[] {
  return OIDC_FLAGS.flatMap(([flag, option]) =>
    o[option] === undefined ? [] : [`--${flag}`, String(o[option])],
  );
}

/** Refuses --oidc-* flags that cannot work, as kube-apiserver at start-up. */
function checkOidcFlags(o: OidcFlags, prefix: string): void {
  const given = OIDC_FLAGS.filter(([, option]) => o[option] !== undefined);
  if (given.length === 0) return;
  if (!o.oidcIssuerUrl)
    throw new UsageError(`--${prefix}oidc-issuer-url is required with --${prefix}${given[0][0]}`);
  if (!o.oidcClientId)
    throw new UsageError(`--${prefix}oidc-client-id is required with --${prefix}oidc-issuer-url`);
  if (!o.oidcIssuerUrl.startsWith('https://'))
    throw new UsageError(`--${prefix}oidc-issuer-url must be an https URL`);
}

const SETTINGS: Setting<CliOptions>[] = [
  {
    flag: 'bind-address',
    env: 'KAPISERVER_BIND_ADDRESS',
    arg: '<ip>',
    option: 'bindAddress',
    default: '0.0.0.0',
    help: 'address to listen on',
  },
  {
    flag: 'port',
    alias: 'insecure-port',
    env: 'KAPISERVER_PORT',
    arg: '<n>',
    option: 'port',
    parse: port,
    default: '9090',
    help: 'plain HTTP port for KubeSphere clients, 0 for any free port',
  },
  {
    flag: 'secure-port',
    env: 'KAPISERVER_SECURE_PORT',
    arg: '<n>',
    option: 'securePort',
    parse: port,
    default: '9443',
    help: 'HTTPS port for kubectl, 0 for any free port',
  },
  {
    flag: 'tls-cert-file',
    env: 'KAPISERVER_TLS_CERT_FILE',
    arg: '<file>',
    option: 'tlsCertFile',
    help: 'serving certificate for the secure port (default: generated under <data-dir>/pki)',
  },
  {
    flag: 'tls-private-key-file',
    env: 'KAPISERVER_TLS_PRIVATE_KEY_FILE',
    arg: '<file>',
    option: 'tlsPrivateKeyFile',
    help: 'its private key',
  },
  {
    flag: 'tls-san',
    env: 'KAPISERVER_TLS_SAN',
    arg: '<name>[,<name>...]',
    repeatable: true,
    option: 'tlsSans',
    parse: tlsSans,
    default: '',
    help: "extra DNS names or IP addresses for the generated certificate, which already names\nlocalhost, this host's name and every local address (repeatable)",
  },
  {
    flag: 'external-url',
    env: 'KAPISERVER_EXTERNAL_URL',
    arg: '<url>',
    configPath: 'authentication.oauthOptions.externalURL',
    parse: externalUrl,
    help: 'where clients reach kapiserver (https://ks.example.com): the OpenID Connect issuer is\n<url>/oauth unless oauthOptions.issuer is a URL',
  },
  {
    flag: 'service-account-tokens',
    env: 'KAPISERVER_SERVICE_ACCOUNT_TOKENS',
    arg: 'true|false',
    configPath: 'authentication.serviceAccountTokens',
    parse: booleanValue,
    help: "accept the cluster's service-account tokens (its TokenReview decides); sets\nauthentication.serviceAccountTokens (default true)",
  },
  {
    flag: 'config',
    env: 'KAPISERVER_CONFIG',
    arg: '<kubesphere.yaml>',
    option: 'config',
    help: 'KubeSphere configuration file',
  },
  {
    flag: 'kubeconfig',
    env: 'KUBECONFIG_FILE',
    arg: '<file>',
    option: 'kubeconfig',
    help: 'use this Kubernetes cluster instead of the embedded dev cluster',
  },
  { ...DATA_DIR, env: 'KAPISERVER_DATA_DIR' },
  {
    flag: 'devcluster-port',
    env: 'KAPISERVER_DEVCLUSTER_PORT',
    arg: '<n>',
    option: 'devclusterPort',
    parse: port,
    default: '6443',
    help: 'port of the embedded dev cluster, loopback only',
  },
  ...oidcSettings(true),
  { ...LOG_LEVEL, env: 'KAPISERVER_LOG_LEVEL' },
  { flag: 'version', option: 'version', help: 'print the version and exit' },
  HELP,
  {
    env: 'KAPISERVER_ADMIN_PASSWORD',
    configPath: 'authentication.adminPassword',
    help: 'password of the admin user created on first start (default: random, printed once)',
  },
  {
    env: 'KAPISERVER_JWT_SECRET',
    configPath: 'authentication.jwtSecret',
    help: 'HS256 key for tokens (default: generated once and kept)',
  },
  { env: 'KAPISERVER_INCLUSTER_ROOT', option: 'inClusterRoot', default: '' },
];

const DEVCLUSTER_SETTINGS: Setting<DevClusterOptions>[] = [
  DATA_DIR,
  {
    flag: 'bind-address',
    arg: '<ip>',
    option: 'bindAddress',
    default: '127.0.0.1',
    help: 'address to listen on',
  },
  {
    flag: 'port',
    arg: '<n>',
    option: 'port',
    parse: port,
    default: '6443',
    help: 'HTTPS port, 0 for any free port',
  },
  ...oidcSettings(false),
  LOG_LEVEL,
  HELP,
];

/** One --help entry: the name column, then the text; continuation lines line up under the text. */
function helpLine(name: string, text: string): string {
  return `  ${name.padEnd(29)}  ${text.replaceAll('\n', `\n${' '.repeat(33)}`)}`;
}

function helpText<O>(s: Setting<O>): string {
  const shown = s.default ? ` (default ${s.default})` : '';
  return `${s.help}${shown}`;
}

/** The --help lines of a table's flags, each with its environment variable in brackets. */
function flagLines<O>(settings: Setting<O>[]): string {
  return settings
    .filter((s) => s.help && s.flag)
    .map((s) => {
      const name = `${s.short ? `-${s.short}, ` : ''}--${s.flag}${s.arg ? ` ${s.arg}` : ''}`;
      return helpLine(name, `${helpText(s)}${s.env ? ` [${s.env}]` : ''}`);
    })
    .join('\n');
}

function usage(): string {
  const envOnly = SETTINGS.filter((s) => s.help && !s.flag && s.env).map((s) =>
    helpLine(s.env ?? '', helpText(s)),
  );
  return `kapiserver: cluster-management API server, wire-compatible with KubeSphere v3 ks-apiserver

Usage:
  kapiserver [flags]              run the API server (on the embedded dev cluster unless --kubeconfig or in-cluster)
  kapiserver devcluster [flags]   run only the embedded Kubernetes-compatible dev cluster

Flags (each also read from the environment variable in brackets):
${flagLines(SETTINGS)}

Environment only:
${envOnly.join('\n')}
`;
}

export const USAGE = usage();

export const DEVCLUSTER_USAGE = `Usage: kapiserver devcluster [flags]

Runs the embedded Kubernetes-compatible API server alone (HTTPS, bearer token, SQLite state).

Flags:
${flagLines(DEVCLUSTER_SETTINGS)}
`;

function parseFlags<O>(settings: Setting<O>[], argv: string[]): Record<string, Raw | boolean | undefined> {
  const options: NonNullable<Parameters<typeof parseArgs>[0]>['options'] = {};
  for (const s of settings) {
    if (!s.flag) continue;
    const spec = s.arg
      ? { type: 'string' as const, multiple: s.repeatable === true }
      : { type: 'boolean' as const, ...(s.short ? { short: s.short } : {}) };
    options[s.flag] = spec;
    if (s.alias) options[s.alias] = spec;
  }
  try {
    // Only string flags are `multiple`, so a list is a list of strings.
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options }).values as Record<
      string,
      Raw | boolean | undefined
    >;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Sets `path` (dot-separated) in a nested document. */
function setPath(doc: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() as string;
  let at = doc;
  for (const k of keys) {
    at[k] ??= {};
    at = at[k] as Record<string, unknown>;
  }
  at[last] = value;
}

/** A table's values from the flags, then the environment, then the defaults; config paths go to configOverrides. */
function readSettings<O>(
  settings: Setting<O>[],
  argv: string[],
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const flags = parseFlags(settings, argv);
  const opts: Record<string, unknown> = { configOverrides: {} };
  for (const s of settings) {
    const given = s.flag ? (flags[s.flag] ?? (s.alias ? flags[s.alias] : undefined)) : undefined;
    // A switch (--version, --help): present or not.
    if (typeof given === 'boolean' || (s.flag && !s.arg)) {
      opts[s.option ?? ''] = given === true;
      continue;
    }
    const raw = given ?? ((s.env && env[s.env]) || undefined) ?? s.default;
    if (raw === undefined) continue;
    const value = s.parse ? s.parse(raw, s.flag ?? '') : raw;
    if (s.configPath) setPath(opts.configOverrides as Record<string, unknown>, s.configPath, value);
    else opts[s.option ?? ''] = value;
  }
  return opts;
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const cli = readSettings(SETTINGS, argv, env) as unknown as CliOptions;
  if (Boolean(cli.tlsCertFile) !== Boolean(cli.tlsPrivateKeyFile)) {
    throw new UsageError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  checkOidcFlags(cli, 'devcluster-');
  return cli;
}

/** `kapiserver devcluster`'s flags (it reads no environment). */
export function parseDevClusterCli(argv: string[]): DevClusterOptions {
  const { configOverrides: _, ...options } = readSettings(DEVCLUSTER_SETTINGS, argv, {});
  checkOidcFlags(options, '');
  return options as unknown as DevClusterOptions;
}
