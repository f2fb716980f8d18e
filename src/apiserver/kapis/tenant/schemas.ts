// Route schemas (typebox) of tenant.kubesphere.io: they document the routes and validate bodies and path
// parameters (../route.ts); names and labels are checked further by the handlers (422 Status).
import Type from 'typebox';
import { KubeObject, ObjectMeta } from '../schemas.ts';

const Open = (properties: Parameters<typeof Type.Object>[0] = {}, description?: string) =>
  Type.Object(properties, { additionalProperties: true, ...(description ? { description } : {}) });

export const WorkspaceTemplate = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ default: 'tenant.kubesphere.io/v1alpha2' })),
    kind: Type.Optional(Type.String({ default: 'WorkspaceTemplate' })),
    metadata: ObjectMeta,
    spec: Type.Optional(
      Open({
        template: Type.Optional(
          Open({
            metadata: Type.Optional(Open({}, 'Labels copied to the Workspace')),
            spec: Type.Optional(
              Open({
                manager: Type.Optional(Type.String({ description: 'User who becomes <workspace>-admin' })),
                networkIsolation: Type.Optional(Type.Boolean()),
              }),
            ),
          }),
        ),
        placement: Type.Optional(
          Open(
            {
              clusters: Type.Optional(Type.Array(Open({ name: Type.String() }))),
              clusterSelector: Type.Optional(Open()),
            },
            'Multi-cluster placement; a single cluster has no Cluster objects, so any named cluster is a 404',
          ),
        ),
      }),
    ),
  },
  { title: 'WorkspaceTemplate', additionalProperties: true },
);

export const Workspace = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ default: 'tenant.kubesphere.io/v1alpha1' })),
    kind: Type.Optional(Type.String({ default: 'Workspace' })),
    metadata: ObjectMeta,
    spec: Type.Optional(Open({ manager: Type.Optional(Type.String()) })),
  },
  { title: 'Workspace', additionalProperties: true },
);

export const Namespace = Type.Object(
  { ...KubeObject.properties },
  { title: 'Namespace', additionalProperties: true },
);

const JsonPatchOperation = Type.Object(
  {
    op: Type.Union(['add', 'remove', 'replace', 'move', 'copy', 'test'].map((op) => Type.Literal(op))),
    path: Type.String(),
    from: Type.Optional(Type.String()),
    value: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const WorkspacePatch = Type.Union(
  [
    Type.Array(JsonPatchOperation, { description: 'JSON Patch (RFC 6902)' }),
    Type.Object({}, { additionalProperties: true, description: 'JSON merge patch (RFC 7386)' }),
  ],
  {
    description:
      'A JSON Patch list (application/json-patch+json, or application/json as KubeSphere sends it) or a JSON merge patch object (application/merge-patch+json, or application/json)',
  },
);

export const Success = Type.Object({ message: Type.String() }, { description: 'KubeSphere success body' });
