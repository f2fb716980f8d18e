// What a fallback request names: `/kapis/{g}/{v}/[workspaces/{ws}/][namespaces/{ns}/]{resources}[/{name}]`, resolved
// through eligibility and the orchestrator's discovery. Anything else is a 404 Status.
import { methodNotAllowed, notFound, notFoundMessage } from '../../../k8s/status.ts';
import type { Informer } from '../../cluster/index.ts';
import { WORKSPACE_LABEL } from '../../iam/labels.ts';
import type { RequestInfo } from '../../request.ts';
import type { ApiResource, Discovery } from '../resources/discovery.ts';
import { type Eligibility, eligibility } from './eligibility.ts';

export interface Target {
  group: string;
  version: string;
  resource: string;
  api: ApiResource;
  eligible: NonNullable<Eligibility>;
  /** undefined: the path names no namespace. */
  namespace: string | undefined;
  /** undefined: the collection. */
  name: string | undefined;
  verb: string;
}

const pageNotFound = () => notFoundMessage('the server could not find the requested resource');

/** The verb discovery must list for the request's verb. */
const REQUIRED_VERB: Record<string, string> = {
  list: 'list',
  get: 'get',
  create: 'create',
  update: 'update',
  patch: 'patch',
  delete: 'delete',
};

/** The orchestrator's path of the target: /apis/{g}/{v}/[namespaces/{ns}/]{resources}[/{name}]. */
export function upstreamPath(t: Target, namespace = t.namespace): string {
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const name = t.name === undefined ? '' : `/${encodeURIComponent(t.name)}`;
  return `/apis/${t.group}/${t.version}${ns}/${t.resource}${name}`;
}

/** `namespaces` is asked for the namespaces informer only when the path names a namespace. */
export async function resolveTarget(
  info: RequestInfo,
  discovery: Discovery,
  crds: Informer,
  namespaces: () => Promise<Informer>,
): Promise<Target> {
  const { apiGroup: group, apiVersion: version, resource, parts } = info;
  if (!info.isResourceRequest || info.isKubernetesRequest || info.apiPrefix !== 'kapis') throw pageNotFound();
  if (!group || !version || !resource || parts.length > 2 || info.cluster !== '') throw pageNotFound();
  const verb = info.verb;
  if (!(verb in REQUIRED_VERB) && verb !== 'deletecollection') throw pageNotFound();
  const eligible = eligibility(group, version, resource, crds);
  if (!eligible) throw pageNotFound();
  const api = await discovery.resource(group, version, resource);
  if (!api) throw pageNotFound();
  const namespace = info.namespace === '' ? undefined : info.namespace;
  // KubeSphere ignores the workspace; a workspace-wide list would then be cluster-wide. Only its namespaces count.
  if (info.workspace !== '' && namespace === undefined) {
    throw notFoundMessage('resources are listed per namespace inside a workspace');
  }
  if (namespace !== undefined && !api.namespaced) {
    throw notFoundMessage(`${resource}.${group} is cluster-scoped: it is not found in a namespace`);
  }
  if (namespace !== undefined) {
    const ns = (await namespaces()).get('', namespace);
    if (!ns || (info.workspace !== '' && ns.labels?.[WORKSPACE_LABEL] !== info.workspace)) {
      throw notFound('', 'namespaces', namespace);
    }
  }
  if (verb === 'deletecollection') {
    throw methodNotAllowed(
      `${resource}.${group} cannot be deleted as a collection here: delete objects by name`,
    );
  }
  if (!api.verbs.includes(REQUIRED_VERB[verb])) {
    throw methodNotAllowed(`${resource}.${group} does not support ${verb}`);
  }
  const name = parts.length === 2 ? parts[1] : undefined;
  if (name !== undefined && api.namespaced && namespace === undefined) {
    throw notFoundMessage(`${resource}.${group} is namespaced: name its namespace in the path`);
  }
  return { group, version, resource, api, eligible, namespace, name, verb };
}
