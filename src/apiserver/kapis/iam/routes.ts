// iam.kubesphere.io/v1alpha2: users (CRUD, password change, login records, global role), global roles and bindings.
// Reads come from the informer cache with the v1alpha3 query parameters; writes go to the orchestrator. Passwords
// (bcrypt hashes included) never appear in any response.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { badRequest, notFound, StatusError, serviceUnavailable } from '../../../k8s/status.ts';
import type { Entry, Informer, KubeObject } from '../../cluster/index.ts';
import type { ServerContext } from '../../context.ts';
import {
  GLOBAL_ROLE_BINDING_CRD,
  GLOBAL_ROLE_CRD,
  LOGIN_RECORD_CRD,
  USER_CRD,
} from '../../crds/definitions.ts';
import { KubeError, KubeRest } from '../../crds/rest.ts';
import { hashPassword, verifyPassword } from '../../iam/password.ts';
import { parseListQuery } from '../query.ts';
import type { ResourceDef } from '../resources/defs.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, ListQueryString, listResult } from '../schemas.ts';

const GROUP = 'iam.kubesphere.io';
const VERSION = 'v1alpha2';
const BASE = `/${GROUP}/${VERSION}`;
const NATIVE = `/apis/${GROUP}/${VERSION}`;
const TAG = 'iam.kubesphere.io/v1alpha2';
const SYNC_WAIT_MS = 15_000;
const USER_REF_LABEL = 'iam.kubesphere.io/user-ref';
const UNINITIALIZED = 'iam.kubesphere.io/uninitialized';
const GLOBALROLE_ANNOTATION = 'iam.kubesphere.io/globalrole';
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_PASSWORD = 6;
/** bcrypt only reads the first 72 bytes. */
const MAX_PASSWORD_BYTES = 72;

function cluster(plural: string): ResourceDef {
  return {
    name: plural,
    ref: { group: GROUP, version: VERSION, resource: plural },
    namespaced: false,
    sortFields: ['creationTimestamp', 'createTime', 'name'],
    indexedFilters: {},
  };
}

const USERS = cluster(USER_CRD.spec.names.plural);
const GLOBAL_ROLES = cluster(GLOBAL_ROLE_CRD.spec.names.plural);
const GLOBAL_ROLE_BINDINGS = cluster(GLOBAL_ROLE_BINDING_CRD.spec.names.plural);
const LOGIN_RECORDS = cluster(LOGIN_RECORD_CRD.spec.names.plural);

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

/** The user as served: no password, status kept, plus KubeSphere's globalrole annotation. */
function presentUser(obj: KubeObject, roleOf: (user: string) => string | undefined): KubeObject {
  const spec = rec(obj.spec);
  delete spec.password;
  delete spec.encryptedPassword;
  const name = obj.metadata?.name ?? '';
  const role = roleOf(name);
  if (role) {
    if (!obj.metadata) obj.metadata = {};
    obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [GLOBALROLE_ANNOTATION]: role };
  }
  return obj;
}

function checkPassword(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length < MIN_PASSWORD) {
    throw badRequest(`${field} must be a string of at least ${MIN_PASSWORD} characters`);
  }
  if (Buffer.byteLength(value) > MAX_PASSWORD_BYTES) {
    throw badRequest(`${field} must be at most ${MAX_PASSWORD_BYTES} bytes`);
  }
  return value;
}

/** Validates the writable parts of a User body and returns them (spec without password, labels, annotations). */
function userFields(
  body: unknown,
  name?: string,
): { name: string; spec: Rec; labels?: Rec; annotations?: Rec } {
  const b = rec(body);
  const meta = rec(b.metadata);
  const n = meta.name ?? name;
  if (typeof n !== 'string' || !NAME.test(n) || n.length > 253) {
    throw badRequest('metadata.name must be a lowercase DNS subdomain name');
  }
  if (name !== undefined && n !== name)
    throw badRequest(`metadata.name "${n}" does not match the path "${name}"`);
  const spec = { ...rec(b.spec) };
  delete spec.password;
  delete spec.encryptedPassword;
  if (spec.email !== undefined && (typeof spec.email !== 'string' || !EMAIL.test(spec.email))) {
    throw badRequest('spec.email must be an e-mail address');
  }
  for (const f of ['lang', 'description', 'displayName']) {
    if (spec[f] !== undefined && typeof spec[f] !== 'string') throw badRequest(`spec.${f} must be a string`);
  }
  if (
    spec.groups !== undefined &&
    !(Array.isArray(spec.groups) && spec.groups.every((g) => typeof g === 'string'))
  ) {
    throw badRequest('spec.groups must be a list of strings');
  }
  return {
    name: n,
    spec,
    labels: meta.labels === undefined ? undefined : rec(meta.labels),
    annotations: meta.annotations === undefined ? undefined : rec(meta.annotations),
  };
}

