// Checks a kubesphere.yaml document against the schema: one clear line naming the first bad field and what it
// expects, and a warning for every field the schema does not know (a typo is reported, not silently dropped).
import type { TSchema } from 'typebox';
import { ConfigSchema, UNSERVED_SECTIONS } from './schema.ts';
import { firstSchemaError, type Json, withDefaults } from './schema-walk.ts';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface CheckedDocument {
  /** The served sections, defaults filled in. */
  document: Json;
  /** Human-readable warnings (unknown fields, unserved sections) for the caller to log. */
  warnings: string[];
}

/** `/a/clients/1/name` -> `a.clients[1].name` */
export function fieldName(instancePath: string): string {
  return instancePath
    .replace(/^\//, '')
    .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
    .replaceAll('/', '.');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function valueAt(doc: unknown, instancePath: string): unknown {
  let cur: unknown = doc;
  for (const seg of instancePath.split('/').filter(Boolean)) cur = (cur as Json | undefined)?.[seg];
  return cur;
}

function expectation(schema: TSchema | undefined, fallback: string): string {
  if (!schema) return fallback;
  const s = schema as Json;
  if (typeof s.expected === 'string') return s.expected;
  if (Array.isArray(s.anyOf)) {
    const lits = (s.anyOf as Json[]).map((x) => x.const).filter((x) => x !== undefined);
    if (lits.length) return `one of ${lits.map((l) => JSON.stringify(l)).join(', ')}`;
  }
  if (s.type === 'integer') return `an integer${s.minimum !== undefined ? ` >= ${s.minimum}` : ''}`;
  if (s.type === 'array') return 'a list';
  if (s.type === 'object') return 'an object';
  if (s.type === 'string' && s.minLength) return 'a non-empty string';
  if (typeof s.type === 'string') return `a ${s.type}`;
  return fallback;
}

function schemaAt(schemaPath: string): TSchema | undefined {
  let cur: unknown = ConfigSchema;
  for (const seg of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean))
    cur = (cur as Json | undefined)?.[seg];
  return cur as TSchema | undefined;
}

function unknownFields(value: unknown, schema: TSchema, path: string, out: string[]): void {
  const s = schema as Json;
  if (Array.isArray(s.anyOf)) return;
  if (s.type === 'array' && Array.isArray(value)) {
    for (const [i, v] of value.entries()) unknownFields(v, s.items as TSchema, `${path}[${i}]`, out);
    return;
  }
  if (s.type !== 'object' || !s.properties || typeof value !== 'object' || value === null) return;
  const props = s.properties as Record<string, TSchema>;
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}.${k}` : k;
    // An unserved section's other keys are KubeSphere's, not typos.
    if (!path && UNSERVED_SECTIONS.has(k)) continue;
    if (props[k]) unknownFields(v, props[k], p, out);
    else out.push(p);
  }
}

/** The first schema error of a document with defaults filled in, if any. */
export function firstError(document: Json) {
  return firstSchemaError(ConfigSchema, document);
}

/** Validates a parsed document; throws ConfigError naming the first bad field. */
export function checkDocument(doc: unknown, source: string): CheckedDocument {
  const input = doc ?? {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new ConfigError(
      `invalid configuration ${source}: expected a YAML mapping at the top level, got ${describe(input)}`,
    );
  }
  const served: Json = {};
  const warnings: string[] = [];
  const named: Json = ConfigSchema.properties;
  for (const [k, v] of Object.entries(input)) {
    if (UNSERVED_SECTIONS.has(k)) {
      warnings.push(
        named[k]
          ? `configuration section "${k}" is not served by kapiserver; only whether it is configured is read (configs/configz)`
          : `configuration section "${k}" is not served by kapiserver and is ignored`,
      );
    }
    if (!UNSERVED_SECTIONS.has(k) || named[k]) served[k] = v;
  }
  // Defaults first, so only what the file says (or lacks without a default) can be wrong.
  const document = withDefaults(ConfigSchema, structuredClone(served)) as Json;
  const first = firstError(document);
  if (first) {
    // An error inside a union (e.g. a duration's string branch) is reported against the union as a whole.
    const unionAt = first.schemaPath.indexOf('/anyOf/');
    const schema = schemaAt(unionAt === -1 ? first.schemaPath : first.schemaPath.slice(0, unionAt));
    const expected =
      first.keyword === 'required'
        ? `required field "${(first.params as { requiredProperties?: string[] }).requiredProperties?.join(', ') ?? ''}"`
        : expectation(schema, first.message);
    throw new ConfigError(
      `invalid configuration ${source}: field ${fieldName(first.instancePath) || '(top level)'}: expected ${expected}, got ${describe(valueAt(served, first.instancePath))}`,
    );
  }
  const unknown: string[] = [];
  unknownFields(served, ConfigSchema, '', unknown);
  for (const f of unknown)
    warnings.push(`unknown configuration field "${f}" in ${source} (ignored; check the spelling)`);
  return { document, warnings };
}
