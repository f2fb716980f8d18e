// Issue 12's end-to-end tenancy flow against a real kapiserver on the dev cluster, run twice: once with bearer tokens
// from /oauth/token, once as a Go-style client (kubesphere.io/client-go) sending `Authorization: Basic` on every call
// and no token. A platform admin creates the user mgr and a workspace managed by mgr; mgr makes a project in it and
// adds bob as <ws>-viewer; bob sees that workspace and its namespaces and nothing else, reads the project and is
// refused writes; mgr puts bob in a group of the workspace bound to <ws>-regular, which grants no project writes
// (in KubeSphere neither), then binds the group in the project to the namespace role `operator`, as the console
// does: bob writes, and leaving the group takes it away. Deleting a workspace deletes its namespaces; with Orphan
// they stay. Groups are read from the live User on every request (bearer and Basic alike), so bob's token, minted
// before he joined, carries the new group at once: only the groupbinding controller's write of spec.groups is awaited.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { type Json, until } from '../apiserver/kapis/helpers.ts';
import { login } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const T2 = '/kapis/tenant.kubesphere.io/v1alpha2';
const T3 = '/kapis/tenant.kubesphere.io/v1alpha3';
const IAM = '/kapis/iam.kubesphere.io/v1alpha2';
const GROUP = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name });

type Answer = { status: number; body: Json };
type Caller = (method: string, path: string, body?: unknown) => Promise<Answer>;
type Mode = 'bearer' | 'basic';

