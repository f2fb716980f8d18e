// pod-template-hash: a short, stable name for a pod template (FNV-1a 32 over the template with sorted keys, plus the
// collision count), written with the same alphabet Kubernetes uses so names look like `web-5d4b8f9c7`.
import { ALPHABET } from '../meta.ts';

export const TEMPLATE_HASH_LABEL = 'pod-template-hash';

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Encodes each character through the generateName alphabet, as Kubernetes' rand.SafeEncodeString. */
export function safeEncode(s: string): string {
  let out = '';
  for (const c of s) out += ALPHABET[c.charCodeAt(0) % ALPHABET.length];
  return out;
}

export function podTemplateHash(template: unknown, collisionCount = 0): string {
  return safeEncode(String(fnv32a(`${stableJson(template)}#${collisionCount}`)));
}
