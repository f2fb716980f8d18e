// Loads kubesphere.yaml: parse, validate (one clear line naming the field), warn on unknown fields, apply defaults.
import { readFileSync } from 'node:fs';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { parse as parseYaml } from 'yaml';
import { defaultClient, defaultConfig } from './defaults.ts';
import { parseDuration } from './duration.ts';
import { ConfigFileSchema, UNSERVED_SECTIONS } from './schema.ts';
import type { KubeSphereConfig, OAuthClient } from './types.ts';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: KubeSphereConfig;
  /** Human-readable warnings (unknown fields, unserved sections) for the caller to log. */
  warnings: string[];
}

type Json = Record<string, unknown>;

function fieldName(instancePath: string): string {
  return (
    instancePath
      .replace(/^\//, '')
      .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
      .replaceAll('/', '.') || '(top level)'
  );
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
  if (typeof s.description === 'string') return s.description;
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
  let cur: unknown = ConfigFileSchema;
  for (const seg of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean))
    cur = (cur as Json | undefined)?.[seg];
  return cur as TSchema | undefined;
}

/** Collects paths of fields the schema does not know, so a typo is reported instead of silently dropped. */
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
    if (props[k]) unknownFields(v, props[k], p, out);
    else out.push(p);
  }
}

function duration(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v * 1000;
  return parseDuration(String(v));
}

function toClient(c: Json): OAuthClient {
  const base = defaultClient();
  return {
    name: String(c.name),
    secret: (c.secret as string | undefined) ?? '',
    redirectURIs: (c.redirectURIs as string[] | undefined) ?? base.redirectURIs,
    grantMethod: (c.grantMethod as OAuthClient['grantMethod'] | undefined) ?? 'auto',
    respondWithChallenges: (c.respondWithChallenges as boolean | undefined) ?? false,
    scopeRestrictions: (c.scopeRestrictions as string[] | undefined) ?? base.scopeRestrictions,
    accessTokenMaxAge: duration(c.accessTokenMaxAge),
    accessTokenInactivityTimeout: duration(c.accessTokenInactivityTimeout),
  };
}

/** Validates an `authentication`-shaped object (file section or ClusterConfiguration `spec.authentication`) onto a base. */
export function applyAuthentication(base: KubeSphereConfig, auth: Json | undefined): KubeSphereConfig {
  if (!auth) return base;
  const out = structuredClone(base);
  const a = out.authentication;
  const set = <K extends keyof typeof a>(k: K, v: (typeof a)[K] | undefined) => {
    if (v !== undefined) a[k] = v;
  };
  set('authenticateRateLimiterMaxTries', auth.authenticateRateLimiterMaxTries as number | undefined);
  set('authenticateRateLimiterDuration', duration(auth.authenticateRateLimiterDuration));
  set('loginHistoryRetentionPeriod', duration(auth.loginHistoryRetentionPeriod));
  set('loginHistoryMaximumEntries', auth.loginHistoryMaximumEntries as number | undefined);
  set('maximumClockSkew', duration(auth.maximumClockSkew));
  set('multipleLogin', auth.multipleLogin as boolean | undefined);
  set('jwtSecret', auth.jwtSecret as string | undefined);
  set('adminPassword', auth.adminPassword as string | undefined);
  const o = auth.oauthOptions as Json | undefined;
  if (o) {
    if (o.issuer !== undefined) a.oauthOptions.issuer = String(o.issuer);
    a.oauthOptions.accessTokenMaxAge = duration(o.accessTokenMaxAge) ?? a.oauthOptions.accessTokenMaxAge;
    a.oauthOptions.accessTokenInactivityTimeout =
      duration(o.accessTokenInactivityTimeout) ?? a.oauthOptions.accessTokenInactivityTimeout;
    if (Array.isArray(o.clients)) a.oauthOptions.clients = (o.clients as Json[]).map(toClient);
    if (Array.isArray(o.identityProviders)) {
      a.oauthOptions.identityProviders = (o.identityProviders as Json[]).map((p) => ({
        name: String(p.name),
        mappingMethod: (p.mappingMethod as string | undefined) ?? 'auto',
        type: String(p.type),
        provider: (p.provider as Json | undefined) ?? {},
      }));
    }
  }
  return out;
}

/** Validates a parsed document against the file schema; throws ConfigError naming the first bad field. */
export function validateConfigDocument(doc: unknown, source: string): string[] {
  if (doc === null || doc === undefined) return [];
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(
      `invalid configuration ${source}: expected a YAML mapping at the top level, got ${describe(doc)}`,
    );
  }
  const known: Json = {};
  const warnings: string[] = [];
  for (const [k, v] of Object.entries(doc)) {
    if (UNSERVED_SECTIONS.has(k))
      warnings.push(`configuration section "${k}" is not served by kapiserver and is ignored`);
    else known[k] = v;
  }
  const first = Value.Errors(ConfigFileSchema, known)[0];
  if (first) {
    // An error inside a union (e.g. a duration's string branch) is reported against the union as a whole.
    const unionAt = first.schemaPath.indexOf('/anyOf/');
    const schema = schemaAt(unionAt === -1 ? first.schemaPath : first.schemaPath.slice(0, unionAt));
    const got = valueAt(known, first.instancePath);
    const field = fieldName(first.instancePath);
    const expected =
      first.keyword === 'required'
        ? `required field "${(first.params as { requiredProperties?: string[] }).requiredProperties?.join(', ') ?? ''}"`
        : expectation(schema, first.message);
    throw new ConfigError(
      `invalid configuration ${source}: field ${field}: expected ${expected}, got ${describe(got)}`,
    );
  }
  const unknown: string[] = [];
  unknownFields(known, ConfigFileSchema, '', unknown);
  for (const f of unknown)
    warnings.push(`unknown configuration field "${f}" in ${source} (ignored; check the spelling)`);
  return warnings;
}

/** Builds the configuration from a parsed kubesphere.yaml document. */
export function configFromDocument(doc: unknown, source = 'document'): LoadedConfig {
  const warnings = validateConfigDocument(doc, source);
  const d = (doc ?? {}) as Json;
  let config = applyAuthentication(defaultConfig(), d.authentication as Json | undefined);
  const redis = d.redis as Json | undefined;
  if (redis) {
    config.redis = {
      host: String(redis.host),
      port: (redis.port as number | undefined) ?? 6379,
      password: (redis.password as string | undefined) ?? '',
      db: (redis.db as number | undefined) ?? 0,
    };
  }
  const authz = d.authorization as Json | undefined;
  if (authz?.mode) config.authorization.mode = authz.mode as KubeSphereConfig['authorization']['mode'];
  if (typeof authz?.impersonate === 'boolean') config.authorization.impersonate = authz.impersonate;
  const auditing = d.auditing as Json | undefined;
  if (auditing) {
    const interval = duration(auditing.eventBatchInterval);
    config = {
      ...config,
      auditing: {
        ...config.auditing,
        ...(auditing as object),
        eventBatchInterval: interval ?? config.auditing.eventBatchInterval,
      },
    };
  }
  return { config, warnings };
}

/** Reads and validates a kubesphere.yaml file. */
export function loadConfigFile(path: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read configuration file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(
      `invalid configuration in ${path}: not valid YAML: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  return configFromDocument(doc, `in ${path}`);
}
