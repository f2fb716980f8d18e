// Groups of a workspace and their bindings, as KubeSphere v3 serves them: `/workspaces/{workspace}/groups` (list,
// create with generateName, get, update, merge patch, delete) and `/workspaces/{workspace}/groupbindings` (list,
// create an array, delete). A group's parent (label iam.kubesphere.io/group-parent) must be a group of the same
// workspace and the parent chain may not loop (422). A group binding needs a group of this workspace and an existing
// user (404; KubeSphere checks neither), and putting a user into a group needs the rights that group's bindings grant
// (403). The GroupBinding controller then adds the group to the user's spec.groups.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { alreadyExists, badRequest, invalid, notFound } from '../../../k8s/status.ts';
import type { Informer, KubeObject } from '../../cluster/index.ts';
import { KubeError } from '../../cluster/index.ts';
import { GROUP_REF_LABEL, USER_REF_LABEL } from '../../iam/labels.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, listResult, MergePatch } from '../schemas.ts';
import {
  BASE,
  checkName,
  fromKube,
  GROUP,
  GROUP_BINDINGS,
  GROUPS,
  type IamDeps,
  isObject,
  json,
  nameMismatch,
  nativePath,
  type Rec,
  rec,
  success,
  TAG,
  USERS,
} from './common.ts';
import { checkGroupJoin } from './escalation.ts';
import { mergePatch } from './role-body.ts';
import { SuccessSchema } from './schemas.ts';
import { listIn, type Scoping } from './scoping.ts';

export const GROUP_PARENT_LABEL = 'iam.kubesphere.io/group-parent';
const CONFLICT_RETRIES = 3;
/** Deeper chains are refused as if they looped: a hierarchy is a few levels deep. */
const MAX_DEPTH = 64;

const GroupSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ default: `${GROUP}/v1alpha2` })),
    kind: Type.Optional(Type.String({ default: 'Group' })),
    metadata: Type.Object(
      {
        name: Type.Optional(Type.String()),
        generateName: Type.Optional(
          Type.String({ description: 'Required on create: the group name prefix' }),
        ),
        labels: Type.Optional(Type.Object({}, { additionalProperties: Type.String() })),
        annotations: Type.Optional(Type.Object({}, { additionalProperties: Type.String() })),
        resourceVersion: Type.Optional(Type.String()),
      },
      { additionalProperties: true },
    ),
    spec: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { title: 'Group', additionalProperties: true },
);
const GroupBindingRequest = Type.Object(
  { userName: Type.String(), groupName: Type.String() },
  { title: 'GroupBindingRequest' },
);

