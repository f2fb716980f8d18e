// Role bindings written as objects (not through members): `/workspaces/{workspace}/workspacerolebindings` (list,
// create an array, delete) and `/namespaces/{namespace}/rolebindings` (create an array, delete), as KubeSphere v3 has
// them, plus `/workspaces/{workspace}/rolebindings` (the RoleBindings of the workspace's namespaces, a plain array).
// Every binding must name a role of its own scope (404), at least one subject (422), and grant nothing the caller
// does not hold (403); it gets the owner label of its first subject. Nothing is written unless every item passes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { invalid, notFound } from '../../../k8s/status.ts';
import type { KubeObject } from '../../cluster/index.ts';
import { GROUP_REF_LABEL, USER_REF_LABEL, WORKSPACE_LABEL } from '../../iam/labels.ts';
import { parseListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, listResult } from '../schemas.ts';
import { WORKSPACE_ROLE_BINDINGS } from '../workspaces.ts';
import {
  BASE,
  fromKube,
  type IamDeps,
  json,
  NAMESPACES,
  nativePath,
  type Rec,
  ROLE_BINDINGS,
  ROLES,
  rec,
  searchOf,
  success,
  TAG,
  WORKSPACE_ROLES,
} from './common.ts';
import { checkEscalation } from './escalation.ts';
import { SuccessSchema } from './schemas.ts';
import { listIn, NAMESPACE, type Scoping } from './scoping.ts';

interface BindingScope {
  scoping: Scoping;
  def: ResourceDef;
  roles: ResourceDef;
  kind: 'RoleBinding' | 'WorkspaceRoleBinding';
  roleKind: 'Role' | 'WorkspaceRole';
  op: string;
}

const BindingSchema = (kind: string) =>
  Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String({ default: kind })),
      metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
      roleRef: Type.Object(
        {
          apiGroup: Type.Optional(Type.String()),
          kind: Type.Optional(Type.String()),
          name: Type.String(),
        },
        { additionalProperties: true },
      ),
      subjects: Type.Array(
        Type.Object(
          {
            kind: Type.String({ description: 'User, Group or ServiceAccount' }),
            name: Type.String(),
            apiGroup: Type.Optional(Type.String()),
            namespace: Type.Optional(Type.String()),
          },
          { additionalProperties: true },
        ),
      ),
    },
    { title: kind, additionalProperties: true },
  );

