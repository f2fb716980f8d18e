// Users of iam.kubesphere.io/v1alpha2: CRUD, password change, login records and the role templates of a user's
// global role. Reads come from the informer cache with the v1alpha3 query parameters; writes go to the orchestrator.
// Passwords (bcrypt hashes included) never appear in any response.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { badRequest, notFound } from '../../../k8s/status.ts';
import type { Entry, KubeObject } from '../../cluster/index.ts';
import { KubeError } from '../../cluster/index.ts';
import { USER_REF_LABEL } from '../../iam/labels.ts';
import { hashPassword, verifyPassword } from '../../iam/password.ts';
import { withoutCredentials } from '../../iam/user-credentials.ts';
import type { UserObject } from '../../iam/users.ts';
import { bearerToken } from '../../oauth/index.ts';
import { parseListQuery } from '../query.ts';
import { listBody, listPage } from '../resources/list.ts';
import { registerKapisRoute } from '../route.ts';
import { errors, KubeObject as KubeObjectSchema, ListQueryString, listResult } from '../schemas.ts';
import { bindingWriter } from './binding-writes.ts';
import { membersIn, roleOfUser } from './bindings.ts';
import {
  BASE,
  checkName,
  fromKube,
  GLOBAL_ROLE_BINDINGS,
  GLOBAL_ROLES,
  GROUP,
  type IamDeps,
  json,
  LOGIN_RECORDS,
  nativePath,
  type Rec,
  rec,
  restrictNames,
  searchOf,
  success,
  TAG,
  USERS,
  VERSION,
} from './common.ts';
import { checkEscalation, checkUserGroups } from './escalation.ts';
import { templatesOf } from './role-body.ts';
import { MAX_PASSWORD_BYTES, MIN_PASSWORD, PasswordReset, SuccessSchema, UserSchema } from './schemas.ts';

/** A string map the route schema let through; null (allowed, as absent) is undefined. */
type StringMap = Record<string, string> | undefined;

const UNINITIALIZED = 'iam.kubesphere.io/uninitialized';
export const GLOBALROLE_ANNOTATION = 'iam.kubesphere.io/globalrole';
const UserParam = Type.Object({ user: Type.String({ description: 'User name' }) });

/** The user as served: no credential, plus an annotation naming the user's role in some scope when given. */
export function presentUser(obj: KubeObject, annotation?: string, role?: string): KubeObject {
  const shown = withoutCredentials(obj) as KubeObject;
  if (annotation && role) {
    if (!shown.metadata) shown.metadata = {};
    shown.metadata.annotations = { ...(shown.metadata.annotations ?? {}), [annotation]: role };
  }
  return shown;
}

/** A password the route schema typed as a string: long enough, and within what bcrypt reads. */
function checkPassword(field: string, value: string): string {
  if (value.length < MIN_PASSWORD) {
    throw badRequest(`${field} must be a string of at least ${MIN_PASSWORD} characters`);
  }
  if (Buffer.byteLength(value) > MAX_PASSWORD_BYTES) {
    throw badRequest(`${field} must be at most ${MAX_PASSWORD_BYTES} bytes`);
  }
  return value;
}

/**
 * The writable parts of a User body (spec without password, labels, annotations); the route schema has checked their
 * types, this checks the name and the global role.
 */
function userFields(
  body: unknown,
  name?: string,
): {
  name: string;
  spec: Rec;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  globalRole?: string;
} {
  const b = rec(body);
  const meta = rec(b.metadata);
  const n = checkName('metadata.name', meta.name ?? name);
  if (name !== undefined && n !== name)
    throw badRequest(`metadata.name "${n}" does not match the path "${name}"`);
  const spec = { ...rec(b.spec) };
  delete spec.password;
  delete spec.encryptedPassword;
  // The global role travels as an annotation (as in KubeSphere); it is stored as a binding, never on the user.
  let annotations = (meta.annotations ?? undefined) as StringMap;
  let globalRole: string | undefined;
  if (annotations && GLOBALROLE_ANNOTATION in annotations) {
    const { [GLOBALROLE_ANNOTATION]: role, ...rest } = annotations;
    annotations = rest;
    if (role !== '') globalRole = checkName(`annotation ${GLOBALROLE_ANNOTATION}`, role);
  }
  return { name: n, spec, labels: (meta.labels ?? undefined) as StringMap, annotations, globalRole };
}

