// Namespaces (projects) through the tenant API (reference 2.3, 2.5, 2.6): the caller's namespaces, a workspace's,
// a member's, and create/read/update/patch/delete of one namespace of a workspace. Unlike KubeSphere, the workspace
// must exist, a body labelling the namespace into another workspace is refused (422) instead of overwritten, and the
// creator annotation is the authenticated caller whatever the body says (stance 7: the namespace controller makes
// the creator its admin).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { forbidden, invalid, notFound } from '../../../k8s/status.ts';
import type { KubeObject } from '../../cluster/index.ts';
import { TENANT_GROUP } from '../../crds/definitions.ts';
import { CREATOR_ANNOTATION, WORKSPACE_LABEL } from '../../iam/labels.ts';
import type { UserInfo } from '../../request.ts';
import { SYSTEM_NAMESPACES } from '../../tenancy/builtins.ts';
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
import { mergePatch } from '../iam/role-body.ts';
import { parseListQuery } from '../query.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, ListQueryString, listResult, MergePatch } from '../schemas.ts';
import { WORKSPACE_TEMPLATES } from '../workspaces.ts';
import { type TenantAccess, visibleNamespaces, visibleWorkspaces } from './access.ts';
import { callerOf, checkDnsLabel, NAMESPACES, pathOf, TAG_V2, V2, workspaceNotFound } from './common.ts';
import { Namespace, Success } from './schemas.ts';

const WsParams = Type.Object({ workspace: Type.String({ description: 'Workspace name' }) });
const NsParams = Type.Object({
  ...WsParams.properties,
  namespace: Type.String({ description: 'Namespace name' }),
});
const MemberParams = Type.Object({
  ...WsParams.properties,
  workspacemember: Type.String({ description: 'User name' }),
});

const paramsOf = (request: FastifyRequest) => request.params as Record<string, string>;

/** The workspace label of a body: absent or this workspace; another workspace, or a removal, is refused. */
function checkLabel(workspace: string, name: string, labels: unknown): void {
  if (!labels || typeof labels !== 'object' || !(WORKSPACE_LABEL in labels)) return;
  const value = (labels as Rec)[WORKSPACE_LABEL];
  if (value === workspace) return;
  throw invalid('', 'Namespace', name, [
    {
      field: `metadata.labels[${WORKSPACE_LABEL}]`,
      reason: 'FieldValueInvalid',
      message: `must be "${workspace}", the workspace of the path (a namespace moves between workspaces through its label in /api)`,
    },
  ]);
}

