// What of the configuration may be shown to anyone who can read it (configs/oauth, the kubesphere-config ConfigMap):
// every key that names a secret is dropped, at every depth, in lists too. KubeSphere drops provider keys containing
// "password" or "secret"; this also covers key material and credentials under any other name.
import { ConfigSchema, type KubeSphereConfig } from './schema.ts';
import { encode } from './schema-walk.ts';

const SECRET_KEY = /password|passwd|secret|credential|privatekey|keydata|certdata|apikey/i;

/** True when a configuration key names a secret (client secrets, passwords, key material). */
export const isSecretKey = (key: string): boolean => SECRET_KEY.test(key);

/** `scheme://user:password@host...`: a URL carrying credentials (e.g. a Prometheus endpoint with basic auth). */
const URL_CREDENTIALS = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i;

/** A deep copy of `value` without the keys that name secrets, and without the credentials of any URL. */
export function withoutSecrets(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(URL_CREDENTIALS, '$1');
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!isSecretKey(k)) out[k] = withoutSecrets(v);
    return out;
  }
  return value;
}

/** The configuration in kubesphere.yaml's own form (Go durations), without secrets. */
export function publicConfigDocument(config: KubeSphereConfig): Record<string, unknown> {
  return withoutSecrets(encode(ConfigSchema, config)) as Record<string, unknown>;
}
