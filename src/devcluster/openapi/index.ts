// OpenAPI v3 documents for the dev cluster: the `/openapi/v3` index and one document per group-version, in the
// shape kubectl reads. kubectl apply/create/replace check that the PATCH operation of a kind lists the
// `fieldValidation` query parameter (then validation is left to the server), client-side apply computes strategic
// merge patches from the `x-kubernetes-patch-*` keys, and `kubectl explain` walks `components.schemas` starting at
// the schema tagged with the kind's `x-kubernetes-group-version-kind`.
import { createHash } from 'node:crypto';
import {
  AUTOSCALING,
  commonDocs,
  type Gvk,
  kind,
  listKind,
  META,
  REF_PREFIX,
  ref,
  type Schema,
  str,
} from './builders.ts';
import { coreSchemas } from './schemas-core.ts';
import { crdSchemas as crdKindSchemas, metaSchemas } from './schemas-meta.ts';
import { networkingSchemas } from './schemas-networking.ts';
import { workloadSchemas } from './schemas-workloads.ts';

export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  verbs: string[];
  subresources?: string[];
}

/** Every built-in schema, keyed by its Go-style name (`io.k8s.api.core.v1.ConfigMap`). */
export const builtinSchemas: Readonly<Record<string, Schema>> = {
  ...metaSchemas,
  ...crdKindSchemas,
  ...coreSchemas,
  ...workloadSchemas,
  ...networkingSchemas,
};

/** Go package prefix of each built-in group's schema names. */
const GROUP_PACKAGES: Record<string, string> = {
  '': 'io.k8s.api.core',
  apps: 'io.k8s.api.apps',
  batch: 'io.k8s.api.batch',
  autoscaling: 'io.k8s.api.autoscaling',
  policy: 'io.k8s.api.policy',
  'rbac.authorization.k8s.io': 'io.k8s.api.rbac',
  'coordination.k8s.io': 'io.k8s.api.coordination',
  'networking.k8s.io': 'io.k8s.api.networking',
  'scheduling.k8s.io': 'io.k8s.api.scheduling',
  'storage.k8s.io': 'io.k8s.api.storage',
  'events.k8s.io': 'io.k8s.api.events',
  'discovery.k8s.io': 'io.k8s.api.discovery',
  'authorization.k8s.io': 'io.k8s.api.authorization',
  'authentication.k8s.io': 'io.k8s.api.authentication',
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
};

const splitGroupVersion = (gv: string): { group: string; version: string } => {
  const i = gv.lastIndexOf('/');
  return i < 0 ? { group: '', version: gv } : { group: gv.slice(0, i), version: gv.slice(i + 1) };
};

/** `io.k8s.api.apps.v1` for built-in groups, reversed domain (`com.example.v1`) for custom ones, as upstream. */
export function schemaPrefix(group: string, version: string): string {
  const pkg = GROUP_PACKAGES[group] ?? group.split('.').reverse().join('.');
  return `${pkg}.${version}`;
}

/** The index path key of a group-version: `api/v1` or `apis/<group>/<version>`. */
export const indexKey = (groupVersion: string): string => {
  const { group, version } = splitGroupVersion(groupVersion);
  return group ? `apis/${group}/${version}` : `api/${version}`;
};

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function stableHash(value: unknown): string {
  return createHash('sha512').update(JSON.stringify(value)).digest('hex').toUpperCase();
}

/**
 * `GET /openapi/v3`: one entry per group-version. The hash names the document's content so clients may cache it;
 * pass `documentFor` to hash the exact document served (CRD schemas change it), otherwise the built-in schemas
 * of the group-version are hashed.
 */
