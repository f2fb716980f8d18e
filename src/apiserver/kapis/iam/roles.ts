// Role routes of iam.kubesphere.io/v1alpha2, one set per role type as KubeSphere v3 has them: `/globalroles`,
// `/clusterroles`, `/namespaces/{namespace}/roles` and `/workspaces/{workspace}/workspaceroles`, each with list
// (v1alpha3 query parameters plus `aggregateTo`), get, create, update, merge patch and delete. Reads come from the
// informer cache; writes go to the orchestrator after the aggregation annotation is resolved and the result passes the
// escalation check. Workspace roles belong to their workspace through its label (scoping.ts); their role templates
// belong to none, and a workspace role may aggregate only templates and roles of its own workspace.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { badRequest, forbidden, notFound } from '../../../k8s/status.ts';
import type { KubeObject } from '../../cluster/index.ts';
import { KubeError } from '../../cluster/index.ts';
import { WORKSPACE_LABEL } from '../../iam/labels.ts';
import { AGGREGATION_ANNOTATION } from '../../iam/rbac.ts';
import { parseListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, listResult, MergePatch } from '../schemas.ts';
import {
  BASE,
  fromKube,
  type IamDeps,
  json,
  nativePath,
  type Rec,
  rec,
  restrictNames,
  searchOf,
  success,
  TAG,
} from './common.ts';
import { checkEscalation, type WriteTarget } from './escalation.ts';
import {
  AGGREGATION_RULE_UNSUPPORTED,
  aggregatedRules,
  aggregationOf,
  mergePatch,
  type RoleMeta,
  roleMeta,
  templatesOf,
  validateRules,
} from './role-body.ts';
import { RoleListQuery, roleSchema, SuccessSchema } from './schemas.ts';
import { requireLabels, type Scoping } from './scoping.ts';

export interface RoleType {
  def: ResourceDef;
  kind: 'GlobalRole' | 'ClusterRole' | 'Role' | 'WorkspaceRole';
  /** Path parameter naming one role, as in KubeSphere's routes. */
  param: 'globalrole' | 'clusterrole' | 'role' | 'workspacerole';
  scoping: Scoping;
  /** Roles that cannot be changed or deleted through this API (kapiserver's built-in global roles). */
  builtin?: ReadonlySet<string>;
}

const CONFLICT_RETRIES = 3;
const TEMPLATE_LABEL = 'iam.kubesphere.io/role-template';

/** KubeSphere lists role templates instead of the workspace's roles when the query asks for them. */
function asksForTemplates(search: string): boolean {
  const params = new URLSearchParams(search);
  return (
    params.get('label') === `${TEMPLATE_LABEL}=true` ||
    (params.get('labelSelector') ?? '').includes(TEMPLATE_LABEL) ||
    params.has('aggregateTo')
  );
}

