// Shared route schemas (typebox) of the aggregated APIs. They document the routes in the swagger document; response
// bodies are serialised with plain JSON.stringify (see route.ts), so a schema never strips fields of a Kubernetes
// object, and list query parameters are validated by query.ts (400 Status with KubeSphere's semantics).
import Type, { type TSchema } from 'typebox';
import { MAX_LIMIT } from './query.ts';

export const StringMap = Type.Object({}, { additionalProperties: Type.String() });

/** A field a client may also send as null, which the handlers read as absent (as Go's encoding/json). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ObjectMeta = Type.Object(
  {
    // Optional, as in Kubernetes' ObjectMeta: a write to a named path takes the name from the path.
    name: Type.Optional(Type.String({ description: 'Object name' })),
    namespace: Type.Optional(Type.String()),
    selfLink: Type.Optional(
      Type.String({ description: 'Path of the object in the native orchestrator API' }),
    ),
    uid: Type.Optional(Type.String({ description: 'Unique identifier (UUID)' })),
    resourceVersion: Type.Optional(Type.String({ description: 'Opaque version counter of the object' })),
    generation: Type.Optional(Type.Integer()),
    creationTimestamp: Type.Optional(
      Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp' }),
    ),
    deletionTimestamp: Type.Optional(Type.String({ format: 'date-time' })),
    labels: Type.Optional(
      Nullable(
        Type.Object(
          {},
          { additionalProperties: Type.String(), description: 'Label values may be empty strings' },
        ),
      ),
    ),
    annotations: Type.Optional(Nullable(StringMap)),
    ownerReferences: Type.Optional(
      Type.Array(
        Type.Object(
          {
            apiVersion: Type.String(),
            kind: Type.String(),
            name: Type.String(),
            uid: Type.String(),
            controller: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: true },
        ),
      ),
    ),
  },
  { additionalProperties: true, title: 'ObjectMeta' },
);

export const KubeObject = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: ObjectMeta,
    spec: Type.Optional(Type.Object({}, { additionalProperties: true })),
    status: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  {
    additionalProperties: true,
    title: 'KubeObject',
    description: 'A Kubernetes object as the orchestrator stores it',
  },
);

export function listResult(item: TSchema, description: string) {
  return Type.Object(
    {
      items: Type.Array(item),
      totalItems: Type.Integer({ description: 'Number of all matching items (not just this page)' }),
    },
    { description },
  );
}

export const Status = Type.Object(
  {
    kind: Type.Literal('Status'),
    apiVersion: Type.Literal('v1'),
    metadata: Type.Object({}),
    status: Type.String(),
    message: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String()),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    code: Type.Integer(),
  },
  { title: 'Status', description: 'Kubernetes Status (every error on /kapis)' },
);

/** A JSON merge patch (RFC 7386) body: any object; the handler merges it into the stored object and checks that. */
export const MergePatch = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'JSON merge patch (RFC 7386): the fields to change, null to remove',
  },
);

/** The standard error responses of a /kapis route. */
export function errors(...codes: number[]): Record<string, TSchema> {
  const names: Record<number, string> = {
    400: 'Bad request (invalid parameter or body)',
    401: 'Missing or invalid credentials (bearer token or HTTP Basic)',
    403: 'Not allowed',
    404: 'Not found',
    409: 'Conflict',
    503: 'Cache not synced or orchestrator unreachable',
  };
  const out: Record<string, TSchema> = {};
  for (const c of [401, 403, ...codes]) out[String(c)] = { ...Status, description: names[c] ?? 'Error' };
  return out;
}

export const ListQueryString = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'Page number, 1-based' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LIMIT,
        description: `Items per page (absent: no paging). At most ${MAX_LIMIT}`,
      }),
    ),
    sortBy: Type.Optional(
      Type.String({
        default: 'creationTimestamp',
        description: 'creationTimestamp (alias createTime) or name',
      }),
    ),
    ascending: Type.Optional(
      Type.Boolean({ default: false, description: 'Sort ascending (default: newest first)' }),
    ),
    labelSelector: Type.Optional(
      Type.String({ description: 'Kubernetes label selector, e.g. app=web,tier!=db' }),
    ),
    name: Type.Optional(Type.String({ description: 'Name contains this substring' })),
    names: Type.Optional(Type.String({ description: 'Comma-separated exact names' })),
    uid: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    alias: Type.Optional(Type.String({ description: 'kubesphere.io/alias-name annotation contains this' })),
    label: Type.Optional(Type.String({ description: 'key, key=value or key!=value' })),
    annotation: Type.Optional(Type.String({ description: 'key, key=value or key!=value' })),
    ownerReference: Type.Optional(Type.String({ description: 'Owner uid' })),
    ownerKind: Type.Optional(Type.String()),
    status: Type.Optional(
      Type.String({
        description:
          'Per resource: nodes running|warning|unschedulable; pods Waiting|Running|Error|Completed; ' +
          'deployments/statefulsets/daemonsets stopped|running|updating; persistentvolumeclaims phase',
      }),
    ),
  },
  {
    additionalProperties: Type.String(),
    description: 'Any other parameter filters on a field of that name (unknown fields match nothing)',
  },
);
