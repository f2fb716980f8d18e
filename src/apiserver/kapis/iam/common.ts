// Shared pieces of the iam.kubesphere.io/v1alpha2 routes: names and paths, the informer-backed resource types they
// read, orchestrator error mapping, and small body helpers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, notFound, StatusError, serviceUnavailable } from '../../../k8s/status.ts';
import { type Informer, KubeError, KubeRest } from '../../cluster/index.ts';
import type { ServerContext } from '../../context.ts';
import {
  GLOBAL_ROLE_BINDING_CRD,
  GLOBAL_ROLE_CRD,
  GROUP_BINDING_CRD,
  GROUP_CRD,
  IAM_GROUP,
  LOGIN_RECORD_CRD,
  USER_CRD,
  WORKSPACE_ROLE_CRD,
} from '../../crds/definitions.ts';
import { RBAC_GROUP } from '../../iam/rbac.ts';
import type { ListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';

export const GROUP = IAM_GROUP;
export const VERSION = 'v1alpha2';
export const BASE = `/${GROUP}/${VERSION}`;
export { RBAC_GROUP };
export const TAG = `${GROUP}/${VERSION}`;
const SYNC_WAIT_MS = 15_000;
/** Kubernetes object names (DNS subdomain). */
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export type Rec = Record<string, unknown>;
export const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
export const isObject = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);

export function resourceDef(
  group: string,
  version: string,
  plural: string,
  namespaced: boolean,
): ResourceDef {
  return {
    name: plural,
    ref: { group, version, resource: plural },
    namespaced,
    sortFields: ['creationTimestamp', 'createTime', 'name'],
    indexedFilters: {},
  };
}

export const USERS = resourceDef(GROUP, VERSION, USER_CRD.spec.names.plural, false);
export const GLOBAL_ROLES = resourceDef(GROUP, VERSION, GLOBAL_ROLE_CRD.spec.names.plural, false);
export const GLOBAL_ROLE_BINDINGS = resourceDef(
  GROUP,
  VERSION,
  GLOBAL_ROLE_BINDING_CRD.spec.names.plural,
  false,
);
export const LOGIN_RECORDS = resourceDef(GROUP, VERSION, LOGIN_RECORD_CRD.spec.names.plural, false);
export const CLUSTER_ROLES = resourceDef(RBAC_GROUP, 'v1', 'clusterroles', false);
export const CLUSTER_ROLE_BINDINGS = resourceDef(RBAC_GROUP, 'v1', 'clusterrolebindings', false);
export const ROLES = resourceDef(RBAC_GROUP, 'v1', 'roles', true);
export const ROLE_BINDINGS = resourceDef(RBAC_GROUP, 'v1', 'rolebindings', true);
export const WORKSPACE_ROLES = resourceDef(GROUP, VERSION, WORKSPACE_ROLE_CRD.spec.names.plural, false);
export const GROUPS = resourceDef(GROUP, VERSION, GROUP_CRD.spec.names.plural, false);
export const GROUP_BINDINGS = resourceDef(GROUP, VERSION, GROUP_BINDING_CRD.spec.names.plural, false);
export const NAMESPACES = resourceDef('', 'v1', 'namespaces', false);

/** Path of an object (or, without a name, its collection) in the orchestrator's API. */
export function nativePath(def: ResourceDef, namespace: string, name?: string): string {
  const { group, version, resource } = def.ref;
  const ns = def.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const tail = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `/apis/${group}/${version}${ns}/${resource}${tail}`;
}

/** What every iam route module is built with. */
export interface IamDeps {
  ctx: ServerContext;
  rest: KubeRest;
  /** The informer of a type, once its first list is in (503 otherwise). */
  synced(def: ResourceDef): Promise<Informer>;
}

export function iamDeps(ctx: ServerContext): IamDeps {
  const cache = ctx.cache;
  return {
    ctx,
    rest: new KubeRest(ctx.cluster),
    async synced(def) {
      const inf = cache.informer(def.ref);
      if (!(await inf.waitForSync(SYNC_WAIT_MS)))
        throw serviceUnavailable(`the cache of ${def.name} has not synced yet`);
      return inf;
    },
  };
}

/** The 400 Kubernetes answers when a body names another object than the path does. */
export function nameMismatch(given: unknown, url: string | undefined): StatusError {
  return badRequest(
    `the name of the object (${String(given)}) does not match the name on the URL (${String(url)})`,
  );
}

/** Orchestrator errors in Status form (their messages carry no secrets: bodies are never echoed). */
export function fromKube(err: unknown, group: string, resource: string, name: string): never {
  if (err instanceof KubeError) {
    if (err.code === 404) throw notFound(group, resource, name);
    if (err.code === 409) {
      throw new StatusError(409, err.reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict', err.message);
    }
    if (err.code >= 400 && err.code < 500)
      throw new StatusError(err.code, err.reason ?? 'BadRequest', err.message);
    throw serviceUnavailable(`the orchestrator answered ${err.code}`);
  }
  throw err;
}

export function checkName(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length > 253 || !NAME.test(value)) {
    throw badRequest(`${field} must be a lowercase DNS subdomain name`);
  }
  return value;
}

/** A string map (labels, annotations) from an untrusted body; undefined when absent. */
export function stringMap(field: string, value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw badRequest(`${field} must be a map of strings`);
  }
  return value as Record<string, string>;
}

export function searchOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q < 0 ? '' : request.url.slice(q + 1);
}

export const json = (reply: FastifyReply) => reply.type('application/json; charset=utf-8');

/** KubeSphere's body for a write without a result (`errors.None`). */
export const success = { message: 'success' };

/** Narrows a list to `names` (KubeSphere's `names` filter), intersecting with a `names` the caller gave. */
export function restrictNames(q: ListQuery, names: Iterable<string>): void {
  let allowed = [...new Set(names)];
  const given = q.filters.get('names');
  if (given !== undefined) {
    const g = new Set(given.split(','));
    allowed = allowed.filter((n) => g.has(n));
  }
  q.filters.set('names', allowed.join(','));
}