function registerBindingWrites(app: FastifyInstance, deps: IamDeps, b: BindingScope): void {
  const { scoping, def, roles, kind, roleKind } = b;
  const { group, version, resource: plural } = def.ref;
  const collection = `${BASE}${scoping.prefix}/${plural}`;
  const Params = Type.Object(scoping.params);
  const OneParams = Type.Object({ ...scoping.params, name: Type.String({ description: `${kind} name` }) });
  const inWorkspace = scoping.kind === 'workspace';

  /** The object to create from one untrusted item; 404/422/403 when it may not be. */
  const prepare = async (request: FastifyRequest, place: string, item: Rec, i: number): Promise<Rec> => {
    const namespace = scoping.namespace(place);
    const ref = rec(item.roleRef);
    const roleName = ref.name as string;
    const refuse = (field: string, message: string): never => {
      throw invalid(group, kind, String(rec(item.metadata).name ?? ''), [
        { field: `[${i}].${field}`, reason: 'FieldValueInvalid', message },
      ]);
    };
    if ((ref.kind ?? roleKind) !== roleKind) refuse('roleRef.kind', `must be ${roleKind}`);
    const subjects = item.subjects as Rec[];
    if (subjects.length === 0) refuse('subjects', 'a binding needs at least one subject');
    const role = (await deps.synced(roles)).get(namespace, roleName);
    if (!role || !scoping.holds(role.labels, place)) throw notFound(roles.ref.group, roles.name, roleName);
    const first = subjects[0];
    const ownerLabel = first.kind === 'Group' ? GROUP_REF_LABEL : USER_REF_LABEL;
    const meta = rec(item.metadata);
    const metadata: Rec = {
      ...(typeof meta.name === 'string' && meta.name !== ''
        ? { name: meta.name }
        : { generateName: `${first.name}-${roleName}-` }),
      ...(def.namespaced ? { namespace } : {}),
      labels: { ...rec(meta.labels), [ownerLabel]: String(first.name) },
      ...(meta.annotations !== undefined ? { annotations: meta.annotations } : {}),
    };
    scoping.stamp(metadata, place);
    const obj: Rec = {
      apiVersion: `${group}/${version}`,
      kind,
      metadata,
      subjects,
      roleRef: { apiGroup: roles.ref.group, kind: roleKind, name: roleName },
    };
    await checkEscalation(
      deps.ctx,
      request,
      {
        group,
        resource: plural,
        namespace,
        workspace: inWorkspace ? place : '',
        name: String(metadata.name ?? ''),
        verb: 'create',
      },
      obj,
    );
    return obj;
  };

  if (inWorkspace) {
    registerKapisRoute(app, {
      method: 'GET',
      path: collection,
      schema: {
        tags: [TAG],
        summary: `List the ${kind}s${scoping.where}`,
        operationId: `List${b.op}s`,
        params: Params,
        querystring: Type.Object({}, { additionalProperties: Type.String() }),
        response: { 200: listResult(KubeObjectSchema, `${kind}s`), ...errors(400, 404, 503) },
      },
      handler: async (request, reply) => {
        const body = await listIn(scoping, deps.synced, def, request);
        json(reply);
        return body;
      },
    });
  }
  registerKapisRoute(app, {
    method: 'POST',
    path: collection,
    schema: {
      tags: [TAG],
      summary: `Create ${kind}s${scoping.where}`,
      description: `Each item must name a ${roleKind} of this scope and at least one subject; the name is generated from the first subject and the role unless metadata.name is given. Nobody may bind a role granting more than they hold. Every item is checked before anything is written.`,
      operationId: `Create${b.op}s`,
      params: Params,
      body: Type.Array(BindingSchema(kind)),
      response: { 200: Type.Array(KubeObjectSchema), ...errors(400, 404, 409, 422, 503) },
    },
    handler: async (request) => {
      const place = await scoping.of(request);
      const items = request.body as Rec[];
      const objects: Rec[] = [];
      for (const [i, item] of items.entries()) objects.push(await prepare(request, place, item, i));
      const created: KubeObject[] = [];
      for (const obj of objects) {
        const path = nativePath(def, scoping.namespace(place));
        created.push(
          (await deps.rest
            .create(path, obj)
            .catch((e: unknown) =>
              fromKube(e, group, plural, String(rec(obj.metadata).name ?? '')),
            )) as KubeObject,
        );
      }
      return created;
    },
  });
  registerKapisRoute(app, {
    method: 'DELETE',
    path: `${collection}/:name`,
    schema: {
      tags: [TAG],
      summary: `Delete a ${kind}${scoping.where}`,
      description: inWorkspace ? 'A binding of another workspace is not found here (404).' : undefined,
      operationId: `Delete${b.op}`,
      params: OneParams,
      response: { 200: SuccessSchema, ...errors(404, 503) },
    },
    handler: async (request) => {
      const place = await scoping.of(request);
      const { name } = request.params as { name: string };
      const path = nativePath(def, scoping.namespace(place), name);
      const fail = (e: unknown) => fromKube(e, group, plural, name);
      const current = (await deps.rest.get(path).catch(fail)) as KubeObject;
      if (!scoping.holds(current.metadata?.labels, place)) throw notFound(group, plural, name);
      await deps.rest.delete(path).catch(fail);
      return success;
    },
  });
}

export function registerRoleBindingRoutes(app: FastifyInstance, deps: IamDeps, workspace: Scoping): void {
  registerBindingWrites(app, deps, {
    scoping: workspace,
    def: WORKSPACE_ROLE_BINDINGS,
    roles: WORKSPACE_ROLES,
    kind: 'WorkspaceRoleBinding',
    roleKind: 'WorkspaceRole',
    op: 'WorkspaceRoleBinding',
  });
  registerBindingWrites(app, deps, {
    scoping: NAMESPACE,
    def: ROLE_BINDINGS,
    roles: ROLES,
    kind: 'RoleBinding',
    roleKind: 'Role',
    op: 'NamespaceRoleBinding',
  });

  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}${workspace.prefix}/rolebindings`,
    schema: {
      tags: [TAG],
      summary: "The RoleBindings of the workspace's namespaces",
      description:
        'A plain JSON array (as KubeSphere): the query (labelSelector, filters, paging) applies to each namespace in turn.',
      operationId: 'ListWorkspaceNamespaceRoleBindings',
      params: Type.Object(workspace.params),
      querystring: Type.Object({}, { additionalProperties: Type.String() }),
      response: { 200: Type.Array(KubeObjectSchema), ...errors(400, 404, 503) },
    },
    handler: async (request, reply) => {
      const place = await workspace.of(request);
      const q = parseListQuery(searchOf(request), ROLE_BINDINGS.sortFields);
      const bindings = await deps.synced(ROLE_BINDINGS);
      const out: string[] = [];
      for (const ns of (await deps.synced(NAMESPACES)).entries()) {
        if (ns.labels?.[WORKSPACE_LABEL] !== place) continue;
        for (const e of listPage(bindings, ROLE_BINDINGS, q, ns.name).entries) out.push(e.json);
      }
      json(reply);
      return `[${out.join(',')}]`;
    },
  });
}