/** A caller sending only the given Authorization header (and a JSON content type with a body), as client-go does. */
function callerWith(stack: TestStack, authorization: string): Caller {
  return async (method, path, body) => {
    const res = await request(`${stack.url}${path}`, {
      method: method as 'GET',
      headers: {
        authorization,
        'user-agent': 'tenancy-flow-test/1.0',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    let parsed: Json = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.statusCode, body: parsed };
  };
}

async function callerAs(stack: TestStack, mode: Mode, user: string, password: string): Promise<Caller> {
  if (mode === 'basic')
    return callerWith(stack, `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`);
  return callerWith(stack, `Bearer ${(await login(stack, user, password)).access_token}`);
}

const ok = (r: Answer, status = 200) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
};
const forbidden = (r: Answer, what: string) => {
  assert.equal(r.status, 403, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.kind, 'Status');
  assert.equal(r.body.reason, 'Forbidden');
};
const names = (body: Json): string[] => body.items.map((o: Json) => o.metadata.name).sort();

async function flow(mode: Mode): Promise<void> {
  const stack = await startTestStack();
  try {
    const admin = await callerAs(stack, mode, 'admin', stack.adminPassword);
    const ws = `ws-${mode}`;
    const proj = `${ws}-proj`;
    const other = `other-${mode}`;
    const otherProj = `${other}-proj`;

    // The platform admin creates the users through the iam API; the user controller hashes their passwords.
    const passwords: Record<string, string> = {};
    for (const name of ['mgr', 'bob']) {
      passwords[name] = `${name}-Passw0rd`;
      ok(
        await admin('POST', `${IAM}/users`, {
          metadata: { name },
          spec: { email: `${name}@example.com`, password: passwords[name] },
        }),
      );
      // Active is set with the hash; kapiserver answers from its cache, so a login works from then on (a Basic
      // attempt before that would be a failed login counting towards the lockout).
      await until(
        async () => (await admin('GET', `${IAM}/users/${name}`)).body.status?.state === 'Active',
        `${name} active`,
      );
    }
    const mgr = await callerAs(stack, mode, 'mgr', passwords.mgr);
    const bob = await callerAs(stack, mode, 'bob', passwords.bob);

    // The workspace with mgr as its manager, and another one with a project bob must never see.
    ok(
      await admin('POST', `${T2}/workspaces`, {
        metadata: { name: ws },
        spec: { template: { spec: { manager: 'mgr' } } },
      }),
    );
    ok(
      await admin('POST', `${T2}/workspaces`, {
        metadata: { name: other },
        spec: { template: { spec: {} } },
      }),
    );
    ok(await admin('POST', `${T2}/workspaces/${other}/namespaces`, { metadata: { name: otherProj } }));

    // The controllers: the initial workspace roles and mgr's <ws>-admin binding.
    await until(async () => {
      const r = await admin(
        'GET',
        `/apis/iam.kubesphere.io/v1alpha2/workspaceroles?labelSelector=kubesphere.io/workspace=${ws}`,
      );
      const roles = r.status === 200 ? names(r.body) : [];
      return ['admin', 'regular', 'self-provisioner', 'viewer'].every((s) => roles.includes(`${ws}-${s}`));
    }, `the initial roles of ${ws}`);
    const managerBinding = await until(async () => {
      const r = await admin('GET', `/apis/iam.kubesphere.io/v1alpha2/workspacerolebindings/${ws}-admin`);
      return r.status === 200 ? r.body : undefined;
    }, `${ws}-admin binding`);
    assert.deepEqual(
      managerBinding.subjects.map((s: Json) => [s.kind, s.name]),
      [['User', 'mgr']],
    );

    // mgr creates a project in the workspace (once the authorizer has seen the binding) and adds bob as viewer.
    await until(async () => {
      const r = await mgr('POST', `${T2}/workspaces/${ws}/namespaces`, { metadata: { name: proj } });
      return r.status === 200;
    }, `mgr creates ${proj}`);
    // The namespace controller makes the project's roles (operator among them).
    await until(
      async () =>
        (await admin('GET', `/apis/rbac.authorization.k8s.io/v1/namespaces/${proj}/roles/operator`))
          .status === 200,
      `the operator role in ${proj}`,
    );
    ok(
      await mgr('POST', `${IAM}/workspaces/${ws}/workspacemembers`, [
        { username: 'bob', roleRef: `${ws}-viewer` },
      ]),
    );

    // bob sees this workspace and its namespaces, and nothing else.
    await until(
      async () => (await bob('GET', `${T2}/workspaces/${ws}`)).status === 200,
      'bob sees the workspace',
    );
    assert.deepEqual(names(ok(await bob('GET', `${T3}/workspacetemplates`))), [ws]);
    assert.deepEqual(names(ok(await bob('GET', `${T2}/workspaces`))), [ws]);
    assert.equal(ok(await bob('GET', `${T3}/workspacetemplates/${ws}`)).metadata.name, ws);
    assert.deepEqual(names(ok(await bob('GET', `${T2}/workspaces/${ws}/namespaces`))), [proj]);
    assert.equal(ok(await bob('GET', `${T2}/workspaces/${ws}/namespaces/${proj}`)).metadata.name, proj);
    for (const path of [
      `${T2}/workspaces/${other}`,
      `${T3}/workspacetemplates/${other}`,
      `${T2}/workspaces/${other}/namespaces`,
      `${T2}/workspaces/${other}/namespaces/${otherProj}`,
      `/api/v1/namespaces/${otherProj}`,
      `/api/v1/namespaces/${otherProj}/pods`,
      '/api/v1/namespaces',
    ]) {
      forbidden(await bob('GET', path), path);
    }
    const listed = await bob('GET', `${T2}/namespaces`);
    if (listed.status === 200)
      assert.ok(!names(listed.body).includes(otherProj), JSON.stringify(listed.body));
    else forbidden(listed, `${T2}/namespaces`);

    // bob reads the project through /api and may not write there.
    assert.equal(ok(await bob('GET', `/api/v1/namespaces/${proj}/pods`)).kind, 'PodList');
    assert.equal(ok(await bob('GET', `/api/v1/namespaces/${proj}/configmaps`)).kind, 'ConfigMapList');
    const configMap = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data: { a: 'b' },
    });
    const write = (name: string) => bob('POST', `/api/v1/namespaces/${proj}/configmaps`, configMap(name));
    forbidden(await write('by-viewer'), 'a viewer writes');

    // mgr makes a group of the workspace bound to <ws>-regular and puts bob in it: the groupbinding controller adds
    // it to his spec.groups, and his next call carries it (read here from kapiserver's cache).
    const devs = ok(
      await mgr('POST', `${IAM}/workspaces/${ws}/groups`, { metadata: { generateName: 'devs-' } }),
    ).metadata.name as string;
    ok(
      await mgr('POST', `${IAM}/workspaces/${ws}/workspacerolebindings`, [
        { roleRef: { name: `${ws}-regular` }, subjects: [GROUP(devs)] },
      ]),
    );
    const [binding] = ok(
      await mgr('POST', `${IAM}/workspaces/${ws}/groupbindings`, [{ userName: 'bob', groupName: devs }]),
    );
    const groupsOfBob = async () =>
      (ok(await admin('GET', `${IAM}/users/bob`)).spec.groups ?? []) as string[];
    await until(async () => (await groupsOfBob()).includes(devs), 'the group in bob spec.groups');
    // <ws>-regular grants reads of the workspace's settings, no project writes (as in KubeSphere); the console
    // gives a group project rights with a namespace role binding, which mgr adds now.
    forbidden(await write('as-regular'), 'bob with <ws>-regular writes');
    ok(
      await mgr('POST', `${IAM}/namespaces/${proj}/rolebindings`, [
        { roleRef: { name: 'operator' }, subjects: [GROUP(devs)] },
      ]),
    );
    await until(async () => (await write('in-group')).status === 201, 'bob writes through the group');

    // Leaving the group takes the right away.
    ok(await mgr('DELETE', `${IAM}/workspaces/${ws}/groupbindings/${binding.metadata.name}`));
    await until(async () => (await write('after-leaving')).status === 403, 'bob refused again');
    assert.ok(
      !(ok(await admin('GET', `/apis/iam.kubesphere.io/v1alpha2/users/bob`)).spec.groups ?? []).includes(
        devs,
      ),
    );

    // Deleting a workspace deletes its namespaces; with Orphan they stay.
    ok(await admin('DELETE', `${T2}/workspaces/${other}`, { propagationPolicy: 'Orphan' }));
    await until(
      async () =>
        (await admin('GET', `/apis/tenant.kubesphere.io/v1alpha1/workspaces/${other}`)).status === 404,
      `workspace ${other} gone`,
    );
    assert.equal(
      ok(await admin('GET', `/api/v1/namespaces/${otherProj}`)).metadata.deletionTimestamp,
      undefined,
    );
    ok(await admin('DELETE', `${T2}/workspaces/${ws}`));
    await until(
      async () => (await admin('GET', `/api/v1/namespaces/${proj}`)).status === 404,
      `${proj} deleted with ${ws}`,
      30_000,
    );
  } finally {
    await stack.close();
  }
}

test('the tenancy flow with bearer tokens', () => flow('bearer'));
test('the tenancy flow with HTTP Basic on every call (a Go-style client)', () => flow('basic'));
