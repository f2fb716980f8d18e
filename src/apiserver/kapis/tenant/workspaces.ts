// Workspaces: v1alpha2 `/workspaces` and v1alpha3 `/workspacetemplates` (CRUD over WorkspaceTemplates, reference
// 2.3, 2.4) and v1alpha3 `/workspaces` (reads over Workspace objects). Lists and reads show only the workspaces the
// caller is a member of, unless their bindings let them list every workspace (2.5 and stance 3: a workspace the
// caller may not see is a 404, as if it did not exist). Errors are Kubernetes Status with their own codes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { badRequest, forbidden, notFound } from '../../../k8s/status.ts';
import { type Informer, isConflict, type KubeObject } from '../../cluster/index.ts';
import { ORPHAN_FINALIZER, TEMPLATE_FINALIZER } from '../../controllers/resources.ts';
import { TENANT_GROUP } from '../../crds/definitions.ts';
import { CREATOR_ANNOTATION, WORKSPACE_LABEL } from '../../iam/labels.ts';
import { SYSTEM_NAMESPACES, SYSTEM_WORKSPACE } from '../../tenancy/builtins.ts';
import {
  fromKube,
  type IamDeps,
  json,
  nameMismatch,
  type Rec,
  rec,
  restrictNames,
  searchOf,
  success,
} from '../iam/common.ts';
import { parseListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, ListQueryString, listResult } from '../schemas.ts';
import { WORKSPACE_TEMPLATES } from '../workspaces.ts';
import { type TenantAccess, visibleWorkspaces } from './access.ts';
import { callerOf, checkDnsLabel, NAMESPACES, pathOf, TAG_V2, TAG_V3, V2, V3, WORKSPACES } from './common.ts';
import { Success, Workspace, WorkspacePatch, WorkspaceTemplate } from './schemas.ts';

const Params = Type.Object({ workspace: Type.String({ description: 'Workspace name' }) });
const PROPAGATION = new Set(['Orphan', 'Background', 'Foreground']);
const CONFLICT_RETRIES = 3;

const workspaceOf = (request: FastifyRequest) => (request.params as { workspace: string }).workspace;

/** Reads (list and get) of workspace-like objects, filtered to what the caller may see. */
function workspaceReads(deps: IamDeps, access: TenantAccess) {
  const visible = (request: FastifyRequest) => visibleWorkspaces(access, callerOf(request));
  return {
    async list(request: FastifyRequest, def: ResourceDef): Promise<Buffer> {
      const q = parseListQuery(searchOf(request), def.sortFields);
      const names = await visible(request);
      if (names) restrictNames(q, names);
      return listBody(listPage(await deps.synced(def), def, q));
    },
    async get(request: FastifyRequest, def: ResourceDef): Promise<string> {
      const name = workspaceOf(request);
      const names = await visible(request);
      const entry = (await deps.synced(def)).get('', name);
      if (!entry || (names && !names.has(name))) throw notFound(TENANT_GROUP, def.name, name);
      return entry.json;
    },
  };
}

/** A single cluster has no Cluster objects: a placement naming one names a cluster that does not exist. */
function checkPlacement(body: Rec): void {
  const clusters = rec(rec(body.spec).placement).clusters;
  if (!Array.isArray(clusters) || clusters.length === 0) return;
  const name = String(rec(clusters[0]).name ?? '');
  throw notFound('cluster.kubesphere.io', 'clusters', name);
}

/** The template to store: kind and apiVersion fixed, the creator the authenticated caller. */
function templateOf(body: unknown, creator: string): KubeObject {
  const b = rec(body);
  const metadata = rec(b.metadata);
  return {
    ...b,
    apiVersion: `${TENANT_GROUP}/${WORKSPACE_TEMPLATES.ref.version}`,
    kind: 'WorkspaceTemplate',
    metadata: { ...metadata, annotations: { ...rec(metadata.annotations), [CREATOR_ANNOTATION]: creator } },
    spec: { placement: {}, template: {}, ...rec(b.spec) },
  } as KubeObject;
}

/** `propagationPolicy` from DeleteOptions in the body or from the query (as Kubernetes accepts both). */
function propagationOf(request: FastifyRequest): string | undefined {
  const policy = rec(request.body).propagationPolicy ?? rec(request.query).propagationPolicy;
  if (policy === undefined) return undefined;
  if (typeof policy !== 'string' || !PROPAGATION.has(policy))
    throw badRequest('propagationPolicy must be one of Orphan, Background, Foreground');
  return policy;
}

