// Builds the configuration: defaults < kubesphere.yaml < later layers (the live ClusterConfiguration, flags and
// environment), each layer a partial document merged over the one below and decoded through the one schema.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigSchema, type KubeSphereConfig } from './schema.ts';
import { decode, encode, isMapping, type Json, withDefaults } from './schema-walk.ts';
import { ConfigError, checkDocument, fieldName, firstError } from './validate.ts';

export interface LoadedConfig {
  config: KubeSphereConfig;
  /** Human-readable warnings (unknown fields, unserved sections) for the caller to log. */
  warnings: string[];
}

/** Builds the configuration from a parsed kubesphere.yaml document. */
export function configFromDocument(doc: unknown, source = 'document'): LoadedConfig {
  const { document, warnings } = checkDocument(doc, source);
  return { config: decode<KubeSphereConfig>(ConfigSchema, document), warnings };
}

/** The KubeSphere Helm chart's defaults, which is what a v3 install runs with. */
export function defaultConfig(): KubeSphereConfig {
  return configFromDocument(undefined).config;
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

/** `over` merged into `under`: mappings field by field, anything else (lists included) replaced when present. */
function merge(under: unknown, over: unknown): unknown {
  if (over === undefined) return under;
  if (!isMapping(under) || !isMapping(over)) return over;
  const out: Json = { ...under };
  for (const [k, v] of Object.entries(over)) out[k] = merge(under[k], v);
  return out;
}

/**
 * `base` with a partial kubesphere.yaml document laid over it (a later layer: the live ClusterConfiguration, flags,
 * environment). Throws ConfigError `field <fieldPrefix><path>: <problem>` for the first bad field.
 */
export function overlay(base: KubeSphereConfig, over: Json, fieldPrefix = ''): KubeSphereConfig {
  const document = withDefaults(ConfigSchema, merge(encode(ConfigSchema, base), over)) as Json;
  const first = firstError(document);
  if (first) throw new ConfigError(`field ${fieldPrefix}${fieldName(first.instancePath)}: ${first.message}`);
  return decode<KubeSphereConfig>(ConfigSchema, document);
}
