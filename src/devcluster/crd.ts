// CustomResourceDefinitions: validation of the CRD itself, the resource types it serves, and structural-schema
// handling of custom resources (defaults, pruning of unknown fields, type/required/enum validation).
import type { StatusCause } from '../k8s/status.ts';
import { ALL_VERBS, type ResourceDef } from './resources.ts';
import type { Obj } from './store.ts';

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateCrd(crd: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const req = (field: string) =>
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field });
  const spec = isObj(crd.spec) ? crd.spec : undefined;
  if (!spec) {
    req('spec');
    return causes;
  }
  const names = isObj(spec.names) ? spec.names : {};
  if (typeof spec.group !== 'string' || !spec.group.includes('.'))
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: should be a domain with at least one dot',
      field: 'spec.group',
    });
  if (typeof names.plural !== 'string' || names.plural === '') req('spec.names.plural');
  if (typeof names.kind !== 'string' || names.kind === '') req('spec.names.kind');
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    causes.push({
      reason: 'FieldValueNotSupported',
      message: 'Unsupported value: supported values: "Cluster", "Namespaced"',
      field: 'spec.scope',
    });
  const name = (crd.metadata as Obj | undefined)?.name;
  if (
    typeof names.plural === 'string' &&
    typeof spec.group === 'string' &&
    name !== `${names.plural}.${spec.group}`
  )
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${String(name)}": must be spec.names.plural+"."+spec.group`,
      field: 'metadata.name',
    });
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : [];
  if (versions.length === 0) req('spec.versions');
  else if (versions.filter((v) => v.storage === true).length !== 1)
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: must have exactly one version marked as storage version',
      field: 'spec.versions',
    });
  versions.forEach((v, i) => {
    if (typeof v.name !== 'string' || !/^v\d+((alpha|beta)\d+)?$/.test(v.name))
      causes.push({
        reason: 'FieldValueInvalid',
        message: 'Invalid value: must be a valid version',
        field: `spec.versions[${i}].name`,
      });
    const schema = isObj(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isObj(schema)) req(`spec.versions[${i}].schema.openAPIV3Schema`);
    else if (schema.type !== 'object')
      causes.push({
        reason: 'FieldValueInvalid',
        message: 'Invalid value: must be object at the root',
        field: `spec.versions[${i}].schema.openAPIV3Schema.type`,
      });
    else causes.push(...metadataSchemaCauses(schema, `spec.versions[${i}].schema.openAPIV3Schema`));
  });
  return causes;
}

