// api/openapi-spec/swagger.json: Swagger 2.0 for the custom-resource objects kapiserver installs (C's
// src/apiserver/crds/), in the Kubernetes API style: definitions named io.kubesphere.<group>.<version>.<Kind> from
// each CRD's openAPIV3Schema, and the native REST paths of each resource.
import { type CrdDefinition, KUBESPHERE_CRDS } from '../crds/definitions.ts';

type Json = Record<string, unknown>;

/** `iam.kubesphere.io` -> `io.kubesphere.iam` (reverse-DNS, as Kubernetes names its definitions). */
export function definitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** OpenAPI v3 schema -> Swagger 2.0 schema (drops `nullable`, which 2.0 lacks; vendor extensions stay). */
function toSwagger2(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toSwagger2);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'nullable') continue;
    out[k] = toSwagger2(v);
  }
  return out;
}

const objectMeta = { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' };
const status = { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status' };

const COMMON_DEFINITIONS: Json = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      namespace: { type: 'string' },
      uid: { type: 'string' },
      resourceVersion: { type: 'string' },
      generation: { type: 'integer', format: 'int64' },
      creationTimestamp: { type: 'string', format: 'date-time' },
      deletionTimestamp: { type: 'string', format: 'date-time' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      annotations: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' } },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta': {
    type: 'object',
    properties: {
      resourceVersion: { type: 'string' },
      continue: { type: 'string' },
      remainingItemCount: { type: 'integer', format: 'int64' },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status': {
    type: 'object',
    properties: {
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      status: { type: 'string' },
      message: { type: 'string' },
      reason: { type: 'string' },
      details: { type: 'object' },
      code: { type: 'integer', format: 'int32' },
    },
  },
};

function kindDefinitions(crd: CrdDefinition): Json {
  const { group, names } = crd.spec;
  const out: Json = {};
  for (const v of crd.spec.versions) {
    const schema = toSwagger2(v.schema.openAPIV3Schema) as Json;
    const properties = { ...((schema.properties as Json) ?? {}), metadata: objectMeta };
    const gvk = [{ group, version: v.name, kind: names.kind }];
    out[definitionName(group, v.name, names.kind)] = {
      ...schema,
      properties,
      'x-kubernetes-group-version-kind': gvk,
    };
    out[definitionName(group, v.name, names.listKind)] = {
      type: 'object',
      description: `${names.listKind} is a list of ${names.kind}`,
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' },
        items: {
          type: 'array',
          items: { $ref: `#/definitions/${definitionName(group, v.name, names.kind)}` },
        },
      },
      'x-kubernetes-group-version-kind': [{ group, version: v.name, kind: names.listKind }],
    };
  }
  return out;
}

const param = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  type: 'string',
  description,
});

function kindPaths(crd: CrdDefinition): Json {
  const { group, names, scope } = crd.spec;
  const out: Json = {};
  for (const v of crd.spec.versions) {
    const base = `/apis/${group}/${v.name}${scope === 'Namespaced' ? '/namespaces/{namespace}' : ''}/${names.plural}`;
    const ref = { $ref: `#/definitions/${definitionName(group, v.name, names.kind)}` };
    const listRef = { $ref: `#/definitions/${definitionName(group, v.name, names.listKind)}` };
    const scopeParams = scope === 'Namespaced' ? [param('namespace', 'object name and auth scope')] : [];
    const tags = [`${group}_${v.name}`];
    const gvk = { group, version: v.name, kind: names.kind };
    const errors = { '401': { description: 'Unauthorized', schema: status } };
    const op = (verb: string, summary: string, extra: Json, ok: Json) => ({
      tags,
      operationId: `${verb}${names.kind}`,
      summary,
      consumes: ['application/json'],
      produces: ['application/json'],
      'x-kubernetes-group-version-kind': gvk,
      ...extra,
      responses: { ...ok, ...errors },
    });
    out[base] = {
      parameters: scopeParams,
      get: op(
        'list',
        `list or watch objects of kind ${names.kind}`,
        {
          parameters: [
            { name: 'labelSelector', in: 'query', type: 'string' },
            { name: 'fieldSelector', in: 'query', type: 'string' },
            { name: 'limit', in: 'query', type: 'integer' },
            { name: 'continue', in: 'query', type: 'string' },
            { name: 'watch', in: 'query', type: 'boolean' },
          ],
        },
        { '200': { description: 'OK', schema: listRef } },
      ),
      post: op(
        'create',
        `create a ${names.kind}`,
        { parameters: [{ name: 'body', in: 'body', required: true, schema: ref }] },
        { '201': { description: 'Created', schema: ref }, '200': { description: 'OK', schema: ref } },
      ),
    };
    out[`${base}/{name}`] = {
      parameters: [...scopeParams, param('name', `name of the ${names.kind}`)],
      get: op('read', `read the specified ${names.kind}`, {}, { '200': { description: 'OK', schema: ref } }),
      put: op(
        'replace',
        `replace the specified ${names.kind}`,
        { parameters: [{ name: 'body', in: 'body', required: true, schema: ref }] },
        { '200': { description: 'OK', schema: ref } },
      ),
      patch: {
        ...op(
          'patch',
          `partially update the specified ${names.kind}`,
          { parameters: [{ name: 'body', in: 'body', required: true, schema: { type: 'object' } }] },
          { '200': { description: 'OK', schema: ref } },
        ),
        consumes: [
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/apply-patch+yaml',
        ],
      },
      delete: op('delete', `delete a ${names.kind}`, {}, { '200': { description: 'OK', schema: status } }),
    };
  }
  return out;
}

export function buildCrdOpenApi(version: string, crds: readonly CrdDefinition[] = KUBESPHERE_CRDS): Json {
  const definitions: Json = { ...COMMON_DEFINITIONS };
  const paths: Json = {};
  for (const crd of crds) {
    Object.assign(definitions, kindDefinitions(crd));
    Object.assign(paths, kindPaths(crd));
  }
  return {
    swagger: '2.0',
    info: {
      title: 'KubeSphere',
      description:
        'The custom-resource API objects of kapiserver (KubeSphere v3 CRDs), served by the orchestrator',
      version,
    },
    securityDefinitions: {
      BearerToken: { type: 'apiKey', name: 'Authorization', in: 'header' },
      BasicAuth: { type: 'basic', description: 'HTTP Basic: user name (or e-mail) and password' },
    },
    security: [{ BearerToken: [] }, { BasicAuth: [] }],
    paths,
    definitions,
  };
}
