// Small object-metadata helpers shared by the dev cluster's write paths.
import { randomBytes, randomUUID } from 'node:crypto';
import type { StatusCause } from '../k8s/status.ts';
import type { Obj } from './store.ts';

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 3339 with whole seconds, as Kubernetes serialises metav1.Time. */
export const nowSeconds = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export const newUid = (): string => randomUUID();

// Kubernetes' generateName alphabet (no vowels, no confusable characters).
export const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export function randomSuffix(n = 5): string {
  const bytes = randomBytes(n);
  let s = '';
  for (const b of bytes) s += ALPHABET[b % ALPHABET.length];
  return s;
}

export function metaOf(o: Obj): Obj {
  if (!isObj(o.metadata)) o.metadata = {};
  return o.metadata as Obj;
}

const QUALIFIED =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const invalidValue = (field: string, message: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${message}`,
  field,
});

/** Causes for a string map of ObjectMeta: not a map, or what `entryProblems` finds in each entry. */
function mapCauses(
  value: unknown,
  field: string,
  entryProblems: (key: string, value: unknown) => (string | false)[],
): StatusCause[] {
  if (value === undefined || value === null) return [];
  if (!isObj(value)) return [invalidValue(field, 'must be a map')];
  return Object.entries(value).flatMap(([k, v]) =>
    entryProblems(k, v)
      .filter((problem) => problem !== false)
      .map((problem) => invalidValue(field, problem)),
  );
}

/** Validates labels/annotations/finalizers of ObjectMeta (422 causes). */
export function validateMeta(meta: Obj): StatusCause[] {
  const causes = [
    ...mapCauses(meta.labels, 'metadata.labels', (k, v) => [
      !QUALIFIED.test(k) &&
        `"${k}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) &&
        `"${String(v)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    ]),
    ...mapCauses(meta.annotations, 'metadata.annotations', (k, v) => [
      !QUALIFIED.test(k.toLowerCase()) && `"${k}": invalid annotation key`,
      typeof v !== 'string' && 'must be a string',
    ]),
  ];
  if (
    meta.finalizers !== undefined &&
    meta.finalizers !== null &&
    !(Array.isArray(meta.finalizers) && meta.finalizers.every((f) => typeof f === 'string'))
  )
    causes.push(invalidValue('metadata.finalizers', 'must be a list of strings'));
  return causes;
}

/** Stable deep equality for JSON values (key order insensitive). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Obj;
  const bo = b as Obj;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => jsonEqual(ao[k], bo[k]));
}
