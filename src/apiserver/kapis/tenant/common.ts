// Shared pieces of the tenant.kubesphere.io routes: paths, the informer-backed types they read and name checks (the
// labels and annotations are iam/labels.ts's).
import type { FastifyRequest } from 'fastify';
import { invalid, notFound, unauthorized } from '../../../k8s/status.ts';
import { collectionPath } from '../../cluster/index.ts';
import { TENANT_GROUP, WORKSPACE_CRD } from '../../crds/definitions.ts';
import type { UserInfo } from '../../request.ts';
import { resourceDef } from '../iam/common.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { WORKSPACE_TEMPLATES } from '../workspaces.ts';

export const V2 = `/${TENANT_GROUP}/v1alpha2`;
export const V3 = `/${TENANT_GROUP}/v1alpha3`;
export const TAG_V2 = `${TENANT_GROUP}/v1alpha2`;
export const TAG_V3 = `${TENANT_GROUP}/v1alpha3`;

export const WORKSPACES = resourceDef(
  TENANT_GROUP,
  WORKSPACE_CRD.spec.versions[0].name,
  WORKSPACE_CRD.spec.names.plural,
  false,
);
/** Namespaces, with KubeSphere's `status` filter (the phase). */
export const NAMESPACES: ResourceDef = {
  ...resourceDef('', 'v1', 'namespaces', false),
  indexedFilters: {
    status: {
      index: 'tenant:namespace-phase',
      fn: (o) => [String((o.status as { phase?: unknown } | undefined)?.phase ?? '')],
    },
  },
};

/** Path of an object (or, without a name, its collection) in the orchestrator's API. */
export function pathOf(def: ResourceDef, name?: string): string {
  const base = collectionPath(def.ref);
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A DNS label (RFC 1123), as Kubernetes requires of namespace names and KubeSphere's console of workspace names. */
export function checkDnsLabel(def: ResourceDef, kind: string, name: string): void {
  if (name.length <= 63 && DNS_LABEL.test(name)) return;
  throw invalid(def.ref.group, kind, name, [
    {
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
      message:
        'a lowercase RFC 1123 label must consist of at most 63 lower case alphanumeric characters or "-", and must start and end with an alphanumeric character',
    },
  ]);
}

export function workspaceNotFound(name: string): never {
  throw notFound(TENANT_GROUP, WORKSPACE_TEMPLATES.name, name);
}

/** The authenticated caller (every tenant route needs one; the anonymous allow-list never reaches them). */
export function callerOf(request: FastifyRequest): UserInfo {
  if (!request.user) throw unauthorized();
  return request.user;
}