export function registerNamespaceRoutes(app: FastifyInstance, deps: IamDeps, access: TenantAccess): void {
  const fail = (name: string) => (e: unknown) => fromKube(e, '', 'namespaces', name);

  /** Lists namespaces, narrowed to `names` (undefined: no narrowing) and to `workspace` when given. */
  async function list(request: FastifyRequest, names: Set<string> | undefined, workspace?: string) {
    const q = parseListQuery(searchOf(request), NAMESPACES.sortFields);
    if (workspace !== undefined) q.filters.set('label', `${WORKSPACE_LABEL}=${workspace}`);
    if (names) restrictNames(q, names);
    return listBody(listPage(await deps.synced(NAMESPACES), NAMESPACES, q));
  }

  /** 404 unless the workspace exists (read from the orchestrator: one created a moment ago counts). */
  async function requireWorkspace(workspace: string): Promise<void> {
    await deps.rest
      .get(pathOf(WORKSPACE_TEMPLATES, workspace))
      .catch((e: unknown) => fromKube(e, TENANT_GROUP, WORKSPACE_TEMPLATES.name, workspace));
  }

  /** The namespace as stored, if it belongs to the workspace; else 404, as if it did not exist. */
  async function namespaceIn(workspace: string, name: string): Promise<KubeObject> {
    const ns = await deps.rest.get(pathOf(NAMESPACES, name)).catch(fail(name));
    if (ns.metadata?.labels?.[WORKSPACE_LABEL] !== workspace) throw notFound('', 'namespaces', name);
    return ns;
  }

  /** A member-namespace list needs membership of the workspace, or the right to see every workspace. */
  async function requireMembership(user: UserInfo, workspace: string): Promise<void> {
    const visible = await visibleWorkspaces(access, user);
    if (visible && !visible.has(workspace)) workspaceNotFound(workspace);
  }

  registerKapisRoute(app, {
    method: 'GET',
    path: `${V2}/namespaces`,
    schema: {
      tags: [TAG_V2],
      summary: 'List the namespaces the caller is bound in (all with the right to list namespaces)',
      operationId: 'ListNamespaces',
      querystring: ListQueryString,
      response: { 200: listResult(Namespace, 'Namespaces'), ...errors(400, 503) },
    },
    handler: async (request, reply) => {
      const user = callerOf(request);
      const all = await access.seesAll(
        user,
        { apiGroup: '', resource: 'namespaces' },
        { kind: 'cluster', name: '' },
      );
      const body = await list(request, all ? undefined : await access.namespacesOf(user));
      json(reply);
      return body;
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${V2}/workspaces/:workspace/namespaces`,
    schema: {
      tags: [TAG_V2],
      summary: "List a workspace's namespaces the caller may see",
      operationId: 'ListWorkspaceNamespaces',
      params: WsParams,
      querystring: ListQueryString,
      response: { 200: listResult(Namespace, 'Namespaces'), ...errors(400, 503) },
    },
    handler: async (request, reply) => {
      const { workspace } = paramsOf(request);
      const names = await visibleNamespaces(access, callerOf(request), workspace);
      const body = await list(request, names, workspace);
      json(reply);
      return body;
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${V2}/workspaces/:workspace/workspacemembers/:workspacemember/namespaces`,
    schema: {
      tags: [TAG_V2],
      summary:
        "List the namespaces of a workspace a member may see (the member's groups do not count, as KubeSphere)",
      description:
        'The caller must be a member of the workspace or may list every workspace (404 otherwise).',
      operationId: 'ListWorkspaceMemberNamespaces',
      params: MemberParams,
      querystring: ListQueryString,
      response: { 200: listResult(Namespace, 'Namespaces'), ...errors(400, 404, 503) },
    },
    handler: async (request, reply) => {
      const { workspace, workspacemember } = paramsOf(request);
      await requireMembership(callerOf(request), workspace);
      const member: UserInfo = { name: workspacemember, groups: [] };
      const names = await visibleNamespaces(access, member, workspace);
      const body = await list(request, names, workspace);
      json(reply);
      return body;
    },
  });
  registerKapisRoute(app, {
    method: 'POST',
    path: `${V2}/workspaces/:workspace/namespaces`,
    schema: {
      tags: [TAG_V2],
      summary: 'Create a namespace in a workspace',
      description: `The workspace must exist (404). The name must be a DNS label (422); ${WORKSPACE_LABEL} is set to the workspace (a body naming another is a 422); ${CREATOR_ANNOTATION} is set to the caller, who becomes the namespace's admin.`,
      operationId: 'CreateWorkspaceNamespace',
      params: WsParams,
      body: Namespace,
      response: { 200: Namespace, ...errors(400, 404, 409, 422, 503) },
    },
    handler: async (request) => {
      const { workspace } = paramsOf(request);
      const body = rec(request.body);
      const meta = rec(body.metadata);
      const name = String(meta.name);
      checkDnsLabel(NAMESPACES, 'Namespace', name);
      checkLabel(workspace, name, meta.labels);
      await requireWorkspace(workspace);
      const obj = {
        ...body,
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          ...meta,
          labels: { ...rec(meta.labels), [WORKSPACE_LABEL]: workspace },
          annotations: { ...rec(meta.annotations), [CREATOR_ANNOTATION]: callerOf(request).name },
        },
      };
      return deps.rest.create(pathOf(NAMESPACES), obj).catch(fail(name));
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${V2}/workspaces/:workspace/namespaces/:namespace`,
    schema: {
      tags: [TAG_V2],
      summary: 'Get a namespace of a workspace (404 when it is in another one)',
      operationId: 'DescribeWorkspaceNamespace',
      params: NsParams,
      response: { 200: Namespace, ...errors(404, 503) },
    },
    handler: async (request, reply) => {
      const { workspace, namespace } = paramsOf(request);
      const entry = (await deps.synced(NAMESPACES)).get('', namespace);
      if (entry?.labels?.[WORKSPACE_LABEL] !== workspace) throw notFound('', 'namespaces', namespace);
      json(reply);
      return entry.json;
    },
  });
  registerKapisRoute(app, {
    method: 'PUT',
    path: `${V2}/workspaces/:workspace/namespaces/:namespace`,
    schema: {
      tags: [TAG_V2],
      summary: 'Replace a namespace of a workspace',
      description: `The workspace label stays (a body naming another workspace is a 422); ${CREATOR_ANNOTATION} keeps its stored value.`,
      operationId: 'UpdateWorkspaceNamespace',
      params: NsParams,
      body: Namespace,
      response: { 200: Namespace, ...errors(400, 404, 409, 422, 503) },
    },
    handler: async (request) => {
      const { workspace, namespace } = paramsOf(request);
      const body = rec(request.body);
      const meta = rec(body.metadata);
      if (meta.name !== namespace) throw nameMismatch(meta.name, namespace);
      checkLabel(workspace, namespace, meta.labels);
      const current = await namespaceIn(workspace, namespace);
      const obj = {
        ...body,
        metadata: {
          ...meta,
          resourceVersion: meta.resourceVersion ?? current.metadata?.resourceVersion,
          labels: { ...rec(meta.labels), [WORKSPACE_LABEL]: workspace },
          annotations: withStoredCreator(meta.annotations, current),
        },
      };
      return deps.rest.replace(pathOf(NAMESPACES, namespace), obj).catch(fail(namespace));
    },
  });
  registerKapisRoute(app, {
    method: 'PATCH',
    path: `${V2}/workspaces/:workspace/namespaces/:namespace`,
    schema: {
      tags: [TAG_V2],
      summary: 'Patch a namespace of a workspace (JSON merge patch)',
      description: `The workspace label stays (a patch changing or removing it is a 422); ${CREATOR_ANNOTATION} cannot be changed.`,
      operationId: 'PatchWorkspaceNamespace',
      consumes: [
        'application/merge-patch+json',
        'application/json',
        'application/strategic-merge-patch+json',
      ],
      params: NsParams,
      body: MergePatch,
      response: { 200: Namespace, ...errors(400, 404, 409, 422, 503) },
    },
    handler: async (request) => {
      const { workspace, namespace } = paramsOf(request);
      const patch = rec(request.body);
      checkLabel(workspace, namespace, rec(patch.metadata).labels);
      const current = await namespaceIn(workspace, namespace);
      const merged = rec(mergePatch(current, patch));
      const meta = rec(merged.metadata);
      // The stored version pins the write: a concurrent move to another workspace makes it a 409, not a leak.
      const obj = {
        ...merged,
        metadata: {
          ...meta,
          name: namespace,
          resourceVersion: current.metadata?.resourceVersion,
          annotations: withStoredCreator(meta.annotations, current),
        },
      };
      return deps.rest.replace(pathOf(NAMESPACES, namespace), obj).catch(fail(namespace));
    },
  });
  registerKapisRoute(app, {
    method: 'DELETE',
    path: `${V2}/workspaces/:workspace/namespaces/:namespace`,
    schema: {
      tags: [TAG_V2],
      summary: 'Delete a namespace of a workspace (system namespaces cannot be deleted: 403)',
      operationId: 'DeleteWorkspaceNamespace',
      params: NsParams,
      response: { 200: Success, ...errors(404, 503) },
    },
    handler: async (request) => {
      const { workspace, namespace } = paramsOf(request);
      await namespaceIn(workspace, namespace);
      if (SYSTEM_NAMESPACES.includes(namespace))
        throw forbidden(`namespace "${namespace}" is a system namespace: it cannot be deleted`, {
          name: namespace,
          kind: 'namespaces',
        });
      await deps.rest.delete(pathOf(NAMESPACES, namespace)).catch(fail(namespace));
      return success;
    },
  });
}

/** `annotations` with the creator as stored (or none when none is stored): a write never changes who created it. */
function withStoredCreator(annotations: unknown, stored: KubeObject): Rec {
  const { [CREATOR_ANNOTATION]: _given, ...rest } = rec(annotations);
  const creator = stored.metadata?.annotations?.[CREATOR_ANNOTATION];
  return creator === undefined ? rest : { ...rest, [CREATOR_ANNOTATION]: creator };
}
