// Reads what kapiserver needs from a kubeconfig file: the current context's cluster (server, CA, TLS verification)
// and user (client certificate, bearer token or token file, basic credentials). Relative file paths are resolved
// against the kubeconfig's directory, as kubectl does. exec and auth-provider plugins are not run.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

/** How to reach and authenticate to a cluster: certificates as PEM text, the token file as a path (it rotates). */
export interface ClusterAccess {
  server: string;
  ca?: string;
  cert?: string;
  key?: string;
  insecureSkipVerify?: boolean;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
}

type Fields = Record<string, unknown>;

/** The current context's cluster and user of the kubeconfig at `path`. */
export function readKubeconfig(path: string): ClusterAccess {
  try {
    return parseKubeconfig(readFileSync(path, 'utf8'), dirname(path));
  } catch (err) {
    throw new Error(`kubeconfig ${path}: ${(err as Error).message}`);
  }
}

/** `dir` is where relative paths in the document start from. */
export function parseKubeconfig(text: string, dir: string): ClusterAccess {
  const doc = asFields(parse(text), 'the document');
  const contextName = doc['current-context'];
  if (typeof contextName !== 'string' || contextName === '') throw new Error('current-context is not set');
  const context = named(doc, 'contexts', 'context', contextName);
  const clusterName = context.cluster;
  if (typeof clusterName !== 'string' || clusterName === '')
    throw new Error(`context "${contextName}" names no cluster`);
  const cluster = named(doc, 'clusters', 'cluster', clusterName);
  const server = stringField(cluster, 'server');
  if (!server) throw new Error(`cluster "${clusterName}" has no server`);
  const userName = context.user;
  const user = typeof userName === 'string' && userName !== '' ? named(doc, 'users', 'user', userName) : {};

  const path = (p: string) => (isAbsolute(p) ? p : join(dir, p));
  /** Inline base64 data wins over a file, as in kubectl. */
  const pem = (entry: Fields, field: string): string | undefined => {
    const data = stringField(entry, `${field}-data`);
    if (data) return Buffer.from(data, 'base64').toString();
    const file = stringField(entry, field);
    return file ? readFileSync(path(file), 'utf8') : undefined;
  };
  const tokenFile = stringField(user, 'tokenFile') ?? stringField(user, 'token-file');
  return {
    server,
    ca: pem(cluster, 'certificate-authority'),
    cert: pem(user, 'client-certificate'),
    key: pem(user, 'client-key'),
    insecureSkipVerify: cluster['insecure-skip-tls-verify'] === true,
    token: stringField(user, 'token'),
    tokenFile: tokenFile ? path(tokenFile) : undefined,
    username: stringField(user, 'username'),
    password: stringField(user, 'password'),
  };
}

function asFields(value: unknown, what: string): Fields {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${what} is not a mapping`);
  return value as Fields;
}

/** The `field` mapping of the entry called `name` in the list `list` (clusters, users, contexts). */
function named(doc: Fields, list: string, field: string, name: string): Fields {
  const entries = Array.isArray(doc[list]) ? (doc[list] as unknown[]) : [];
  const entry = entries.find((e): e is Fields => asFields(e, `an entry of ${list}`).name === name);
  if (!entry) throw new Error(`${field} "${name}" is not defined under ${list}`);
  return asFields(entry[field] ?? {}, `${list} "${name}"`);
}

function stringField(entry: Fields, field: string): string | undefined {
  const v = entry[field];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