/** Fills in the CRD's defaulted fields and its status (names accepted, established). */
export function prepareCrd(crd: Obj, now: string): void {
  const spec = crd.spec as Obj;
  const names = spec.names as Obj;
  names.singular ??= String(names.kind).toLowerCase();
  names.listKind ??= `${names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  const cond = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  crd.status = {
    acceptedNames: { ...names },
    storedVersions: (spec.versions as Obj[]).filter((v) => v.storage === true).map((v) => v.name),
    conditions: [
      cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
  };
}

/** The resource types a CRD serves (one per served version). */
export function crdResourceDefs(crd: Obj): ResourceDef[] {
  const spec = crd.spec as Obj;
  const names = spec.names as Obj;
  const crdName = String((crd.metadata as Obj).name);
  return (spec.versions as Obj[])
    .filter((v) => v.served !== false)
    .map((v) => {
      const subs = isObj(v.subresources) ? v.subresources : {};
      const scale = isObj(subs.scale) ? subs.scale : undefined;
      const d: ResourceDef = {
        group: String(spec.group),
        version: String(v.name),
        resource: String(names.plural),
        kind: String(names.kind),
        singular: String(names.singular ?? String(names.kind).toLowerCase()),
        namespaced: spec.scope === 'Namespaced',
        verbs: ALL_VERBS,
        subresources: [...(isObj(subs.status) ? ['status'] : []), ...(scale ? ['scale'] : [])],
        generation: true,
        crd: {
          crdName,
          schema: isObj(v.schema) && isObj(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined,
          printerColumns: Array.isArray(v.additionalPrinterColumns)
            ? v.additionalPrinterColumns.filter(isObj)
            : [],
          scale: scale
            ? {
                specReplicasPath: String(scale.specReplicasPath ?? '.spec.replicas'),
                statusReplicasPath: String(scale.statusReplicasPath ?? '.status.replicas'),
                labelSelectorPath: scale.labelSelectorPath ? String(scale.labelSelectorPath) : undefined,
              }
            : undefined,
        },
      };
      if (Array.isArray(names.shortNames)) d.shortNames = names.shortNames.map(String);
      if (Array.isArray(names.categories)) d.categories = names.categories.map(String);
      return d;
    });
}

// --- structural schema handling for custom resources ---

/** Applies `default`s (recursively, for present parents) and prunes unknown fields; mutates and returns `v`. */
export function defaultAndPrune(
  schema: Obj | undefined,
  v: unknown,
  root = true,
  path = '',
  pruned: string[] = [],
): unknown {
  if (!schema || v === null || v === undefined) return v;
  if (
    isObj(v) &&
    (schema.type === 'object' || isObj(schema.properties) || isObj(schema.additionalProperties))
  ) {
    const props = isObj(schema.properties) ? schema.properties : {};
    for (const [k, ps] of Object.entries(props)) {
      // A root `metadata` schema only constrains name/generateName: ObjectMeta is always kept whole.
      if (!isObj(ps) || (root && k === 'metadata')) continue;
      if (v[k] === undefined && ps.default !== undefined) v[k] = structuredClone(ps.default);
      if (v[k] !== undefined) v[k] = defaultAndPrune(ps, v[k], false, join(path, k), pruned);
    }
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
    const addl = schema.additionalProperties;
    for (const k of Object.keys(v)) {
      if (k in props) continue;
      if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      if (isObj(addl)) v[k] = defaultAndPrune(addl, v[k], false, join(path, k), pruned);
      else if (addl !== true && !preserve) {
        pruned.push(join(path, k));
        delete v[k];
      }
    }
  } else if (Array.isArray(v) && isObj(schema.items)) {
    return v.map((x, i) => defaultAndPrune(schema.items as Obj, x, false, `${path}[${i}]`, pruned));
  }
  return v;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function typeOk(type: unknown, v: unknown, schema: Obj): boolean {
  if (v === null) return schema.nullable === true;
  switch (type) {
    case 'object':
      return isObj(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return (
        typeof v === 'string' || (schema['x-kubernetes-int-or-string'] === true && typeof v === 'number')
      );
    case 'integer':
      return Number.isInteger(v) || (schema['x-kubernetes-int-or-string'] === true && typeof v === 'string');
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

const typeName = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number' && Number.isInteger(v)
        ? 'integer'
        : typeof v;

/** Validates a custom resource against its schema: types, required, enum, min/max, lengths, patterns. */
export function validateAgainstSchema(
  schema: Obj | undefined,
  v: unknown,
  path = '',
  causes: StatusCause[] = [],
): StatusCause[] {
  if (!schema) return causes;
  const field = path || '<root>';
  if (schema.type !== undefined && v !== undefined && !typeOk(schema.type, v, schema)) {
    causes.push({
      reason: 'FieldValueTypeInvalid',
      message: `Invalid value: "${typeName(v)}": ${field} in body must be of type ${String(schema.type)}: "${typeName(v)}"`,
      field,
    });
    return causes;
  }
  if (
    Array.isArray(schema.enum) &&
    v !== undefined &&
    !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))
  )
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(v)}: supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`,
      field,
    });
  if (typeof v === 'number') {
    if (typeof schema.minimum === 'number' && v < schema.minimum)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${v}: ${field} in body should be greater than or equal to ${schema.minimum}`,
        field,
      });
    if (typeof schema.maximum === 'number' && v > schema.maximum)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${v}: ${field} in body should be less than or equal to ${schema.maximum}`,
        field,
      });
  }
  if (typeof v === 'string') {
    if (typeof schema.maxLength === 'number' && v.length > schema.maxLength)
      causes.push({
        reason: 'FieldValueTooLong',
        message: `Too long: may not be more than ${schema.maxLength} bytes`,
        field,
      });
    if (typeof schema.minLength === 'number' && v.length < schema.minLength)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${v}": ${field} in body should be at least ${schema.minLength} chars long`,
        field,
      });
    if (typeof schema.pattern === 'string') {
      let re: RegExp | undefined;
      try {
        re = new RegExp(schema.pattern, 'u');
      } catch {
        re = undefined;
      }
      if (re && !re.test(v))
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${v}": ${field} in body should match '${schema.pattern}'`,
          field,
        });
    }
  }
  if (isObj(v)) {
    const props = isObj(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required))
      for (const r of schema.required)
        if (v[String(r)] === undefined)
          causes.push({
            reason: 'FieldValueRequired',
            message: 'Required value',
            field: path ? `${path}.${String(r)}` : String(r),
          });
    for (const [k, x] of Object.entries(v)) {
      const ps = isObj(props[k])
        ? (props[k] as Obj)
        : isObj(schema.additionalProperties)
          ? schema.additionalProperties
          : undefined;
      if (!path && k === 'metadata') {
        validateMetadataNames(props.metadata, x, causes);
        continue;
      }
      if (!path && (k === 'apiVersion' || k === 'kind')) continue;
      if (ps) validateAgainstSchema(ps, x, path ? `${path}.${k}` : k, causes);
    }
  }
  if (Array.isArray(v) && isObj(schema.items)) {
    v.forEach((x, i) => {
      validateAgainstSchema(schema.items as Obj, x, `${field}[${i}]`, causes);
    });
    if (typeof schema.maxItems === 'number' && v.length > schema.maxItems)
      causes.push({
        reason: 'FieldValueTooMany',
        message: `Too many: ${v.length}: must have at most ${schema.maxItems} items`,
        field,
      });
  }
  return causes;
}

