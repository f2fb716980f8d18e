// Tenant routes whose backend a single kapiserver does not have: clusters (multi-cluster only: an empty list, as a
// single-cluster KubeSphere answers) and the routes that need a logging, auditing, metering, DevOps or federation
// component. Those answer a 404 Status naming what is missing, where KubeSphere panics or answers 500 (stance 15).
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { notFoundMessage } from '../../../k8s/status.ts';
import { TENANT_GROUP } from '../../crds/definitions.ts';
import { fromKube, type IamDeps, json } from '../iam/common.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject, ListQueryString, listResult } from '../schemas.ts';
import { WORKSPACE_TEMPLATES } from '../workspaces.ts';
import { pathOf, TAG_V2, V2 } from './common.ts';

const EMPTY = '{"items":[],"totalItems":0}';

/** Path below v1alpha2, operation id, and the component it needs. */
const ABSENT: readonly [string, string, string][] = [
  ['/events', 'Events', 'the events backend (Elasticsearch or OpenSearch)'],
  ['/logs', 'Logs', 'the logging backend (Elasticsearch or OpenSearch)'],
  ['/auditing/events', 'AuditingEvents', 'the auditing backend (Elasticsearch or OpenSearch)'],
  ['/metering', 'Metering', 'metering (Prometheus)'],
  ['/metering/price', 'MeteringPrice', 'metering (Prometheus)'],
  ['/namespaces/:namespace/metering/hierarchy', 'MeteringHierarchy', 'metering (Prometheus)'],
  ['/federatednamespaces', 'FederatedNamespaces', 'multi-cluster federation'],
  ['/workspaces/:workspace/federatednamespaces', 'WorkspaceFederatedNamespaces', 'multi-cluster federation'],
  ['/workspaces/:workspace/devops', 'WorkspaceDevOps', 'DevOps'],
  ['/workspaces/:workspace/workspacemembers/:workspacemember/devops', 'WorkspaceMemberDevOps', 'DevOps'],
];

export function registerAbsentRoutes(app: FastifyInstance, deps: IamDeps): void {
  registerKapisRoute(app, {
    method: 'GET',
    path: `${V2}/clusters`,
    schema: {
      tags: [TAG_V2],
      summary: 'List clusters: always empty (a single cluster has no Cluster objects)',
      operationId: 'ListClusters',
      querystring: ListQueryString,
      response: { 200: listResult(KubeObject, 'Clusters'), ...errors() },
    },
    handler: async (_request, reply) => {
      json(reply);
      return EMPTY;
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${V2}/workspaces/:workspace/clusters`,
    schema: {
      tags: [TAG_V2],
      summary: "List a workspace's clusters: always empty (single cluster)",
      operationId: 'ListWorkspaceClusters',
      params: Type.Object({ workspace: Type.String() }),
      response: { 200: listResult(KubeObject, 'Clusters'), ...errors(404, 503) },
    },
    handler: async (request, reply) => {
      const { workspace } = request.params as { workspace: string };
      await deps.rest
        .get(pathOf(WORKSPACE_TEMPLATES, workspace))
        .catch((e: unknown) => fromKube(e, TENANT_GROUP, WORKSPACE_TEMPLATES.name, workspace));
      json(reply);
      return EMPTY;
    },
  });
  for (const [path, op, component] of ABSENT) {
    const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    registerKapisRoute(app, {
      method: 'GET',
      path: `${V2}${path}`,
      schema: {
        tags: [TAG_V2],
        summary: `Not available: needs ${component}, which kapiserver does not run (404 Status)`,
        operationId: `Get${op}`,
        ...(names.length > 0 && {
          params: Type.Object(Object.fromEntries(names.map((n) => [n, Type.String()]))),
        }),
        response: {
          200: Type.Object({}, { additionalProperties: true, description: `What ${component} would answer` }),
          ...errors(404),
        },
      },
      handler: async () => {
        throw notFoundMessage(
          `${V2}${path.replaceAll(/:(\w+)/g, '{$1}')} needs ${component}, which is not enabled in kapiserver`,
        );
      },
    });
  }
}
