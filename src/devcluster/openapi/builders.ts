// Small builders for OpenAPI v3 schema objects in the shape the Kubernetes API server publishes: property references
// wrapped in `allOf` (so they can carry a description), list items as plain `$ref`, strategic-merge keys as
// `x-kubernetes-patch-*` extensions on the list property.

export type Schema = Record<string, unknown>;

export const REF_PREFIX = '#/components/schemas/';

export const CORE = (n: string) => `io.k8s.api.core.v1.${n}`;
export const APPS = (n: string) => `io.k8s.api.apps.v1.${n}`;
export const BATCH = (n: string) => `io.k8s.api.batch.v1.${n}`;
export const RBAC = (n: string) => `io.k8s.api.rbac.v1.${n}`;
export const COORD = (n: string) => `io.k8s.api.coordination.v1.${n}`;
export const AUTOSCALING = (n: string) => `io.k8s.api.autoscaling.v1.${n}`;
export const META = (n: string) => `io.k8s.apimachinery.pkg.apis.meta.v1.${n}`;
export const APIEXT = (n: string) => `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.${n}`;
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

export const str = (description: string, extra: Schema = {}): Schema => ({
  type: 'string',
  description,
  ...extra,
});
export const int32 = (description: string): Schema => ({ type: 'integer', format: 'int32', description });
export const int64 = (description: string): Schema => ({ type: 'integer', format: 'int64', description });
export const bool = (description: string): Schema => ({ type: 'boolean', description });
export const strings = (description: string, extra: Schema = {}): Schema => ({
  type: 'array',
  items: { type: 'string', default: '' },
  description,
  ...extra,
});
export const stringMap = (description: string): Schema => ({
  type: 'object',
  additionalProperties: { type: 'string', default: '' },
  description,
});

/** A reference to a named schema; with a description it is wrapped in allOf as upstream does. */
export const ref = (name: string, description?: string): Schema =>
  description ? { description, allOf: [{ $ref: `${REF_PREFIX}${name}` }] } : { $ref: `${REF_PREFIX}${name}` };

export const refMap = (name: string, description: string): Schema => ({
  type: 'object',
  additionalProperties: ref(name),
  description,
});

export const list = (itemName: string, description: string, extra: Schema = {}): Schema => ({
  type: 'array',
  items: ref(itemName),
  description,
  ...extra,
});

/** Strategic-merge list keyed by `key` (containers by name, ports by containerPort, ...). */
export const mergeBy = (key: string, strategy = 'merge'): Schema => ({
  'x-kubernetes-patch-merge-key': key,
  'x-kubernetes-patch-strategy': strategy,
});
export const listMap = (...keys: string[]): Schema => ({
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': keys,
});
export const atomic: Schema = { 'x-kubernetes-list-type': 'atomic' };

export const object = (
  description: string,
  properties: Record<string, Schema>,
  required?: string[],
): Schema => ({
  description,
  type: 'object',
  properties,
  ...(required ? { required } : {}),
});

const API_VERSION_DOC =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DOC =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const OBJECT_META_DOC =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_META_DOC =
  'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** A top-level kind: apiVersion, kind, metadata plus its own properties, tagged with its group-version-kind. */
export function kind(
  gvk: Gvk,
  description: string,
  properties: Record<string, Schema>,
  required?: string[],
): Schema {
  return {
    ...object(
      description,
      {
        apiVersion: str(API_VERSION_DOC),
        kind: str(KIND_DOC),
        metadata: ref(META('ObjectMeta'), OBJECT_META_DOC),
        ...properties,
      },
      required,
    ),
    'x-kubernetes-group-version-kind': [gvk],
  };
}

/** The `<Kind>List` schema for a kind schema name. */
export function listKind(gvk: Gvk, itemSchema: string): Schema {
  return {
    ...object(
      `${gvk.kind}List is a list of ${gvk.kind} objects.`,
      {
        apiVersion: str(API_VERSION_DOC),
        items: list(itemSchema, `List of ${gvk.kind} objects.`),
        kind: str(KIND_DOC),
        metadata: ref(META('ListMeta'), LIST_META_DOC),
      },
      ['items'],
    ),
    'x-kubernetes-group-version-kind': [{ ...gvk, kind: `${gvk.kind}List` }],
  };
}

export const commonDocs = { API_VERSION_DOC, KIND_DOC, OBJECT_META_DOC, LIST_META_DOC };