export function registerGroupRoutes(app: FastifyInstance, deps: IamDeps, scoping: Scoping): void {
  const { rest, synced } = deps;
  const groups = `${BASE}${scoping.prefix}/groups`;
  const bindings = `${BASE}${scoping.prefix}/groupbindings`;
  const Params = Type.Object(scoping.params);
  const GroupParams = Type.Object({ ...scoping.params, group: Type.String({ description: 'Group name' }) });
  const BindingParams = Type.Object({ ...scoping.params, groupbinding: Type.String() });
  const fail = (resource: string, name: string) => (e: unknown) => fromKube(e, GROUP, resource, name);

  /** The stored group; 404 when it is not a group of the workspace. */
  const getGroup = async (place: string, name: string) => {
    const g = (await rest.get(nativePath(GROUPS, '', name)).catch(fail(GROUPS.name, name))) as KubeObject;
    if (!scoping.holds(g.metadata?.labels, place)) throw notFound(GROUP, GROUPS.name, name);
    return g;
  };

  /** 404 for a parent outside the workspace, 422 for a parent chain that comes back to the group (or never ends). */
  const checkParent = (inf: Informer, place: string, name: string, labels: Rec) => {
    const parent = labels[GROUP_PARENT_LABEL];
    if (parent === undefined || parent === '') return;
    const looping = () =>
      invalid(GROUP, 'Group', name, [
        {
          field: `metadata.labels[${GROUP_PARENT_LABEL}]`,
          reason: 'FieldValueInvalid',
          message: `the parent chain of group "${name}" loops through "${parent}"`,
        },
      ]);
    const first = inf.get('', String(parent));
    if (!first || !scoping.holds(first.labels, place)) throw notFound(GROUP, GROUPS.name, String(parent));
    const seen = new Set<string>();
    for (
      let at: string | undefined = String(parent);
      at;
      at = inf.get('', at)?.labels?.[GROUP_PARENT_LABEL]
    ) {
      if (at === name || seen.has(at) || seen.size >= MAX_DEPTH) throw looping();
      seen.add(at);
    }
  };

  /** Labels, owner and parent check for a group about to be stored. */
  const prepare = async (place: string, name: string, obj: Rec): Promise<Rec> => {
    const metadata = rec(obj.metadata);
    if (metadata.labels !== undefined && !isObject(metadata.labels))
      throw badRequest('metadata.labels must be a map of strings');
    scoping.stamp(metadata, place);
    checkParent(await synced(GROUPS), place, name, rec(metadata.labels));
    return { ...obj, apiVersion: `${GROUP}/${GROUPS.ref.version}`, kind: 'Group', metadata };
  };

  registerKapisRoute(app, {
    method: 'GET',
    path: groups,
    schema: {
      tags: [TAG],
      summary: 'List the groups of a workspace',
      operationId: 'ListWorkspaceGroups',
      params: Params,
      querystring: Type.Object({}, { additionalProperties: Type.String() }),
      response: { 200: listResult(GroupSchema, 'Groups'), ...errors(400, 404, 503) },
    },
    handler: async (request, reply) => {
      const body = await listIn(scoping, synced, GROUPS, request);
      json(reply);
      return body;
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${groups}/:group`,
    schema: {
      tags: [TAG],
      summary: 'Get a group of a workspace',
      operationId: 'DescribeWorkspaceGroup',
      params: GroupParams,
      response: { 200: GroupSchema, ...errors(404, 503) },
    },
    handler: async (request, reply) => {
      const place = await scoping.of(request);
      const { group } = request.params as { group: string };
      const e = (await synced(GROUPS)).get('', group);
      if (!e || !scoping.holds(e.labels, place)) throw notFound(GROUP, GROUPS.name, group);
      json(reply);
      return e.json;
    },
  });
  registerKapisRoute(app, {
    method: 'POST',
    path: groups,
    schema: {
      tags: [TAG],
      summary: 'Create a group in a workspace',
      description:
        'metadata.generateName is required (422 without); the name is generated from it. 409 when another group of the workspace was created with the same generateName.',
      operationId: 'CreateWorkspaceGroup',
      params: Params,
      body: GroupSchema,
      response: { 200: GroupSchema, ...errors(400, 404, 409, 422, 503) },
    },
    handler: async (request) => {
      const place = await scoping.of(request);
      const body = request.body as Rec;
      const meta = rec(body.metadata);
      const prefix = meta.generateName;
      if (typeof prefix !== 'string' || prefix === '') {
        throw invalid(GROUP, 'Group', '', [
          { field: 'metadata.generateName', reason: 'FieldValueRequired', message: 'Required value' },
        ]);
      }
      const taken = [...(await synced(GROUPS)).entries()].some(
        (e) => scoping.holds(e.labels, place) && e.object().metadata?.generateName === prefix,
      );
      if (taken) throw alreadyExists(GROUP, GROUPS.name, prefix);
      const { name: _ignored, resourceVersion: _rv, ...metadata } = meta;
      const obj = await prepare(place, '', { ...body, metadata });
      return rest.create(nativePath(GROUPS, ''), obj).catch(fail(GROUPS.name, prefix));
    },
  });
  const write = (method: 'PUT' | 'PATCH') =>
    registerKapisRoute(app, {
      method,
      path: `${groups}/:group`,
      schema: {
        tags: [TAG],
        summary: method === 'PUT' ? 'Update a group of a workspace' : 'Patch a group of a workspace',
        description:
          method === 'PUT'
            ? 'metadata.name must match the path; the workspace label is kept.'
            : 'JSON merge patch; the workspace label is kept.',
        operationId: method === 'PUT' ? 'UpdateWorkspaceGroup' : 'PatchWorkspaceGroup',
        ...(method === 'PATCH' && {
          consumes: [
            'application/merge-patch+json',
            'application/json',
            'application/strategic-merge-patch+json',
          ],
        }),
        params: GroupParams,
        body: method === 'PUT' ? GroupSchema : MergePatch,
        response: { 200: GroupSchema, ...errors(400, 404, 409, 422, 503) },
      },
      handler: async (request) => {
        const place = await scoping.of(request);
        const { group } = request.params as { group: string };
        const body = request.body as Rec;
        if (method === 'PUT') {
          const given = rec(body.metadata).name;
          if (given !== undefined && given !== group) {
            throw nameMismatch(given, group);
          }
        }
        const pinned = typeof rec(body.metadata).resourceVersion === 'string';
        for (let attempt = 0; ; attempt++) {
          const current = await getGroup(place, group);
          const next =
            method === 'PUT'
              ? { ...body, metadata: { ...rec(current.metadata), ...rec(body.metadata), name: group } }
              : rec(mergePatch(current, body));
          const obj = await prepare(place, group, next);
          try {
            return await rest.replace(nativePath(GROUPS, '', group), obj);
          } catch (err) {
            if (err instanceof KubeError && err.code === 409 && !pinned && attempt < CONFLICT_RETRIES)
              continue;
            fail(GROUPS.name, group)(err);
          }
        }
      },
    });
  write('PUT');
  write('PATCH');
  registerKapisRoute(app, {
    method: 'DELETE',
    path: `${groups}/:group`,
    schema: {
      tags: [TAG],
      summary: 'Delete a group of a workspace',
      operationId: 'DeleteWorkspaceGroup',
      params: GroupParams,
      response: { 200: SuccessSchema, ...errors(404, 503) },
    },
    handler: async (request) => {
      const place = await scoping.of(request);
      const { group } = request.params as { group: string };
      await getGroup(place, group);
      await rest.delete(nativePath(GROUPS, '', group)).catch(fail(GROUPS.name, group));
      return success;
    },
  });

  registerKapisRoute(app, {
    method: 'GET',
    path: bindings,
    schema: {
      tags: [TAG],
      summary: 'List the group bindings of a workspace',
      operationId: 'ListWorkspaceGroupBindings',
      params: Params,
      querystring: Type.Object({}, { additionalProperties: Type.String() }),
      response: { 200: listResult(KubeObjectSchema, 'GroupBindings'), ...errors(400, 404, 503) },
    },
    handler: async (request, reply) => {
      const body = await listIn(scoping, synced, GROUP_BINDINGS, request);
      json(reply);
      return body;
    },
  });
  registerKapisRoute(app, {
    method: 'POST',
    path: bindings,
    schema: {
      tags: [TAG],
      summary: 'Put users into groups of a workspace',
      description:
        'One GroupBinding per item. The group must be a group of this workspace and the user must exist (404); nobody may put a user into a group whose bindings grant more than they hold (403). Every item is checked before anything is written.',
      operationId: 'CreateWorkspaceGroupBindings',
      params: Params,
      body: Type.Array(GroupBindingRequest),
      response: { 200: Type.Array(KubeObjectSchema), ...errors(400, 404, 409, 503) },
    },
    handler: async (request: FastifyRequest) => {
      const place = await scoping.of(request);
      const wanted = (request.body as { userName: string; groupName: string }[]).map((w, i) => ({
        user: checkName(`[${i}].userName`, w.userName),
        group: checkName(`[${i}].groupName`, w.groupName),
      }));
      const groupInf = await synced(GROUPS);
      const users = await synced(USERS);
      for (const w of wanted) {
        const g = groupInf.get('', w.group);
        if (!g || !scoping.holds(g.labels, place)) throw notFound(GROUP, GROUPS.name, w.group);
        if (!users.get('', w.user)) throw notFound(GROUP, USERS.name, w.user);
        await checkGroupJoin(
          deps.ctx,
          request,
          {
            group: GROUP,
            resource: GROUP_BINDINGS.name,
            namespace: '',
            workspace: place,
            name: '',
            verb: 'create',
          },
          w.group,
        );
      }
      const out: KubeObject[] = [];
      for (const w of wanted) {
        const metadata: Rec = {
          generateName: `${w.group}-${w.user}-`,
          labels: { [USER_REF_LABEL]: w.user, [GROUP_REF_LABEL]: w.group },
        };
        scoping.stamp(metadata, place);
        const obj = {
          apiVersion: `${GROUP}/${GROUP_BINDINGS.ref.version}`,
          kind: 'GroupBinding',
          metadata,
          groupRef: { apiGroup: GROUP, kind: 'groups', name: w.group },
          users: [w.user],
        };
        out.push(
          (await rest
            .create(nativePath(GROUP_BINDINGS, ''), obj)
            .catch(fail(GROUP_BINDINGS.name, w.group))) as KubeObject,
        );
      }
      return out;
    },
  });
  registerKapisRoute(app, {
    method: 'DELETE',
    path: `${bindings}/:groupbinding`,
    schema: {
      tags: [TAG],
      summary: 'Delete a group binding of a workspace',
      operationId: 'DeleteWorkspaceGroupBinding',
      params: BindingParams,
      response: { 200: SuccessSchema, ...errors(404, 503) },
    },
    handler: async (request) => {
      const place = await scoping.of(request);
      const { groupbinding: name } = request.params as { groupbinding: string };
      const path = nativePath(GROUP_BINDINGS, '', name);
      const current = (await rest.get(path).catch(fail(GROUP_BINDINGS.name, name))) as KubeObject;
      if (!scoping.holds(current.metadata?.labels, place)) throw notFound(GROUP, GROUP_BINDINGS.name, name);
      await rest.delete(path).catch(fail(GROUP_BINDINGS.name, name));
      return success;
    },
  });
}
