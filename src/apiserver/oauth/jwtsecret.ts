// The HS256 key. Rule: `authentication.jwtSecret` when configured; otherwise one generated once and kept in the
// orchestrator as Secret `kubesphere-system/kapiserver-jwt-secret` (key `jwtSecret`). One rule for the dev cluster
// (whose state lives in the data directory, so the key survives restarts) and for real clusters (where every
// replica reads the same Secret, so tokens verify on any replica).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { isConflict, isNotFound, type KubeObject, type KubeRest } from '../cluster/index.ts';
import { createManagedSecret } from './managed-secret.ts';

export const JWT_SECRET_NAMESPACE = 'kubesphere-system';
export const JWT_SECRET_NAME = 'kapiserver-jwt-secret';
const PATH = `/api/v1/namespaces/${JWT_SECRET_NAMESPACE}/secrets`;

async function read(rest: KubeRest): Promise<string | undefined> {
  try {
    const s = await rest.get<KubeObject & { data?: Record<string, string> }>(`${PATH}/${JWT_SECRET_NAME}`);
    const v = s.data?.jwtSecret ? Buffer.from(s.data.jwtSecret, 'base64').toString('utf8') : '';
    return v || undefined;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function resolveJwtSecret(configured: string, rest: KubeRest, logger: Logger): Promise<string> {
  if (configured) return configured;
  const existing = await read(rest);
  if (existing) return existing;
  const generated = randomBytes(32).toString('base64url');
  try {
    await createManagedSecret(rest, JWT_SECRET_NAMESPACE, JWT_SECRET_NAME, {
      jwtSecret: Buffer.from(generated).toString('base64'),
    });
    logger.info({ secret: `${JWT_SECRET_NAMESPACE}/${JWT_SECRET_NAME}` }, 'generated the JWT signing key');
    return generated;
  } catch (err) {
    if (!isConflict(err)) throw err;
    // Another replica generated it first: use theirs.
    const theirs = await read(rest);
    if (!theirs) throw new Error('JWT signing key Secret exists but is empty');
    return theirs;
  }
}