export function registerWorkspaceRoutes(app: FastifyInstance, deps: IamDeps, access: TenantAccess): void {
  const reads = workspaceReads(deps, access);
  const tpl = WORKSPACE_TEMPLATES;
  const fail = (name: string) => (e: unknown) => fromKube(e, TENANT_GROUP, tpl.name, name);

  /** Namespaces a cascade would delete with the workspace: refused for the system ones. */
  async function refuseSystemCascade(name: string, namespaces: Informer): Promise<void> {
    const held = [...namespaces.keysWithLabel(WORKSPACE_LABEL, name)].filter((ns) =>
      SYSTEM_NAMESPACES.includes(ns),
    );
    if (held.length > 0) {
      throw forbidden(
        `workspace "${name}" holds system namespaces (${held.join(', ')}), which its deletion would delete: move them out first or delete with propagationPolicy Orphan`,
        { name, group: TENANT_GROUP, kind: tpl.name },
      );
    }
  }

  /** Puts the orphan finalizer on the template, so the workspace controller deletes its Workspace with Orphan. */
  async function markOrphan(name: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const current = (await deps.rest.get(pathOf(tpl, name)).catch(fail(name))) as KubeObject & {
        metadata: { finalizers?: string[] };
      };
      const finalizers = current.metadata.finalizers ?? [];
      // Without the controller's finalizer no Workspace was made from it, and nothing would remove ours.
      if (!finalizers.includes(TEMPLATE_FINALIZER) || finalizers.includes(ORPHAN_FINALIZER)) return;
      const next = {
        ...current,
        metadata: { ...current.metadata, finalizers: [...finalizers, ORPHAN_FINALIZER] },
      };
      try {
        await deps.rest.replace(pathOf(tpl, name), next);
        return;
      } catch (err) {
        if (isConflict(err) && attempt < CONFLICT_RETRIES) continue;
        fail(name)(err);
      }
    }
  }

  for (const { base, tag, op } of [
    { base: `${V2}/workspaces`, tag: TAG_V2, op: 'Workspace' },
    { base: `${V3}/workspacetemplates`, tag: TAG_V3, op: 'WorkspaceTemplate' },
  ]) {
    const one = `${base}/:workspace`;
    registerKapisRoute(app, {
      method: 'GET',
      path: base,
      schema: {
        tags: [tag],
        summary:
          'List the workspace templates the caller is a member of (all of them with the right to list workspaces)',
        operationId: `List${op}s`,
        querystring: ListQueryString,
        response: { 200: listResult(WorkspaceTemplate, 'WorkspaceTemplates'), ...errors(400, 503) },
      },
      handler: async (request, reply) => {
        const body = await reads.list(request, tpl);
        json(reply);
        return body;
      },
    });
    registerKapisRoute(app, {
      method: 'GET',
      path: one,
      schema: {
        tags: [tag],
        summary: 'Get a workspace template (404 unless the caller is a member or may list every workspace)',
        operationId: `Describe${op}`,
        params: Params,
        response: { 200: WorkspaceTemplate, ...errors(404, 503) },
      },
      handler: async (request, reply) => {
        const body = await reads.get(request, tpl);
        json(reply);
        return body;
      },
    });
    registerKapisRoute(app, {
      method: 'POST',
      path: base,
      schema: {
        tags: [tag],
        summary: 'Create a workspace template',
        description:
          'The name must be a DNS label (422). kubesphere.io/creator is set to the caller. A named placement cluster is a 404 (single cluster).',
        operationId: `Create${op}`,
        body: WorkspaceTemplate,
        response: { 200: WorkspaceTemplate, ...errors(400, 404, 409, 422, 503) },
      },
      handler: async (request) => {
        const obj = templateOf(request.body, callerOf(request).name);
        const name = String(obj.metadata?.name);
        checkDnsLabel(tpl, 'WorkspaceTemplate', name);
        checkPlacement(obj);
        return deps.rest.create(pathOf(tpl), obj).catch(fail(name));
      },
    });
    registerKapisRoute(app, {
      method: 'PUT',
      path: one,
      schema: {
        tags: [tag],
        summary: 'Replace a workspace template',
        description:
          'metadata.name must be the workspace of the path; metadata.resourceVersion makes it conditional (409 when stale).',
        operationId: `Update${op}`,
        params: Params,
        body: WorkspaceTemplate,
        response: { 200: WorkspaceTemplate, ...errors(400, 404, 409, 422, 503) },
      },
      handler: async (request) => {
        const name = workspaceOf(request);
        const body = rec(request.body);
        if (rec(body.metadata).name !== name) throw nameMismatch(rec(body.metadata).name, name);
        checkPlacement(body);
        const current = await deps.rest.get(pathOf(tpl, name)).catch(fail(name));
        const creator = current.metadata?.annotations?.[CREATOR_ANNOTATION];
        const obj = templateOf(body, creator ?? callerOf(request).name);
        if (rec(obj.metadata).resourceVersion === undefined)
          (obj.metadata as Rec).resourceVersion = current.metadata?.resourceVersion;
        return deps.rest.replace(pathOf(tpl, name), obj).catch(fail(name));
      },
    });
    registerKapisRoute(app, {
      method: 'PATCH',
      path: one,
      schema: {
        tags: [tag],
        summary: 'Patch a workspace template',
        operationId: `Patch${op}`,
        consumes: ['application/json-patch+json', 'application/merge-patch+json', 'application/json'],
        params: Params,
        body: WorkspacePatch,
        response: { 200: WorkspaceTemplate, ...errors(400, 404, 409, 415, 422, 503) },
      },
      handler: async (request) => {
        const name = workspaceOf(request);
        const type = String(request.headers['content-type'] ?? '')
          .split(';')[0]
          .trim()
          .toLowerCase();
        const isList = Array.isArray(request.body);
        if (type === 'application/json-patch+json' && !isList)
          throw badRequest('a JSON Patch (application/json-patch+json) must be a list of operations');
        if (type !== 'application/json-patch+json' && type !== 'application/json' && isList)
          throw badRequest(`a ${type} body must be an object`);
        const sendAs = isList ? 'application/json-patch+json' : 'application/merge-patch+json';
        // The patched template is checked like a created one (placement): the orchestrator applies the patch in a
        // dry run, and the result is stored only if it passes, guarded by the resourceVersion the dry run read.
        const path = pathOf(tpl, name);
        const patched = await deps.rest
          .call<KubeObject>('PATCH', `${path}?dryRun=All`, request.body, sendAs)
          .catch(fail(name));
        checkPlacement(patched as Rec);
        return deps.rest.replace(path, patched).catch(fail(name));
      },
    });
    registerKapisRoute(app, {
      method: 'DELETE',
      path: one,
      schema: {
        tags: [tag],
        summary: 'Delete a workspace template',
        description:
          'Its namespaces are deleted with it unless DeleteOptions (body) or the query say propagationPolicy: Orphan. system-workspace, and a workspace holding system namespaces (unless orphaned), cannot be deleted (403).',
        operationId: `Delete${op}`,
        params: Params,
        querystring: Type.Object({
          propagationPolicy: Type.Optional(Type.String({ description: 'Orphan keeps the namespaces' })),
        }),
        response: { 200: Success, ...errors(400, 404, 503) },
      },
      handler: async (request) => {
        const name = workspaceOf(request);
        const policy = propagationOf(request);
        if (name === SYSTEM_WORKSPACE) {
          throw forbidden(
            `workspace "${name}" is built in (it holds the system namespaces): it cannot be deleted`,
            {
              name,
              group: TENANT_GROUP,
              kind: tpl.name,
            },
          );
        }
        if (policy === 'Orphan') await markOrphan(name);
        else await refuseSystemCascade(name, await deps.synced(NAMESPACES));
        await deps.rest.delete(pathOf(tpl, name)).catch(fail(name));
        return success;
      },
    });
  }

  // v1alpha3 /workspaces: the Workspace objects the controller makes from the templates.
  registerKapisRoute(app, {
    method: 'GET',
    path: `${V3}/workspaces`,
    schema: {
      tags: [TAG_V3],
      summary:
        'List the workspaces (Workspace objects) the caller is a member of (all with the right to list workspaces)',
      operationId: 'ListWorkspaces',
      querystring: ListQueryString,
      response: { 200: listResult(Workspace, 'Workspaces'), ...errors(400, 503) },
    },
    handler: async (request, reply) => {
      const body = await reads.list(request, WORKSPACES);
      json(reply);
      return body;
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${V3}/workspaces/:workspace`,
    schema: {
      tags: [TAG_V3],
      summary: 'Get a Workspace (404 unless the caller is a member or may list every workspace)',
      operationId: 'DescribeWorkspace',
      params: Params,
      response: { 200: Workspace, ...errors(404, 503) },
    },
    handler: async (request, reply) => {
      const body = await reads.get(request, WORKSPACES);
      json(reply);
      return body;
    },
  });
}