/** The only parts of a root `metadata` schema kube-apiserver honours: constraints on name and generateName. */
function validateMetadataNames(schema: unknown, meta: unknown, causes: StatusCause[]): void {
  if (!isObj(schema) || !isObj(schema.properties) || !isObj(meta)) return;
  for (const k of ['name', 'generateName']) {
    const ps = schema.properties[k];
    if (isObj(ps) && meta[k] !== undefined) validateAgainstSchema(ps, meta[k], `metadata.${k}`, causes);
  }
}

/** A root `metadata` schema may say it is an object and constrain name and generateName, nothing else. */
function metadataSchemaCauses(schema: Obj, field: string): StatusCause[] {
  const meta = isObj(schema.properties) ? schema.properties.metadata : undefined;
  if (meta === undefined) return [];
  const allowed = (o: Obj, keys: string[]) => Object.keys(o).every((k) => keys.includes(k));
  const props = isObj(meta) && isObj(meta.properties) ? meta.properties : {};
  if (isObj(meta) && allowed(meta, ['type', 'properties']) && allowed(props, ['name', 'generateName']))
    return [];
  return [
    {
      reason: 'FieldValueForbidden',
      message:
        'Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
      field: `${field}.properties[metadata]`,
    },
  ];
}

/** Reads a simple JSONPath-like field path (`.spec.replicas`) from an object. */
export function readPath(o: Obj, path: string): unknown {
  let cur: unknown = o;
  for (const p of path.replace(/^\./, '').split('.')) cur = isObj(cur) ? cur[p] : undefined;
  return cur;
}

export function writePath(o: Obj, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur = o;
  for (const p of parts.slice(0, -1)) {
    if (!isObj(cur[p])) cur[p] = {};
    cur = cur[p] as Obj;
  }
  cur[parts[parts.length - 1]] = value;
}
