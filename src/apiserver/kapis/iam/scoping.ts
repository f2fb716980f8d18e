// Where a set of iam routes acts: the cluster, a namespace (`/namespaces/{namespace}`), or a workspace
// (`/workspaces/{workspace}`). Objects of a workspace are cluster-scoped and belong to it through the
// kubesphere.io/workspace label, which the routes force on every write, check on every read, and add to every list;
// what they create there is owned by the WorkspaceTemplate, so Kubernetes' garbage collector deletes it with the
// workspace (a workspace created again later under the same name does not inherit old members or roles).
import type { FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { parseLabelSelector } from '../../../k8s/selectors.ts';
import type { ClusterCache } from '../../cluster/index.ts';
import { WORKSPACE_LABEL } from '../../iam/labels.ts';
import { type ListQuery, parseListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { listBody, listPage } from '../resources/list.ts';
import { requireWorkspace, type Synced, WORKSPACE_TEMPLATES } from '../workspaces.ts';
import { checkName, type Rec, rec, searchOf } from './common.ts';

export interface Scoping {
  kind: 'cluster' | 'namespace' | 'workspace';
  /** Path segment(s) below BASE before the collection: '', '/namespaces/:namespace' or '/workspaces/:workspace'. */
  prefix: string;
  /** Schemas of the path parameters `prefix` has. */
  params: Record<string, TSchema>;
  /** For summaries: ' of the cluster', ' of a namespace', ' of a workspace'. */
  where: string;
  /** The namespace or workspace the path names ('' for the cluster); 404 for a workspace that does not exist. */
  of(request: FastifyRequest): Promise<string>;
  /** The namespace objects of `scope` are stored in ('' unless namespaced). */
  namespace(scope: string): string;
  /** True when an object with these labels belongs to `scope`. */
  holds(labels: Readonly<Record<string, string>> | undefined, scope: string): boolean;
  /** Gives an object written in `scope` the labels (and owner) that make it belong there. */
  stamp(metadata: Rec, scope: string): void;
  /** The label selector requirement a list of `scope` adds ('' for none). */
  selector(scope: string): string;
}

export const CLUSTER: Scoping = {
  kind: 'cluster',
  prefix: '',
  params: {},
  where: ' of the cluster',
  of: async () => '',
  namespace: () => '',
  holds: () => true,
  stamp: () => {},
  selector: () => '',
};

export const NAMESPACE: Scoping = {
  kind: 'namespace',
  prefix: '/namespaces/:namespace',
  params: { namespace: Type.String({ description: 'Namespace' }) },
  where: ' of a namespace',
  of: async (request) => checkName('namespace', (request.params as Rec).namespace),
  namespace: (scope) => scope,
  holds: () => true,
  stamp: () => {},
  selector: () => '',
};

export function workspaceScoping(cache: ClusterCache, synced: Synced): Scoping {
  const templates = cache.informer(WORKSPACE_TEMPLATES.ref);
  return {
    kind: 'workspace',
    prefix: '/workspaces/:workspace',
    params: { workspace: Type.String({ description: 'Workspace' }) },
    where: ' of a workspace',
    async of(request) {
      const workspace = checkName('workspace', (request.params as Rec).workspace);
      await requireWorkspace(synced, workspace);
      return workspace;
    },
    namespace: () => '',
    holds: (labels, scope) => labels?.[WORKSPACE_LABEL] === scope,
    stamp(metadata, scope) {
      metadata.labels = { ...rec(metadata.labels), [WORKSPACE_LABEL]: scope };
      const owner = templates.get('', scope);
      if (owner && metadata.ownerReferences === undefined) {
        const { group, version } = WORKSPACE_TEMPLATES.ref;
        metadata.ownerReferences = [
          { apiVersion: `${group}/${version}`, kind: 'WorkspaceTemplate', name: scope, uid: owner.uid },
        ];
      }
    },
    selector: (scope) => `${WORKSPACE_LABEL}=${scope}`,
  };
}

/** A page of `def`'s objects in the place the request names, as the list routes answer it (UTF-8 JSON). */
export async function listIn(
  scoping: Scoping,
  synced: Synced,
  def: ResourceDef,
  request: FastifyRequest,
): Promise<Buffer> {
  const place = await scoping.of(request);
  const q = parseListQuery(searchOf(request), def.sortFields);
  requireLabels(q, scoping.selector(place));
  return listBody(listPage(await synced(def), def, q));
}

/** Adds a label selector requirement to a list query (ANDed with the caller's own selector). */
export function requireLabels(q: ListQuery, requirement: string): void {
  if (requirement === '') return;
  const own = q.labelSelector?.toString() ?? '';
  q.labelSelector = parseLabelSelector(own ? `${own},${requirement}` : requirement);
}