export function registerUserRoutes(app: FastifyInstance, deps: IamDeps): void {
  const { rest, synced } = deps;
  const userPath = (name?: string) => nativePath(USERS, '', name);
  const fail = (name: string) => (e: unknown) => fromKube(e, GROUP, 'users', name);

  const userEntry = async (name: string): Promise<Entry> => {
    const e = (await synced(USERS)).get('', name);
    if (!e) throw notFound(GROUP, 'users', name);
    return e;
  };
  const globalRoles = bindingWriter(deps, {
    def: GLOBAL_ROLE_BINDINGS,
    kind: 'GlobalRoleBinding',
    roleKind: 'GlobalRole',
  });
  /** 404 for an unknown global role, 403 when binding it would grant the caller's target more than they hold. */
  const checkGlobalRole = async (request: FastifyRequest, user: string, role: string) => {
    if (!(await synced(GLOBAL_ROLES)).get('', role)) throw notFound(GROUP, GLOBAL_ROLES.name, role);
    await checkEscalation(
      deps.ctx,
      request,
      {
        group: GROUP,
        resource: GLOBAL_ROLE_BINDINGS.name,
        namespace: '',
        name: `${user}-${role}`,
        verb: 'create',
      },
      globalRoles.object('', user, role),
    );
  };
  /** Presents users with KubeSphere's globalrole annotation. */
  const presenter = async () => {
    const bindings = await synced(GLOBAL_ROLE_BINDINGS);
    return (o: KubeObject) =>
      presentUser(o, GLOBALROLE_ANNOTATION, roleOfUser(bindings, o.metadata?.name ?? ''));
  };

  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/users`,
    schema: {
      tags: [TAG],
      summary: 'List users',
      description: 'globalrole=<name> lists only the users bound to that global role.',
      operationId: 'ListUsers',
      querystring: Type.Object(
        {
          ...ListQueryString.properties,
          globalrole: Type.Optional(Type.String({ description: 'Only users bound to this global role' })),
        },
        { additionalProperties: Type.String() },
      ),
      response: { 200: listResult(UserSchema, 'Users'), ...errors(400, 503) },
    },
    handler: async (request, reply) => {
      const q = parseListQuery(searchOf(request), USERS.sortFields);
      const globalRole = q.filters.get('globalrole');
      q.filters.delete('globalrole');
      if (globalRole) {
        restrictNames(q, membersIn(await synced(GLOBAL_ROLE_BINDINGS), undefined, globalRole).keys());
      }
      const page = listPage(await synced(USERS), USERS, q);
      const present = await presenter();
      json(reply);
      return listBody(page, present);
    },
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
    handler: async (request) => {
      const { user } = request.params as { user: string };
      const e = await userEntry(user);
      return (await presenter())(e.object());
    },
  });
  registerKapisRoute(app, {
    method: 'POST',
    path: `${BASE}/users`,
    schema: {
      tags: [TAG],
      summary: 'Create a user',
      description: `The password is hashed (bcrypt) before the object is stored. The annotation ${GLOBALROLE_ANNOTATION} binds the user to that global role (never beyond what the caller holds).`,
      operationId: 'CreateUser',
      body: UserSchema,
      response: { 200: UserSchema, ...errors(400, 404, 409) },
    },
    handler: async (request) => {
      const f = userFields(request.body);
      await checkUserGroups(deps.ctx, request, 'create', { name: f.name, groups: f.spec.groups });
      if (f.globalRole) await checkGlobalRole(request, f.name, f.globalRole);
      const plain = rec(rec(request.body).spec).password;
      const spec: Rec = { ...f.spec };
      if (plain !== undefined) {
        spec.password = await hashPassword(checkPassword('spec.password', plain as string));
      }
      const obj = {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'User',
        metadata: { name: f.name, labels: f.labels, annotations: f.annotations },
        spec,
      };
      const created = await rest.create(userPath(), obj).catch(fail(f.name));
      if (f.globalRole) await globalRoles.setRole('', f.name, f.globalRole);
      return presentUser(created as KubeObject, GLOBALROLE_ANNOTATION, f.globalRole);
    },
  });
  registerKapisRoute(app, {
    method: 'PUT',
    path: `${BASE}/users/:user`,
    schema: {
      tags: [TAG],
      summary: 'Update a user',
      description: `Updates spec (except the password: use PUT .../password), labels, annotations and status.state (Active | Disabled). A changed ${GLOBALROLE_ANNOTATION} annotation rebinds the user to that global role (never beyond what the caller holds).`,
      operationId: 'UpdateUser',
      params: UserParam,
      body: UserSchema,
      response: { 200: UserSchema, ...errors(400, 404, 409) },
    },
    handler: async (request) => {
      const { user } = request.params as { user: string };
      const f = userFields(request.body, user);
      const state = rec(rec(request.body).status).state;
      if (state !== undefined && state !== 'Active' && state !== 'Disabled') {
        throw badRequest('status.state may be set to Active or Disabled');
      }
      // KubeSphere's console sends the annotation back unchanged with every edit: only a change rebinds.
      const rebind =
        f.globalRole !== undefined && f.globalRole !== roleOfUser(await synced(GLOBAL_ROLE_BINDINGS), user);
      if (rebind) await checkGlobalRole(request, user, f.globalRole!);
      let updated: KubeObject | undefined;
      for (let attempt = 0; !updated; attempt++) {
        const current = (await rest.get(userPath(user)).catch(fail(user))) as KubeObject;
        const previous = rec(current.spec).groups;
        await checkUserGroups(deps.ctx, request, 'update', { name: user, groups: f.spec.groups, previous });
        const spec = { ...f.spec, password: rec(current.spec).password };
        if (spec.password === undefined) delete spec.password;
        const next: KubeObject = {
          ...current,
          metadata: {
            ...current.metadata,
            labels: f.labels ?? current.metadata?.labels,
            annotations: f.annotations ?? current.metadata?.annotations,
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
          updated = (await rest.replace(userPath(user), next)) as KubeObject;
        } catch (err) {
          if (!(err instanceof KubeError && err.code === 409 && attempt < 3)) fail(user)(err);
        }
      }
      // A disable ends the user's sessions at once on every replica, before any informer has seen it.
      if (state === 'Disabled') await deps.ctx.oauth.tokens?.revokeAll(user);
      if (!rebind) return (await presenter())(updated);
      await globalRoles.setRole('', user, f.globalRole!);
      return presentUser(updated, GLOBALROLE_ANNOTATION, f.globalRole);
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
      await rest.delete(userPath(user)).catch(fail(user));
      // At once on every replica, before any informer has seen the deletion.
      await deps.ctx.oauth.tokens?.revokeAll(user);
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
        'Changing your own password requires currentPassword (400 "incorrect old password" otherwise); changing another user\'s needs the right to update users and may leave currentPassword out, but a wrong one is refused (400) whoever sends it. Clears the uninitialized annotation.',
      operationId: 'ModifyPassword',
      params: UserParam,
      body: PasswordReset,
      response: { 200: SuccessSchema, ...errors(400, 404) },
    },
    handler: async (request) => {
      const { user } = request.params as { user: string };
      const body = rec(request.body);
      const password = checkPassword('password', body.password as string);
      const current = (await rest.get(userPath(user)).catch(fail(user))) as KubeObject;
      // Your own password needs the current one; a given currentPassword is checked whoever changes it (KubeSphere:
      // a user manager may leave it out, but a wrong one is refused).
      if (request.user?.name === user || (body.currentPassword ?? '') !== '') {
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
      const updated = await rest.mergePatch(userPath(user), patch).catch(fail(user));
      // Every token of the user stops working at once (on every replica); a self-service change keeps the caller's
      // own token only when asked to with ?keepToken=true.
      const keep = request.user?.name === user && rec(request.query).keepToken === 'true';
      await deps.ctx.oauth.tokens?.revokeAfterCredentialChange(
        updated as UserObject,
        keep ? bearerToken(request.headers.authorization) : undefined,
      );
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
      summary: "The role templates of the user's global role",
      description:
        'The GlobalRoles that the global role bound to the user aggregates (an empty list when the user has no global role or it aggregates nothing), as KubeSphere returns them.',
      operationId: 'RetrieveMemberRoleTemplates',
      params: UserParam,
      response: { 200: Type.Array(KubeObjectSchema), ...errors(404, 503) },
    },
    handler: async (request, reply) => {
      const { user } = request.params as { user: string };
      await userEntry(user);
      const role = roleOfUser(await synced(GLOBAL_ROLE_BINDINGS), user);
      const templates = role ? templatesOf(await synced(GLOBAL_ROLES), '', role) : [];
      json(reply);
      return `[${templates.map((e) => e.json).join(',')}]`;
    },
  });
}