export function openApiV3Index(
  groupVersions: string[],
  documentFor?: (groupVersion: string) => object | undefined,
): { paths: Record<string, { serverRelativeURL: string }> } {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const byKey = [...new Set(groupVersions)].sort((a, b) => indexKey(a).localeCompare(indexKey(b)));
  for (const gv of byKey) {
    const { group, version } = splitGroupVersion(gv);
    const prefix = `${schemaPrefix(group, version)}.`;
    const content = documentFor?.(gv) ?? {
      gv,
      schemas: Object.keys(builtinSchemas)
        .filter((n) => n.startsWith(prefix))
        .sort()
        .map((n) => [n, builtinSchemas[n]]),
    };
    const key = indexKey(gv);
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${stableHash(content)}` };
  }
  return { paths };
}

// ---------------------------------------------------------------------------------------------------------------
// Operations

const query = (name: string, description: string, schema: Schema = { type: 'string' }): Schema => ({
  name,
  in: 'query',
  description,
  schema,
});
const P = {
  pretty: query('pretty', "If 'true', then the output is pretty printed."),
  dryRun: query(
    'dryRun',
    'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed',
  ),
  fieldManager: query(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters.',
  ),
  fieldValidation: query(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict: fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present.',
  ),
  force: query(
    'force',
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.',
    { type: 'boolean', uniqueItems: true },
  ),
  gracePeriodSeconds: query(
    'gracePeriodSeconds',
    'The duration in seconds before the object should be deleted. The value zero indicates delete immediately.',
    { type: 'integer', uniqueItems: true },
  ),
  propagationPolicy: query(
    'propagationPolicy',
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
  orphanDependents: query('orphanDependents', 'Deprecated: please use the PropagationPolicy.', {
    type: 'boolean',
  }),
  allowWatchBookmarks: query(
    'allowWatchBookmarks',
    'allowWatchBookmarks requests watch events with type "BOOKMARK".',
    {
      type: 'boolean',
    },
  ),
  continue: query(
    'continue',
    'The continue option should be set when retrieving more results from the server.',
  ),
  fieldSelector: query(
    'fieldSelector',
    'A selector to restrict the list of returned objects by their fields.',
  ),
  labelSelector: query(
    'labelSelector',
    'A selector to restrict the list of returned objects by their labels.',
  ),
  limit: query('limit', 'limit is a maximum number of responses to return for a list call.', {
    type: 'integer',
  }),
  resourceVersion: query(
    'resourceVersion',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  resourceVersionMatch: query(
    'resourceVersionMatch',
    'resourceVersionMatch determines how resourceVersion is applied to list calls.',
  ),
  sendInitialEvents: query(
    'sendInitialEvents',
    'sendInitialEvents=true may be set together with watch=true.',
    { type: 'boolean' },
  ),
  timeoutSeconds: query('timeoutSeconds', 'Timeout for the list/watch call.', { type: 'integer' }),
  watch: query(
    'watch',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
    {
      type: 'boolean',
    },
  ),
};
const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const pathParam = (name: string, description: string): Schema => ({
  name,
  in: 'path',
  description,
  required: true,
  schema: { type: 'string', uniqueItems: true },
});
const NAME_PARAM = (k: string) => pathParam('name', `name of the ${k}`);
const NAMESPACE_PARAM = pathParam('namespace', 'object name and auth scope, such as for teams and projects');

const body = (schemaName: string, types = ['application/json', 'application/yaml']): Schema => ({
  content: Object.fromEntries(types.map((t) => [t, { schema: ref(schemaName) }])),
});
const responses = (codes: Record<string, string>): Schema => ({
  ...Object.fromEntries(
    Object.entries(codes).map(([code, schema]) => [
      code,
      { description: code === '201' ? 'Created' : code === '202' ? 'Accepted' : 'OK', ...body(schema) },
    ]),
  ),
  '401': { description: 'Unauthorized' },
});

interface OpContext {
  tag: string;
  gvk: Gvk;
  idKind: string;
}

function op(ctx: OpContext, action: string, verb: string, description: string, extra: Schema): Schema {
  return {
    tags: [ctx.tag],
    description,
    operationId: `${verb}${ctx.tag.charAt(0).toUpperCase()}${ctx.tag.slice(1)}${ctx.idKind}`,
    ...extra,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': ctx.gvk,
  };
}

function patchOp(ctx: OpContext, schemaName: string, strategic: boolean, what: string): Schema {
  const types = [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(strategic ? ['application/strategic-merge-patch+json'] : []),
  ];
  return op(ctx, 'patch', 'patch', `partially update ${what}`, {
    parameters: [P.dryRun, P.fieldManager, P.fieldValidation, P.force],
    requestBody: { required: true, ...body(META('Patch'), types) },
    responses: responses({ '200': schemaName, '201': schemaName }),
  });
}

function tagFor(group: string, version: string): string {
  const base =
    group === ''
      ? 'core'
      : group.replace(/\.k8s\.io$/, '').replace(/\.([a-z])/g, (_, c: string) => c.toUpperCase());
  return `${base}${version.charAt(0).toUpperCase()}${version.slice(1)}`;
}

function addResourcePaths(
  paths: Record<string, Schema>,
  r: ResourceInfo,
  kindSchema: string,
  listSchema: string,
  strategic: boolean,
): void {
  const verbs = new Set(r.verbs);
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const scope = r.namespaced ? `${base}/namespaces/{namespace}` : base;
  const collection = `${scope}/${r.plural}`;
  const item = `${collection}/{name}`;
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const tag = tagFor(r.group, r.version);
  const ns = r.namespaced ? 'Namespaced' : '';
  const ctx: OpContext = { tag, gvk, idKind: `${ns}${r.kind}` };
  const scopeParams = r.namespaced ? [NAMESPACE_PARAM] : [];
  const writeParams = [P.dryRun, P.fieldManager, P.fieldValidation];

  const coll: Schema = { parameters: [...scopeParams, P.pretty] };
  if (verbs.has('list'))
    coll.get = op(ctx, 'list', 'list', `list or watch objects of kind ${r.kind}`, {
      parameters: LIST_PARAMS,
      responses: responses({ '200': listSchema }),
    });
  if (verbs.has('create'))
    coll.post = op(ctx, 'post', 'create', `create a ${r.kind}`, {
      parameters: writeParams,
      requestBody: { required: true, ...body(kindSchema) },
      responses: responses({ '200': kindSchema, '201': kindSchema, '202': kindSchema }),
    });
  if (verbs.has('deletecollection'))
    coll.delete = op(ctx, 'deletecollection', 'deleteCollection', `delete collection of ${r.kind}`, {
      parameters: [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy, ...LIST_PARAMS],
      requestBody: body(META('DeleteOptions')),
      responses: responses({ '200': META('Status') }),
    });
  if (coll.get || coll.post || coll.delete) paths[collection] = coll;

  const one: Schema = { parameters: [NAME_PARAM(r.kind), ...scopeParams, P.pretty] };
  if (verbs.has('get'))
    one.get = op(ctx, 'get', 'read', `read the specified ${r.kind}`, {
      responses: responses({ '200': kindSchema }),
    });
  if (verbs.has('update'))
    one.put = op(ctx, 'put', 'replace', `replace the specified ${r.kind}`, {
      parameters: writeParams,
      requestBody: { required: true, ...body(kindSchema) },
      responses: responses({ '200': kindSchema, '201': kindSchema }),
    });
  if (verbs.has('patch')) one.patch = patchOp(ctx, kindSchema, strategic, `the specified ${r.kind}`);
  if (verbs.has('delete'))
    one.delete = op(ctx, 'delete', 'delete', `delete a ${r.kind}`, {
      parameters: [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy],
      requestBody: body(META('DeleteOptions')),
      responses: responses({ '200': META('Status'), '202': META('Status') }),
    });
  if (one.get || one.put || one.patch || one.delete) paths[item] = one;

  if (r.namespaced && verbs.has('list'))
    paths[`${base}/${r.plural}`] = {
      parameters: [P.pretty],
      get: op(
        { ...ctx, idKind: `${r.kind}ForAllNamespaces` },
        'list',
        'list',
        `list or watch objects of kind ${r.kind}`,
        {
          parameters: LIST_PARAMS,
          responses: responses({ '200': listSchema }),
        },
      ),
    };

  for (const sub of r.subresources ?? []) {
    if (sub !== 'status' && sub !== 'scale') continue;
    const subSchema = sub === 'scale' ? AUTOSCALING('Scale') : kindSchema;
    const subCtx: OpContext = {
      tag,
      gvk: sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : gvk,
      idKind: `${ns}${r.kind}${sub === 'scale' ? 'Scale' : 'Status'}`,
    };
    paths[`${item}/${sub}`] = {
      parameters: [
        pathParam('name', `name of the ${sub === 'scale' ? 'Scale' : r.kind}`),
        ...scopeParams,
        P.pretty,
      ],
      get: op(subCtx, 'get', 'read', `read ${sub} of the specified ${r.kind}`, {
        responses: responses({ '200': subSchema }),
      }),
      put: op(subCtx, 'put', 'replace', `replace ${sub} of the specified ${r.kind}`, {
        parameters: writeParams,
        requestBody: { required: true, ...body(subSchema) },
        responses: responses({ '200': subSchema, '201': subSchema }),
      }),
      patch: patchOp(subCtx, subSchema, strategic, `${sub} of the specified ${r.kind}`),
    };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Schemas

function hasGvk(schema: Schema | undefined, gvk: Gvk): boolean {
  const tags = schema?.['x-kubernetes-group-version-kind'];
  return (
    Array.isArray(tags) &&
    tags.some((t) => isObj(t) && t.group === gvk.group && t.version === gvk.version && t.kind === gvk.kind)
  );
}

/** A custom resource's schema: the CRD's openAPIV3Schema with apiVersion/kind/metadata and its GVK tag. */
function customResourceSchema(gvk: Gvk, openAPIV3Schema: unknown): Schema {
  const s: Schema = isObj(openAPIV3Schema) ? structuredClone(openAPIV3Schema) : {};
  const properties = isObj(s.properties) ? { ...s.properties } : {};
  properties.apiVersion = str(commonDocs.API_VERSION_DOC);
  properties.kind = str(commonDocs.KIND_DOC);
  properties.metadata = ref(META('ObjectMeta'), commonDocs.OBJECT_META_DOC);
  return { ...s, type: s.type ?? 'object', properties, 'x-kubernetes-group-version-kind': [gvk] };
}

/** Adds every built-in schema referenced from `roots` (and, transitively, from the schemas added). */
function closeOverRefs(schemas: Record<string, Schema>, roots: unknown[]): void {
  const pending: unknown[] = [...roots];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    if (!isObj(node)) continue;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX)) {
        const name = v.slice(REF_PREFIX.length);
        const target = builtinSchemas[name];
        if (!schemas[name] && target) {
          schemas[name] = target;
          pending.push(target);
        }
      } else if (typeof v === 'object' && v !== null) {
        pending.push(v);
      }
    }
  }
}

/**
 * One group-version document (`/openapi/v3/apis/<group>/<version>`): paths for every resource and the schemas
 * they need. `crdSchemas` maps a custom resource kind to its `openAPIV3Schema`.
 */
export function openApiV3GroupDocument(
  groupVersion: string,
  resources: ResourceInfo[],
  crdSchemas: Record<string, unknown> = {},
): object {
  const { group, version } = splitGroupVersion(groupVersion);
  const prefix = schemaPrefix(group, version);
  const schemas: Record<string, Schema> = {
    [META('Status')]: builtinSchemas[META('Status')],
    [META('DeleteOptions')]: builtinSchemas[META('DeleteOptions')],
    [META('Patch')]: builtinSchemas[META('Patch')],
  };
  const paths: Record<string, Schema> = {};
  for (const r of [...resources].sort((a, b) => a.plural.localeCompare(b.plural))) {
    if (r.group !== group || r.version !== version) continue;
    const gvk = { group, version, kind: r.kind };
    const name = `${prefix}.${r.kind}`;
    let strategic = false;
    if (crdSchemas[r.kind] !== undefined) {
      schemas[name] = customResourceSchema(gvk, crdSchemas[r.kind]);
    } else if (hasGvk(builtinSchemas[name], gvk)) {
      schemas[name] = builtinSchemas[name];
      strategic = true; // built-in kinds accept strategic merge patches
    } else {
      schemas[name] = {
        ...kind(gvk, `${r.kind} (this dev cluster publishes no detailed schema for it).`, {}),
        'x-kubernetes-preserve-unknown-fields': true,
      };
      strategic = !!GROUP_PACKAGES[group];
    }
    schemas[`${name}List`] = listKind(gvk, name);
    addResourcePaths(paths, r, name, `${name}List`, strategic);
  }
  closeOverRefs(schemas, [...Object.values(schemas), paths]);
  const sortedSchemas = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, schemas[k]]),
  );
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.33.0' },
    paths,
    components: {
      schemas: sortedSchemas,
      securitySchemes: {
        BearerToken: {
          type: 'apiKey',
          description: 'Bearer Token authentication',
          name: 'authorization',
          in: 'header',
        },
      },
    },
    security: [{ BearerToken: [] }],
  };
}