/** Orchestrator errors in Status form (their messages carry no secrets: bodies are never echoed). */
function fromKube(err: unknown, name: string): never {
  if (err instanceof KubeError) {
    if (err.code === 404) throw notFound(GROUP, 'users', name);
    if (err.code === 409) {
      throw new StatusError(409, err.reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict', err.message);
    }
    if (err.code >= 400 && err.code < 500)
      throw new StatusError(err.code, err.reason ?? 'BadRequest', err.message);
    throw serviceUnavailable(`the orchestrator answered ${err.code}`);
  }
  throw err;
}

function searchOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q < 0 ? '' : request.url.slice(q + 1);
}

const success = { message: 'success' };
const SuccessSchema = Type.Object({ message: Type.String() }, { description: 'KubeSphere success body' });
const UserParam = Type.Object({ user: Type.String({ description: 'User name' }) });
const UserSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ default: 'iam.kubesphere.io/v1alpha2' })),
    kind: Type.Optional(Type.String({ default: 'User' })),
    metadata: Type.Object(
      {
        name: Type.String(),
        labels: Type.Optional(Type.Object({}, { additionalProperties: Type.String() })),
        annotations: Type.Optional(Type.Object({}, { additionalProperties: Type.String() })),
      },
      { additionalProperties: true },
    ),
    spec: Type.Object(
      {
        email: Type.Optional(Type.String({ format: 'email' })),
        lang: Type.Optional(Type.String()),
        description: Type.Optional(Type.String()),
        displayName: Type.Optional(Type.String()),
        groups: Type.Optional(Type.Array(Type.String())),
        password: Type.Optional(
          Type.String({ description: 'Initial password (create only; write-only, never returned)' }),
        ),
      },
      { additionalProperties: true },
    ),
    status: Type.Optional(
      Type.Object(
        {
          state: Type.Optional(Type.String({ description: 'Active | Disabled | AuthLimitExceeded' })),
          reason: Type.Optional(Type.String()),
          lastTransitionTime: Type.Optional(Type.String({ format: 'date-time' })),
          lastLoginTime: Type.Optional(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { title: 'User', description: 'iam.kubesphere.io/v1alpha2 User (passwords are never returned)' },
);
const PasswordReset = Type.Object(
  {
    currentPassword: Type.Optional(
      Type.String({ description: 'Required when changing your own password', format: 'password' }),
    ),
    password: Type.String({
      description: `New password, ${MIN_PASSWORD}..${MAX_PASSWORD_BYTES} bytes`,
      format: 'password',
    }),
  },
  { title: 'PasswordReset' },
);

export function registerIamRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const cache = ctx.cache;
  const rest = new KubeRest(ctx.cluster);
  if (cache)
    for (const d of [USERS, GLOBAL_ROLES, GLOBAL_ROLE_BINDINGS, LOGIN_RECORDS]) cache.informer(d.ref);

  const synced = async (def: ResourceDef): Promise<Informer> => {
    if (!cache) throw serviceUnavailable('the informer cache is not available');
    const inf = cache.informer(def.ref);
    if (!(await inf.waitForSync(SYNC_WAIT_MS)))
      throw serviceUnavailable(`the cache of ${def.name} has not synced yet`);
    return inf;
  };

  // Global role of each user, from the bindings (KubeSphere: one global role per user).
  const bindingsIndex = 'kapis:subjectUser';
  const roleOfFrom = (bindings: Informer) => {
    bindings.addIndex(bindingsIndex, (o) => {
      const subjects = Array.isArray(o.subjects) ? (o.subjects as Rec[]) : [];
      return subjects
        .filter((s) => s.kind === 'User' && typeof s.name === 'string')
        .map((s) => s.name as string);
    });
    return (user: string): string | undefined => {
      for (const key of bindings.keysByIndex(bindingsIndex, user)) {
        const e = bindings.getByKey(key);
        const role = e ? rec(e.object().roleRef).name : undefined;
        if (typeof role === 'string') return role;
      }
      return undefined;
    };
  };

  const userEntry = async (name: string): Promise<Entry> => {
    const e = (await synced(USERS)).get('', name);
    if (!e) throw notFound(GROUP, 'users', name);
    return e;
  };

  const json = (reply: FastifyReply) => reply.type('application/json; charset=utf-8');

  const listOf =
    (def: ResourceDef, present?: (o: KubeObject) => KubeObject) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const q = parseListQuery(searchOf(request), def.sortFields);
      const page = listPage(await synced(def), def, q);
      json(reply);
      return listBody(page, present);
    };
  const getOf =
    (def: ResourceDef, param: string, present?: (o: KubeObject) => KubeObject) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const name = (request.params as Record<string, string>)[param];
      const e = (await synced(def)).get('', name);
      if (!e) throw notFound(GROUP, def.name, name);
      json(reply);
      return present ? JSON.stringify(present(e.object())) : e.json;
    };

  const userPresenter = async () => {
    const roleOf = roleOfFrom(await synced(GLOBAL_ROLE_BINDINGS));
    return (o: KubeObject) => presentUser(o, roleOf);
  };

  // ---- users ----
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/users`,
    schema: {
      tags: [TAG],
      summary: 'List users',
      operationId: 'ListUsers',
      querystring: ListQueryString,
      response: { 200: listResult(UserSchema, 'Users'), ...errors(400, 503) },
    },
    handler: async (request, reply) => listOf(USERS, await userPresenter())(request, reply),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/users/:user`,
    schema: {
      tags: [TAG],
      summary: 'Get a user',
      operationId: 'DescribeUser',
      params: UserParam,
      response: { 200: UserSchema, ...errors(404, 503) },
    },
    handler: async (request, reply) => getOf(USERS, 'user', await userPresenter())(request, reply),
  });
  registerKapisRoute(app, {
    method: 'POST',
    path: `${BASE}/users`,
    schema: {
      tags: [TAG],
      summary: 'Create a user',
      description: 'The password is hashed (bcrypt) before the object is stored.',
      operationId: 'CreateUser',
      body: UserSchema,
      response: { 200: UserSchema, ...errors(400, 409) },
    },
    handler: async (request, reply) => {
      const f = userFields(request.body);
      const plain = rec(rec(request.body).spec).password;
      const spec: Rec = { ...f.spec };
      if (plain !== undefined) spec.password = await hashPassword(checkPassword('spec.password', plain));
      const obj = {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'User',
        metadata: { name: f.name, labels: f.labels, annotations: f.annotations },
        spec,
      };
      const created = await rest.create(`${NATIVE}/users`, obj).catch((e: unknown) => fromKube(e, f.name));
      json(reply);
      return JSON.stringify(presentUser(created as KubeObject, () => undefined));
    },
  });
  registerKapisRoute(app, {
    method: 'PUT',
    path: `${BASE}/users/:user`,
    schema: {
      tags: [TAG],
      summary: 'Update a user',
      description:
        'Updates spec (except the password: use PUT .../password), labels, annotations and status.state (Active | Disabled).',
      operationId: 'UpdateUser',
      params: UserParam,
      body: UserSchema,
      response: { 200: UserSchema, ...errors(400, 404, 409) },
    },
    handler: async (request, reply) => {
      const { user } = request.params as { user: string };
      const f = userFields(request.body, user);
      const state = rec(rec(request.body).status).state;
      if (state !== undefined && state !== 'Active' && state !== 'Disabled') {
        throw badRequest('status.state may be set to Active or Disabled');
      }
      for (let attempt = 0; ; attempt++) {
        const current = (await rest
          .get(`${NATIVE}/users/${user}`)
          .catch((e: unknown) => fromKube(e, user))) as KubeObject;
        const spec = { ...f.spec, password: rec(current.spec).password };
        if (spec.password === undefined) delete spec.password;
        const next: KubeObject = {
          ...current,
          metadata: {
            ...current.metadata,
            labels: f.labels === undefined ? current.metadata?.labels : (f.labels as Record<string, string>),
            annotations:
              f.annotations === undefined
                ? current.metadata?.annotations
                : (f.annotations as Record<string, string>),
          },
          spec,
        };
        if (state !== undefined && rec(current.status).state !== state) {
          next.status = {
            ...rec(current.status),
            state,
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          };
        }
        try {
          const updated = (await rest.replace(`${NATIVE}/users/${user}`, next)) as KubeObject;
          json(reply);
          return JSON.stringify(presentUser(updated, () => undefined));
        } catch (err) {
          if (err instanceof KubeError && err.code === 409 && attempt < 3) continue;
          fromKube(err, user);
        }
      }
    },
  });
  registerKapisRoute(app, {
    method: 'DELETE',
    path: `${BASE}/users/:user`,
    schema: {
      tags: [TAG],
      summary: 'Delete a user',
      operationId: 'DeleteUser',
      params: UserParam,
      response: { 200: SuccessSchema, ...errors(404) },
    },
    handler: async (request) => {
      const { user } = request.params as { user: string };
      await rest.delete(`${NATIVE}/users/${user}`).catch((e: unknown) => fromKube(e, user));
      return success;
    },
  });
  registerKapisRoute(app, {
    method: 'PUT',
    path: `${BASE}/users/:user/password`,
    schema: {
      tags: [TAG],
      summary: 'Change a user password',
      description:
        'Changing your own password requires currentPassword (400 "incorrect old password" otherwise); changing another user\'s needs the right to update users. Clears the uninitialized annotation.',
      operationId: 'ModifyPassword',
      params: UserParam,
      body: PasswordReset,
      response: { 200: SuccessSchema, ...errors(400, 404) },
    },
    handler: async (request) => {
      const { user } = request.params as { user: string };
      const body = rec(request.body);
      const password = checkPassword('password', body.password);
      const current = (await rest
        .get(`${NATIVE}/users/${user}`)
        .catch((e: unknown) => fromKube(e, user))) as KubeObject;
      const self = request.user?.name === user;
      if (self) {
        const given = body.currentPassword;
        const hashed = rec(current.spec).password;
        const ok =
          typeof given === 'string' &&
          (await verifyPassword(given, typeof hashed === 'string' ? hashed : undefined));
        if (!ok) throw badRequest('incorrect old password');
      }
      const patch: Rec = { spec: { password: await hashPassword(password) } };
      if (current.metadata?.annotations && UNINITIALIZED in current.metadata.annotations) {
        patch.metadata = { annotations: { [UNINITIALIZED]: null } };
      }
      await rest.mergePatch(`${NATIVE}/users/${user}`, patch).catch((e: unknown) => fromKube(e, user));
      return success;
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/users/:user/loginrecords`,
    schema: {
      tags: [TAG],
      summary: "List a user's login records",
      operationId: 'ListUserLoginRecords',
      params: UserParam,
      querystring: ListQueryString,
      response: { 200: listResult(KubeObjectSchema, 'LoginRecords'), ...errors(400, 404, 503) },
    },
    handler: async (request, reply) => {
      const { user } = request.params as { user: string };
      await userEntry(user);
      const q = parseListQuery(searchOf(request), LOGIN_RECORDS.sortFields);
      q.filters.set('label', `${USER_REF_LABEL}=${user}`);
      const page = listPage(await synced(LOGIN_RECORDS), LOGIN_RECORDS, q);
      json(reply);
      return listBody(page);
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/users/:user/globalroles`,
    schema: {
      tags: [TAG],
      summary: "The user's global role",
      operationId: 'RetrieveMemberRoleTemplates',
      params: UserParam,
      response: { 200: KubeObjectSchema, ...errors(404, 503) },
    },
    handler: async (request, reply) => {
      const { user } = request.params as { user: string };
      await userEntry(user);
      const role = roleOfFrom(await synced(GLOBAL_ROLE_BINDINGS))(user);
      const e = role ? (await synced(GLOBAL_ROLES)).get('', role) : undefined;
      if (!e) throw notFound(GROUP, 'globalroles', role ?? `(of user ${user})`);
      json(reply);
      return e.json;
    },
  });

  // ---- global roles and bindings ----
  for (const [def, kind] of [
    [GLOBAL_ROLES, 'GlobalRole'],
    [GLOBAL_ROLE_BINDINGS, 'GlobalRoleBinding'],
  ] as const) {
    registerKapisRoute(app, {
      method: 'GET',
      path: `${BASE}/${def.name}`,
      schema: {
        tags: [TAG],
        summary: `List ${def.name}`,
        operationId: `List${kind}s`,
        querystring: ListQueryString,
        response: { 200: listResult(KubeObjectSchema, `${kind}s`), ...errors(400, 503) },
      },
      handler: listOf(def),
    });
    registerKapisRoute(app, {
      method: 'GET',
      path: `${BASE}/${def.name}/:name`,
      schema: {
        tags: [TAG],
        summary: `Get a ${kind}`,
        operationId: `Describe${kind}`,
        params: Type.Object({ name: Type.String() }),
        response: { 200: KubeObjectSchema, ...errors(404, 503) },
      },
      handler: getOf(def, 'name'),
    });
  }
}
