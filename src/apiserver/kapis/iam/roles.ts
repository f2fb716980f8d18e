// Role routes of iam.kubesphere.io/v1alpha2, one set per role type as KubeSphere v3 has them: `/globalroles`,
// `/clusterroles` and `/namespaces/{namespace}/roles`, each with list (v1alpha3 query parameters plus `aggregateTo`),
// get, create, update, merge patch and delete. Reads come from the informer cache; writes go to the orchestrator after
// the aggregation annotation is resolved and the result passes the escalation check.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { badRequest, forbidden, notFound } from '../../../k8s/status.ts';
import type { KubeObject } from '../../cluster/index.ts';
import { KubeError } from '../../cluster/index.ts';
import { AGGREGATION_ANNOTATION } from '../../iam/rbac.ts';
import { parseListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, listResult, MergePatch } from '../schemas.ts';
import {
  BASE,
  checkName,
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

export interface RoleType {
  def: ResourceDef;
  kind: 'GlobalRole' | 'ClusterRole' | 'Role';
  /** Path parameter naming one role, as in KubeSphere's routes. */
  param: 'globalrole' | 'clusterrole' | 'role';
  /** Roles that cannot be changed or deleted through this API (kapiserver's built-in global roles). */
  builtin?: ReadonlySet<string>;
}

const CONFLICT_RETRIES = 3;

export function registerRoleRoutes(app: FastifyInstance, deps: IamDeps, type: RoleType): void {
  const { def, kind, param } = type;
  const { group, version, resource: plural } = def.ref;
  const apiVersion = `${group}/${version}`;
  const collection = def.namespaced ? `${BASE}/namespaces/:namespace/${plural}` : `${BASE}/${plural}`;
  const one = `${collection}/:${param}`;
  const Schema = roleSchema(kind, apiVersion);
  const scopeParams: Record<string, TSchema> = def.namespaced
    ? { namespace: Type.String({ description: 'Namespace' }) }
    : {};
  const CollectionParams = Type.Object(scopeParams);
  const OneParams = Type.Object({ ...scopeParams, [param]: Type.String({ description: `${kind} name` }) });
  const where = def.namespaced ? ' in a namespace' : '';

  const params = (request: FastifyRequest) => {
    const p = request.params as Record<string, string>;
    return {
      namespace: def.namespaced ? checkName('namespace', p.namespace) : '',
      name: p[param] ?? '',
    };
  };
  const target = (namespace: string, name: string, verb: WriteTarget['verb']): WriteTarget => ({
    group,
    resource: plural,
    namespace,
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

  /** The object to store: the aggregation annotation, when present, decides the rules. */
  const build = async (namespace: string, meta: RoleMeta, rules: unknown, base: Rec = {}) => {
    const given = validateRules(rules);
    const names = aggregationOf(meta.annotations);
    const resolved = names ? aggregatedRules(await deps.synced(def), namespace, names, group, plural) : given;
    const metadata: Rec = { ...rec(base.metadata), name: meta.name };
    if (def.namespaced) metadata.namespace = namespace;
    for (const f of ['labels', 'annotations', 'resourceVersion'] as const) {
      if (meta[f] !== undefined) metadata[f] = meta[f];
    }
    return { ...base, apiVersion, kind, metadata, rules: resolved };
  };

  const get = async (namespace: string, name: string) =>
    (await deps.rest
      .get(nativePath(def, namespace, name))
      .catch((e: unknown) => fromKube(e, group, plural, name))) as KubeObject;

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
      const { namespace } = params(request);
      const q = parseListQuery(searchOf(request), def.sortFields);
      const inf = await deps.synced(def);
      const aggregateTo = q.filters.get('aggregateTo');
      if (aggregateTo !== undefined) {
        q.filters.delete('aggregateTo');
        if (aggregateTo !== '')
          restrictNames(
            q,
            templatesOf(inf, namespace, aggregateTo).map((e) => e.name),
          );
      }
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
      const { namespace, name } = params(request);
      const e = (await deps.synced(def)).get(namespace, name);
      if (!e) throw notFound(group, plural, name);
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
      const { namespace } = params(request);
      const meta = roleMeta(request.body);
      const obj = await build(namespace, { ...meta, resourceVersion: undefined }, rec(request.body).rules);
      return write(request, target(namespace, meta.name, 'create'), obj, () =>
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
      const { namespace, name } = params(request);
      const meta = roleMeta(request.body, name);
      refuseBuiltin(meta.name);
      const current = await get(namespace, meta.name);
      if (current.aggregationRule !== undefined) throw badRequest(AGGREGATION_RULE_UNSUPPORTED);
      const effective: RoleMeta = {
        ...meta,
        labels: meta.labels ?? current.metadata?.labels,
        annotations: meta.annotations ?? current.metadata?.annotations,
        resourceVersion: meta.resourceVersion ?? current.metadata?.resourceVersion,
      };
      const obj = await build(namespace, effective, rec(request.body).rules, current);
      return write(request, target(namespace, meta.name, 'update'), obj, () =>
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
      const { namespace, name } = params(request);
      const patch = request.body as Rec;
      refuseBuiltin(name);
      const annotationsPatched = AGGREGATION_ANNOTATION in rec(rec(patch.metadata).annotations);
      const pinned = typeof rec(patch.metadata).resourceVersion === 'string';
      for (let attempt = 0; ; attempt++) {
        const current = await get(namespace, name);
        const merged = rec(mergePatch(current, patch));
        const meta = roleMeta(merged, name);
        const keepRules = !annotationsPatched && aggregationOf(meta.annotations) !== undefined;
        validateRules(merged.rules);
        const obj = keepRules
          ? ({ ...merged, rules: current.rules ?? [] } as Rec)
          : await build(namespace, meta, merged.rules, merged);
        if (def.namespaced) rec(obj.metadata).namespace = namespace;
        try {
          return await write(request, target(namespace, name, 'patch'), obj, () =>
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
      const { namespace, name } = params(request);
      refuseBuiltin(name);
      await deps.rest
        .delete(nativePath(def, namespace, name))
        .catch((e: unknown) => fromKube(e, group, plural, name));
      return success;
    },
  });
}
