// The RS256 key that signs ID tokens, and the public keys /oauth/keys serves. Access and refresh tokens are not
// signed with it (they stay HS256 with jwtSecret, ./jwt.ts, which KubeSphere's components verify).
// Rule, like the HS256 key's (./jwtsecret.ts): `oauthOptions.signKey` (a PEM file) or `signKeyData` (base64 of the
// PEM) when configured, as KubeSphere reads them; otherwise a 2048-bit key generated once and kept in the Secret
// `kubesphere-system/kapiserver-oidc-keys` (key `keys.json`), which every replica reads, so ID tokens verify against
// any replica's /oauth/keys and survive restarts (KubeSphere generates one per start and replica).
// Rotation, read at start: a configured key that differs from the one recorded, or an annotation
// `kapiserver.kubesphere.io/rotate` whose value differs from the one recorded (any new value), makes a new key
// current. The old public key stays in the Secret and in /oauth/keys until the ID tokens it signed have expired.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Logger } from 'pino';
import { isConflict, isNotFound, type KubeObject, type KubeRest } from '../cluster/index.ts';
import { createManagedSecret } from './managed-secret.ts';

export const SIGNING_KEYS_NAMESPACE = 'kubesphere-system';
export const SIGNING_KEYS_SECRET = 'kapiserver-oidc-keys';
export const ROTATE_ANNOTATION = 'kapiserver.kubesphere.io/rotate';
const PATH = `/api/v1/namespaces/${SIGNING_KEYS_NAMESPACE}/secrets`;

export interface PublicKey {
  kid: string;
  /** RSA modulus and exponent (base64url), as in a JWK. */
  n: string;
  e: string;
}

/** What the Secret's `keys.json` holds. The private key only when kapiserver generated it. */
interface StoredKeys {
  current: PublicKey & { privateKeyPem?: string };
  /** Former keys, served until `until` (epoch ms). */
  retired: (PublicKey & { until: number })[];
  /** The rotate annotation's value when the current key was made. */
  rotation?: string;
}

export interface SigningKeys {
  kid: string;
  privateKey: KeyObject;
  /** The JWKS /oauth/keys serves: the current key first, then former keys still within their tokens' lifetime. */
  jwks(now?: number): { keys: Record<string, string>[] };
}

type SecretObject = KubeObject & { data?: Record<string, string> };

async function publicKeyOf(privateKey: KeyObject): Promise<PublicKey> {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  if (jwk.kty !== 'RSA' || !jwk.n || !jwk.e) throw new Error('the ID-token signing key must be an RSA key');
  // RFC 7638 thumbprint: the same key always has the same kid, on every replica.
  return { kid: await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n, e: jwk.e }), n: jwk.n, e: jwk.e };
}

/** The configured key's PEM (signKey file, else signKeyData), or undefined. */
export function configuredKeyPem(opts: { signKey?: string; signKeyData?: string }): string | undefined {
  if (opts.signKey) return readFileSync(opts.signKey, 'utf8');
  if (opts.signKeyData) return Buffer.from(opts.signKeyData, 'base64').toString('utf8');
  return undefined;
}

function parseStored(secret: SecretObject | undefined): StoredKeys | undefined {
  const raw = secret?.data?.['keys.json'];
  if (!raw) return undefined;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as StoredKeys;
    return v?.current?.kid ? { ...v, retired: Array.isArray(v.retired) ? v.retired : [] } : undefined;
  } catch {
    return undefined;
  }
}

async function readSecret(rest: KubeRest): Promise<SecretObject | undefined> {
  try {
    return await rest.get<SecretObject>(`${PATH}/${SIGNING_KEYS_SECRET}`);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function toJwk(k: PublicKey): Record<string, string> {
  return { kty: 'RSA', use: 'sig', alg: 'RS256', kid: k.kid, n: k.n, e: k.e };
}

/**
 * Resolves the signing key and writes the key set when it changed. `retainMs`: how long a replaced key's public half
 * is still served (the longest ID-token lifetime plus the clock skew).
 */
export async function resolveSigningKeys(
  configuredPem: string | undefined,
  rest: KubeRest,
  logger: Logger,
  retainMs: number,
  now: () => number = Date.now,
): Promise<SigningKeys> {
  for (let attempt = 0; ; attempt++) {
    const secret = await readSecret(rest);
    const stored = parseStored(secret);
    const rotation = secret?.metadata?.annotations?.[ROTATE_ANNOTATION];
    let privateKey: KeyObject;
    if (configuredPem) privateKey = createPrivateKey(configuredPem);
    else if (stored?.current.privateKeyPem && stored.rotation === rotation) {
      privateKey = createPrivateKey(stored.current.privateKeyPem);
    } else {
      privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    }
    const current = await publicKeyOf(privateKey);
    const t = now();
    const retired = (stored?.retired ?? []).filter((k) => k.until > t && k.kid !== current.kid);
    if (stored && stored.current.kid !== current.kid) {
      const { kid, n, e } = stored.current;
      retired.unshift({ kid, n, e, until: t + retainMs });
    }
    const next: StoredKeys = {
      current: configuredPem
        ? current
        : { ...current, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string },
      retired,
      ...(rotation !== undefined ? { rotation } : {}),
    };
    const changed = !stored || stored.current.kid !== current.kid || retired.length !== stored.retired.length;
    try {
      if (changed) await writeKeys(rest, secret, next);
    } catch (err) {
      // Another replica wrote first: start over from what it wrote (its key wins).
      if (isConflict(err) && attempt < 3) continue;
      throw err;
    }
    if (changed && stored?.current.kid !== current.kid) {
      logger.info(
        { kid: current.kid, secret: `${SIGNING_KEYS_NAMESPACE}/${SIGNING_KEYS_SECRET}` },
        stored ? 'rotated the ID-token signing key' : 'ID-token signing key in place',
      );
    }
    return {
      kid: current.kid,
      privateKey,
      jwks: (at = now()) => ({
        keys: [toJwk(current), ...retired.filter((k) => k.until > at).map(toJwk)],
      }),
    };
  }
}

async function writeKeys(rest: KubeRest, secret: SecretObject | undefined, keys: StoredKeys): Promise<void> {
  const data = { 'keys.json': Buffer.from(JSON.stringify(keys)).toString('base64') };
  if (secret) {
    // Guarded by the resourceVersion read: a concurrent writer makes this a 409.
    await rest.replace(`${PATH}/${SIGNING_KEYS_SECRET}`, { ...secret, data });
    return;
  }
  await createManagedSecret(rest, SIGNING_KEYS_NAMESPACE, SIGNING_KEYS_SECRET, data);
}