export function registerRoleRoutes(app: FastifyInstance, deps: IamDeps, type: RoleType): void {
  const { def, kind, param, scoping } = type;
  const { group, version, resource: plural } = def.ref;
  const apiVersion = `${group}/${version}`;
  const collection = `${BASE}${scoping.prefix}/${plural}`;
  const one = `${collection}/:${param}`;
  const Schema = roleSchema(kind, apiVersion);
  const CollectionParams = Type.Object(scoping.params);
  const OneParams = Type.Object({ ...scoping.params, [param]: Type.String({ description: `${kind} name` }) });
  const where = { cluster: '', namespace: ' in a namespace', workspace: ' in a workspace' }[scoping.kind];
  const inWorkspace = scoping.kind === 'workspace';

  /** The scope (namespace or workspace; 404 for a missing workspace), its namespace, and the role named. */
  const params = async (request: FastifyRequest) => {
    const scope = await scoping.of(request);
    return {
      scope,
      namespace: scoping.namespace(scope),
      name: (request.params as Record<string, string>)[param] ?? '',
    };
  };
  const target = (scope: string, name: string, verb: WriteTarget['verb']): WriteTarget => ({
    group,
    resource: plural,
    namespace: scoping.namespace(scope),
    workspace: inWorkspace ? scope : '',
    name,
    verb,
  });
  const refuseBuiltin = (name: string) => {
    if (type.builtin?.has(name)) {
      throw forbidden(
        `${plural}.${group} "${name}" is built in: it cannot be changed or deleted through this API`,
        {
          name,
          group,
          kind: plural,
        },
      );
    }
  };

  /** Role templates (no workspace) and roles of this scope may be aggregated; a role of another workspace is unknown. */
  const aggregatable = (labels: Readonly<Record<string, string>> | undefined, scope: string) =>
    !inWorkspace || labels?.[WORKSPACE_LABEL] === undefined || scoping.holds(labels, scope);

  /** The object to store: the aggregation annotation, when present, decides the rules. */
  const build = async (scope: string, meta: RoleMeta, rules: unknown, base: Rec = {}) => {
    const namespace = scoping.namespace(scope);
    const given = validateRules(rules);
    const names = aggregationOf(meta.annotations);
    let resolved = given;
    if (names) {
      const inf = await deps.synced(def);
      for (const n of names) {
        if (!aggregatable(inf.get(namespace, n)?.labels, scope)) throw notFound(group, plural, n);
      }
      resolved = aggregatedRules(inf, namespace, names, group, plural);
    }
    const metadata: Rec = { ...rec(base.metadata), name: meta.name };
    if (def.namespaced) metadata.namespace = namespace;
    for (const f of ['labels', 'annotations', 'resourceVersion'] as const) {
      if (meta[f] !== undefined) metadata[f] = meta[f];
    }
    scoping.stamp(metadata, scope);
    return { ...base, apiVersion, kind, metadata, rules: resolved };
  };

  /** The stored role; 404 when it does not belong to the scope. */
  const get = async (scope: string, name: string) => {
    const role = (await deps.rest
      .get(nativePath(def, scoping.namespace(scope), name))
      .catch((e: unknown) => fromKube(e, group, plural, name))) as KubeObject;
    if (!scoping.holds(role.metadata?.labels, scope)) throw notFound(group, plural, name);
    return role;
  };

  /** Stores `obj` with `send` once it passes the escalation check. */
  const write = async (request: FastifyRequest, t: WriteTarget, obj: Rec, send: () => Promise<unknown>) => {
    await checkEscalation(deps.ctx, request, t, obj);
    return send();
  };

  registerKapisRoute(app, {
    method: 'GET',
    path: collection,
    schema: {
      tags: [TAG],
      summary: `List ${plural}${where}`,
      description: 'aggregateTo=<role> lists the role templates that role aggregates.',
      operationId: `List${kind}s`,
      params: CollectionParams,
      querystring: RoleListQuery,
      response: { 200: listResult(Schema, `${kind}s`), ...errors(400, 503) },
    },
    handler: async (request, reply) => {
      const { scope, namespace } = await params(request);
      const search = searchOf(request);
      const q = parseListQuery(search, def.sortFields);
      const inf = await deps.synced(def);
      const aggregateTo = q.filters.get('aggregateTo');
      if (aggregateTo !== undefined) {
        q.filters.delete('aggregateTo');
        if (aggregateTo !== '') {
          const role = inf.get(namespace, aggregateTo);
          const own = role !== undefined && scoping.holds(role.labels, scope);
          restrictNames(q, own ? templatesOf(inf, namespace, aggregateTo).map((e) => e.name) : []);
        }
      }
      // A workspace lists its own roles, or role templates (which belong to no workspace), never another's roles.
      if (inWorkspace)
        requireLabels(q, asksForTemplates(search) ? `!${WORKSPACE_LABEL}` : scoping.selector(scope));
      const page = listPage(inf, def, q, def.namespaced ? namespace : undefined);
      json(reply);
      return listBody(page);
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: one,
    schema: {
      tags: [TAG],
      summary: `Get a ${kind}`,
      operationId: `Describe${kind}`,
      params: OneParams,
      response: { 200: Schema, ...errors(404, 503) },
    },
    handler: async (request, reply) => {
      const { scope, namespace, name } = await params(request);
      const e = (await deps.synced(def)).get(namespace, name);
      if (!e || !scoping.holds(e.labels, scope)) throw notFound(group, plural, name);
      json(reply);
      return e.json;
    },
  });
  registerKapisRoute(app, {
    method: 'POST',
    path: collection,
    schema: {
      tags: [TAG],
      summary: `Create a ${kind}${where}`,
      description: `With the ${AGGREGATION_ANNOTATION} annotation (a JSON list of role template names) the rules are those of the templates. Nobody may create a role granting more than they hold.`,
      operationId: `Create${kind}`,
      params: CollectionParams,
      body: Schema,
      response: { 200: Schema, ...errors(400, 404, 409, 503) },
    },
    handler: async (request) => {
      const { scope, namespace } = await params(request);
      const meta = roleMeta(request.body);
      const obj = await build(scope, { ...meta, resourceVersion: undefined }, rec(request.body).rules);
      return write(request, target(scope, meta.name, 'create'), obj, () =>
        deps.rest
          .create(nativePath(def, namespace), obj)
          .catch((e: unknown) => fromKube(e, group, plural, meta.name)),
      );
    },
  });
  registerKapisRoute(app, {
    method: 'PUT',
    path: one,
    schema: {
      tags: [TAG],
      summary: `Update a ${kind}`,
      description:
        'Replaces rules (or re-resolves the aggregation annotation); labels and annotations absent from the body are kept. A metadata.resourceVersion in the body makes the update conditional (409 when stale).',
      operationId: `Update${kind}`,
      params: OneParams,
      body: Schema,
      response: { 200: Schema, ...errors(400, 404, 409, 503) },
    },
    handler: async (request) => {
      const { scope, namespace, name } = await params(request);
      const meta = roleMeta(request.body, name);
      refuseBuiltin(meta.name);
      const current = await get(scope, meta.name);
      if (current.aggregationRule !== undefined) throw badRequest(AGGREGATION_RULE_UNSUPPORTED);
      const effective: RoleMeta = {
        ...meta,
        labels: meta.labels ?? current.metadata?.labels,
        annotations: meta.annotations ?? current.metadata?.annotations,
        resourceVersion: meta.resourceVersion ?? current.metadata?.resourceVersion,
      };
      const obj = await build(scope, effective, rec(request.body).rules, current);
      return write(request, target(scope, meta.name, 'update'), obj, () =>
        deps.rest
          .replace(nativePath(def, namespace, meta.name), obj)
          .catch((e: unknown) => fromKube(e, group, plural, meta.name)),
      );
    },
  });
  registerKapisRoute(app, {
    method: 'PATCH',
    path: one,
    schema: {
      tags: [TAG],
      summary: `Patch a ${kind}`,
      description:
        'JSON merge patch (application/merge-patch+json or application/json). A role with the aggregation annotation keeps its rules unless the patch sets the annotation, which re-resolves them (as KubeSphere).',
      operationId: `Patch${kind}`,
      consumes: [
        'application/merge-patch+json',
        'application/json',
        'application/strategic-merge-patch+json',
      ],
      params: OneParams,
      body: MergePatch,
      response: { 200: Schema, ...errors(400, 404, 409, 503) },
    },
    handler: async (request) => {
      const { scope, namespace, name } = await params(request);
      const patch = request.body as Rec;
      refuseBuiltin(name);
      const annotationsPatched = AGGREGATION_ANNOTATION in rec(rec(patch.metadata).annotations);
      const pinned = typeof rec(patch.metadata).resourceVersion === 'string';
      for (let attempt = 0; ; attempt++) {
        const current = await get(scope, name);
        const merged = rec(mergePatch(current, patch));
        const meta = roleMeta(merged, name);
        const keepRules = !annotationsPatched && aggregationOf(meta.annotations) !== undefined;
        validateRules(merged.rules);
        const obj = keepRules
          ? ({ ...merged, rules: current.rules ?? [] } as Rec)
          : await build(scope, meta, merged.rules, merged);
        if (def.namespaced) rec(obj.metadata).namespace = namespace;
        scoping.stamp(rec(obj.metadata), scope);
        try {
          return await write(request, target(scope, name, 'patch'), obj, () =>
            deps.rest.replace(nativePath(def, namespace, name), obj),
          );
        } catch (err) {
          if (err instanceof KubeError && err.code === 409 && !pinned && attempt < CONFLICT_RETRIES) continue;
          fromKube(err, group, plural, name);
        }
      }
    },
  });
  registerKapisRoute(app, {
    method: 'DELETE',
    path: one,
    schema: {
      tags: [TAG],
      summary: `Delete a ${kind}`,
      operationId: `Delete${kind}`,
      params: OneParams,
      response: { 200: SuccessSchema, ...errors(404) },
    },
    handler: async (request) => {
      const { scope, namespace, name } = await params(request);
      refuseBuiltin(name);
      if (inWorkspace) await get(scope, name);
      await deps.rest
        .delete(nativePath(def, namespace, name))
        .catch((e: unknown) => fromKube(e, group, plural, name));
      return success;
    },
  });
}
