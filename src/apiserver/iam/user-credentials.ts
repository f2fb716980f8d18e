// What a User object may show its readers: no credential of any kind. spec.password (a bcrypt hash, or a plaintext
// value the controller has not hashed yet) and spec.encryptedPassword are dropped, and so is any `password` field of
// the kubectl last-applied-configuration annotation (a `kubectl apply` of a User keeps its plaintext password there);
// any other string that holds a bcrypt hash (a printer column, a label value) is redacted.
const CREDENTIAL_FIELDS = new Set(['password', 'encryptedPassword']);
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const BCRYPT_HASH = /\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}/g;
const REDACTED = '<redacted>';

/**
 * A copy of `value` (a User, a list or Table of them, a watch event, a Status, any JSON) without credentials: fields
 * named password or encryptedPassword at any depth are left out, embedded last-applied configurations are cleaned
 * the same way (dropped when unreadable), bcrypt hashes inside strings are redacted.
 */
export function withoutCredentials(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(BCRYPT_HASH, REDACTED);
  if (Array.isArray(value)) return value.map(withoutCredentials);
  if (!value || typeof value !== 'object') return value;
  // No prototype: a "__proto__" key of untrusted JSON stays a plain field.
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(value)) {
    if (CREDENTIAL_FIELDS.has(k)) continue;
    if (k === LAST_APPLIED && typeof v === 'string') {
      const cleaned = cleanEmbeddedJson(v);
      if (cleaned !== undefined) out[k] = cleaned;
      continue;
    }
    out[k] = withoutCredentials(v);
  }
  return out;
}

function cleanEmbeddedJson(text: string): string | undefined {
  try {
    return JSON.stringify(withoutCredentials(JSON.parse(text)));
  } catch {
    return undefined;
  }
}
