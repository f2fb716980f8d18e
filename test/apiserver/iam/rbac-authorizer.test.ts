// RBAC decisions over in-memory listers (no cluster, no cache, no polling): the modes, the fixed policy, built-in
// global roles and their aggregation, scopes (global, cluster, workspace, namespace), non-resource URLs, the rules a
// user holds at a scope, and the escalation checker on role, binding and group writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/apiserver/cluster/index.ts';
import { parseRequestInfo } from '../../../src/apiserver/filters/requestinfo.ts';
import { attributesOf, newAuthorizer, scopeOf } from '../../../src/apiserver/iam/authorizer.ts';
import { EscalationChecker } from '../../../src/apiserver/iam/rbac-escalation.ts';
import { RuleResolver } from '../../../src/apiserver/iam/rbac-resolver.ts';
import { BUILTIN_GLOBAL_ROLES, globalRoleObject } from '../../../src/apiserver/iam/roles.ts';
import { StatusError } from '../../../src/k8s/status.ts';
import { NS_ADMIN_ROLE } from './fixtures.ts';
import { inWorkspace, MemoryRbacListers } from './memory-listers.ts';

const user = (name: string, groups: string[] = ['system:authenticated']) => ({ name, groups });
const subject = (name: string) => [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }];
const ws = inWorkspace;

function binding(
  name: string,
  kind: string,
  role: string,
  subjects: unknown[],
  meta: object = {},
): KubeObject {
  return { metadata: { name, ...meta }, roleRef: { kind, name: role }, subjects };
}

function listers(): MemoryRbacListers {
  const l = new MemoryRbacListers();
  for (const role of BUILTIN_GLOBAL_ROLES) l.addRole('GlobalRole', globalRoleObject(role) as KubeObject);
  l.addBinding(
    'GlobalRoleBinding',
    binding('bob-users-manager', 'GlobalRole', 'users-manager', subject('bob')),
  );
  l.addRole('Role', NS_ADMIN_ROLE);
  l.addBinding(
    'RoleBinding',
    binding('carol-ns-admin', 'Role', 'ns-admin', subject('carol'), { namespace: 'esc' }),
  );
  l.addRole('Role', {
    metadata: { name: 'everything', namespace: 'wide' },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  l.addBinding(
    'RoleBinding',
    binding('dave-everything', 'Role', 'everything', subject('dave'), { namespace: 'wide' }),
  );
  l.addRole('ClusterRole', {
    metadata: { name: 'metrics-reader' },
    rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
  });
  l.addBinding(
    'ClusterRoleBinding',
    binding('ops-metrics', 'ClusterRole', 'metrics-reader', [{ kind: 'Group', name: 'ops' }]),
  );
  l.addRole('ClusterRole', {
    metadata: { name: 'all-powerful' },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  // erin administers workspace "team": a WorkspaceRole of that workspace, bound there.
  l.addRole('WorkspaceRole', {
    metadata: { name: 'team-admin', labels: ws('team') },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  l.addBinding(
    'WorkspaceRoleBinding',
    binding('erin-team', 'WorkspaceRole', 'team-admin', subject('erin'), { labels: ws('team') }),
  );
  l.addNamespace('x', 'team').addNamespace('y', 'other').addNamespace('wide').addNamespace('esc');
  return l;
}

const rbac = newAuthorizer('RBAC', new RuleResolver(listers()));
const may = async (who: string | { name: string; groups: string[] }, method: string, url: string) =>
  (
    await rbac.authorize(
      typeof who === 'string' ? user(who) : who,
      attributesOf(parseRequestInfo(method, url)),
    )
  ).allowed;

test('the mode factory: AlwaysAllow and AlwaysDeny ignore roles', async () => {
  const attrs = attributesOf(parseRequestInfo('GET', '/api/v1/nodes'));
  const l = listers();
  assert.deepEqual(await newAuthorizer('AlwaysAllow', new RuleResolver(l)).authorize(user('nobody'), attrs), {
    allowed: true,
    reason: 'authorization mode AlwaysAllow',
  });
  assert.equal(
    (await newAuthorizer('AlwaysDeny', new RuleResolver(l)).authorize(user('admin'), attrs)).allowed,
    false,
  );
});

test('attributes carry the scope whose bindings may grant the request', () => {
  const scope = (url: string) => attributesOf(parseRequestInfo('GET', url)).scope;
  assert.deepEqual(scope('/api/v1/nodes'), { kind: 'cluster', name: '' });
  assert.deepEqual(scope('/api/v1/namespaces/wide/nodes'), { kind: 'cluster', name: '' });
  assert.deepEqual(scope('/kapis/iam.kubesphere.io/v1alpha2/users'), { kind: 'global', name: '' });
  assert.deepEqual(scope('/apis/iam.kubesphere.io/v1alpha2/globalroles'), { kind: 'global', name: '' });
  assert.deepEqual(scope('/kapis/tenant.kubesphere.io/v1alpha2/workspaces/team'), {
    kind: 'global',
    name: '',
  });
  // A workspace's own metrics are judged in it (the console's workspace overview), the list of them cluster-wide.
  assert.deepEqual(scope('/kapis/monitoring.kubesphere.io/v1alpha3/workspaces/team'), {
    kind: 'workspace',
    name: 'team',
  });
  assert.deepEqual(scope('/kapis/monitoring.kubesphere.io/v1alpha3/workspaces'), {
    kind: 'cluster',
    name: '',
  });
  assert.deepEqual(scope('/metrics'), { kind: 'cluster', name: '' });
  assert.deepEqual(scope('/api/v1/namespaces/wide/pods'), { kind: 'namespace', name: 'wide' });
  assert.deepEqual(scope('/kapis/tenant.kubesphere.io/v1alpha2/workspaces/team/devops'), {
    kind: 'workspace',
    name: 'team',
  });
  // The namespace's workspace is its label, read by the resolver: the path's workspace is not carried.
  assert.deepEqual(scope('/kapis/tenant.kubesphere.io/v1alpha2/workspaces/team/namespaces/x/pods'), {
    kind: 'namespace',
    name: 'x',
  });
  assert.deepEqual(scope('/api/v1/watch/namespaces?labelSelector=kubesphere.io/workspace=team'), {
    kind: 'workspace',
    name: 'team',
  });
});

test('fixed policy: allow-listed paths, discovery and self-reviews for everyone, own user only', async () => {
  assert.equal(await may('nobody', 'GET', '/kapis/config.kubesphere.io/v1alpha2/configs/oauth'), true);
  assert.equal(await may('nobody', 'GET', '/apis'), true);
  assert.equal(await may('nobody', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'), true);
  assert.equal(await may('carol', 'GET', '/kapis/iam.kubesphere.io/v1alpha2/users/carol'), true);
  assert.equal(
    await may('carol', 'GET', '/kapis/resources.kubesphere.io/v1alpha2/users/carol/kubeconfig'),
    true,
  );
  assert.equal(await may('carol', 'GET', '/kapis/iam.kubesphere.io/v1alpha2/users/dave'), false);
  assert.equal(await may('carol', 'GET', '/kapis/iam.kubesphere.io/v1alpha2/users'), false);
  assert.equal(await may('carol', 'DELETE', '/kapis/iam.kubesphere.io/v1alpha2/users/carol'), false);
  // One's own membership anywhere, read-only (the console asks every workspace and project page for it).
  const I = '/kapis/iam.kubesphere.io/v1alpha2';
  for (const path of [
    `${I}/workspaces/elsewhere/workspacemembers/carol/workspaceroles`,
    `${I}/workspaces/elsewhere/workspacemembers/carol`,
    `${I}/namespaces/somewhere/members/carol/roles`,
    `${I}/clustermembers/carol/clusterroles`,
  ]) {
    assert.equal(await may('carol', 'GET', path), true, path);
    assert.equal(await may('carol', 'GET', path.replace('carol', 'dave')), false, path);
  }
  assert.equal(await may('carol', 'DELETE', `${I}/workspaces/elsewhere/workspacemembers/carol`), false);
  assert.equal(await may('carol', 'PUT', `${I}/namespaces/somewhere/members/carol`), false);
  // Storage classes, read-only, as KubeSphere's `authenticated` role allows.
  for (const path of [
    '/apis/storage.k8s.io/v1/storageclasses/standard',
    '/apis/storage.k8s.io/v1/storageclasses',
    '/kapis/resources.kubesphere.io/v1alpha3/storageclasses',
  ]) {
    assert.equal(await may('nobody', 'GET', path), true, path);
    assert.equal(await may('nobody', 'DELETE', path), false, path);
  }
  assert.equal(await may('nobody', 'GET', '/apis/storage.k8s.io/v1/watch/storageclasses'), false);
  assert.equal(await may('nobody', 'GET', '/api/v1/persistentvolumes'), false);
});

test('aggregated built-in global role: users-manager reads users, not cluster resources', async () => {
  const d = await rbac.authorize(
    user('bob'),
    attributesOf(parseRequestInfo('GET', '/kapis/iam.kubesphere.io/v1alpha2/users')),
  );
  assert.deepEqual(d, {
    allowed: true,
    reason: 'RBAC: allowed by GlobalRoleBinding "bob-users-manager" of GlobalRole "users-manager"',
  });
  assert.equal(await may('bob', 'GET', '/apis/iam.kubesphere.io/v1alpha2/users/carol'), true);
  assert.equal(await may('bob', 'GET', '/api/v1/nodes'), false);
  assert.deepEqual(
    await rbac.authorize(user('bob'), attributesOf(parseRequestInfo('GET', '/api/v1/nodes'))),
    { allowed: false, reason: '' },
  );
});

test('namespace-scoped permissions never grant cluster-scoped objects', async () => {
  assert.equal(await may('dave', 'GET', '/api/v1/namespaces/wide/configmaps'), true);
  assert.equal(
    await may('dave', 'GET', '/api/v1/namespaces/wide'),
    true,
    'the namespace itself, as in Kubernetes',
  );
  for (const path of [
    '/api/v1/nodes',
    '/api/v1/namespaces',
    '/api/v1/namespaces/wide/nodes',
    '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    '/apis/rbac.authorization.k8s.io/v1/namespaces/wide/clusterrolebindings',
    '/kapis/resources.kubesphere.io/v1alpha3/namespaces/wide/nodes',
    '/kapis/resources.kubesphere.io/v1alpha3/nodes',
    '/kapis/iam.kubesphere.io/v1alpha2/users',
    '/apis/iam.kubesphere.io/v1alpha2/namespaces/wide/globalroles',
    '/api/v1/namespaces/default/configmaps',
    '/metrics',
  ]) {
    assert.equal(await may('dave', 'GET', path), false, path);
  }
});

test("workspace bindings grant in their workspace and its namespaces, never another's or cluster objects", async () => {
  const base = '/kapis/tenant.kubesphere.io/v1alpha2/workspaces';
  assert.equal(await may('erin', 'GET', `${base}/team/devops`), true);
  assert.equal(await may('erin', 'GET', `${base}/team/namespaces/x/pods`), true);
  assert.equal(await may('erin', 'GET', '/api/v1/namespaces/x/pods'), true, 'x is labelled team');
  assert.equal(await may('erin', 'DELETE', '/api/v1/namespaces/x'), true, 'the namespace itself');
  assert.equal(
    await may('erin', 'GET', '/api/v1/watch/namespaces?labelSelector=kubesphere.io/workspace=team'),
    true,
  );
  assert.equal(await may('erin', 'GET', `${base}/other/devops`), false);
  assert.equal(await may('erin', 'GET', `${base}/team/namespaces/x/nodes`), false);
  assert.equal(await may('erin', 'GET', '/api/v1/nodes'), false);
  assert.equal(await may('erin', 'GET', '/api/v1/namespaces'), false);
  assert.equal(
    await may('erin', 'GET', '/api/v1/watch/namespaces?labelSelector=kubesphere.io/workspace=other'),
    false,
  );
  assert.equal(
    await may('erin', 'GET', '/api/v1/watch/secrets?labelSelector=kubesphere.io/workspace=team'),
    false,
  );
});

test("stance 1: a workspace admin gets nothing in an unlabelled namespace or in another workspace's", async () => {
  for (const path of [
    '/api/v1/namespaces/wide/pods',
    '/api/v1/namespaces/kube-system/secrets',
    '/api/v1/namespaces/missing/pods',
    '/api/v1/namespaces/y/pods',
    '/api/v1/namespaces/y',
    // the path's workspace does not place a namespace: y is labelled other, wide is unlabelled
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/team/namespaces/y/pods',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/team/namespaces/wide/pods',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/team/namespaces/y',
  ]) {
    assert.equal(await may('erin', 'GET', path), false, path);
  }
  const resolver = new RuleResolver(listers());
  const held = await resolver.rulesFor(user('erin'), scopeOf('kube-system', ''));
  assert.ok(!held.some((r) => r.verbs.includes('*')));
});

test('stance 2: a binding to a role of another workspace, or to no WorkspaceRole, grants nothing', async () => {
  const l = listers();
  l.addRole('WorkspaceRole', {
    metadata: { name: 'foreign', labels: ws('other') },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  l.addRole('WorkspaceRole', {
    metadata: { name: 'template' },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  for (const [name, kind, role] of [
    ['frank-foreign', 'WorkspaceRole', 'foreign'],
    ['frank-template', 'WorkspaceRole', 'template'],
    ['frank-cluster', 'ClusterRole', 'all-powerful'],
  ]) {
    l.addBinding('WorkspaceRoleBinding', binding(name, kind, role, subject('frank'), { labels: ws('team') }));
  }
  const authorizer = newAuthorizer('RBAC', new RuleResolver(l));
  for (const path of [
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/team/devops',
    '/api/v1/namespaces/x/pods',
    '/api/v1/namespaces/y/pods',
  ]) {
    const attrs = attributesOf(parseRequestInfo('GET', path));
    assert.equal((await authorizer.authorize(user('frank'), attrs)).allowed, false, path);
  }
});

test('group subjects: a group binding grants while the user is in the group', async () => {
  const l = listers();
  l.addRole('WorkspaceRole', {
    metadata: { name: 'team-viewer', labels: ws('team') },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
  });
  l.addBinding(
    'WorkspaceRoleBinding',
    binding('devs-view', 'WorkspaceRole', 'team-viewer', [{ kind: 'Group', name: 'devs' }], {
      labels: ws('team'),
    }),
  );
  l.addRole('Role', {
    metadata: { name: 'cm', namespace: 'y' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  l.addBinding(
    'RoleBinding',
    binding('devs-cm', 'Role', 'cm', [{ kind: 'Group', name: 'devs' }], { namespace: 'y' }),
  );
  l.addBinding(
    'GlobalRoleBinding',
    binding('devs-users', 'GlobalRole', 'users-manager', [{ kind: 'Group', name: 'devs' }]),
  );
  const authorizer = newAuthorizer('RBAC', new RuleResolver(l));
  const allowed = async (groups: string[], path: string) =>
    (await authorizer.authorize(user('hank', groups), attributesOf(parseRequestInfo('GET', path)))).allowed;
  for (const path of [
    '/api/v1/namespaces/x/pods',
    '/api/v1/namespaces/y/configmaps/a',
    '/kapis/iam.kubesphere.io/v1alpha2/users',
  ]) {
    assert.equal(await allowed(['devs'], path), true, path);
    assert.equal(await allowed(['system:authenticated'], path), false, path);
  }
  assert.equal(await allowed(['devs'], '/api/v1/namespaces/y/pods'), false, "the workspace role is team's");
});

test('the global scope is granted by global role bindings only', async () => {
  const l = listers();
  l.addBinding('ClusterRoleBinding', binding('ivy-all', 'ClusterRole', 'all-powerful', subject('ivy')));
  const authorizer = newAuthorizer('RBAC', new RuleResolver(l));
  const allowed = async (method: string, path: string) =>
    (await authorizer.authorize(user('ivy'), attributesOf(parseRequestInfo(method, path)))).allowed;
  assert.equal(await allowed('GET', '/api/v1/nodes'), true);
  assert.equal(await allowed('GET', '/kapis/tenant.kubesphere.io/v1alpha3/workspacetemplates'), true);
  assert.equal(await allowed('GET', '/kapis/iam.kubesphere.io/v1alpha2/users'), false);
  assert.equal(await allowed('GET', '/apis/iam.kubesphere.io/v1alpha2/globalroles'), false);
  // Nor may a cluster-wide grant be turned into a global one.
  const resolver = new RuleResolver(l);
  const check = new EscalationChecker(newAuthorizer('RBAC', resolver), resolver);
  await assert.rejects(
    check.checkWrite(
      user('ivy'),
      parseRequestInfo('POST', '/apis/iam.kubesphere.io/v1alpha2/globalrolebindings'),
      binding('ivy-admin', 'GlobalRole', 'platform-admin', subject('ivy')),
    ),
    (err: unknown) => err instanceof StatusError && err.code === 403,
  );
});

test('tenant reads through /kapis: lists for everyone (the route filters), a get by membership, never /apis', async () => {
  const t2 = '/kapis/tenant.kubesphere.io/v1alpha2';
  const t3 = '/kapis/tenant.kubesphere.io/v1alpha3';
  // The namespace lists too: each route answers only the namespaces the caller is bound in (a project member who
  // holds no workspace role still sees their project in the console's workspace page).
  for (const path of [
    `${t2}/workspaces`,
    `${t3}/workspacetemplates`,
    `${t3}/workspaces`,
    `${t2}/namespaces`,
  ]) {
    assert.equal(await may('nobody', 'GET', path), true, path);
  }
  assert.equal(await may('erin', 'GET', `${t2}/workspaces/team/namespaces`), true);
  assert.equal(await may('nobody', 'GET', `${t2}/workspaces/team/namespaces`), false);
  for (const [method, path] of [
    ['GET', `${t2}/workspaces/team/namespaces/x`],
    ['POST', `${t2}/workspaces/team/namespaces`],
    ['GET', '/api/v1/namespaces'],
  ]) {
    assert.equal(await may('nobody', method, path), false, `${method} ${path}`);
  }
  for (const path of [`${t2}/workspaces/team`, `${t3}/workspacetemplates/team`, `${t3}/workspaces/team`]) {
    assert.equal(await may('erin', 'GET', path), true, path);
    assert.equal(await may('nobody', 'GET', path), false, path);
  }
  assert.equal(await may(user('hank', ['team-admins']), 'GET', `${t2}/workspaces/team`), false);
  for (const [method, path] of [
    ['GET', `${t2}/workspaces/other`],
    ['DELETE', `${t2}/workspaces/team`],
    ['PUT', `${t2}/workspaces/team`],
    ['GET', `${t2}/workspaces?watch=true`],
    ['GET', `${t2}/workspaces?fieldSelector=metadata.name=other`],
    ['GET', '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates'],
    ['GET', '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates/team'],
    ['GET', '/apis/tenant.kubesphere.io/v1alpha1/workspaces/team'],
  ]) {
    assert.equal(await may('erin', method, path), false, `${method} ${path}`);
  }
  // A group's membership counts as the user's.
  const l = listers();
  l.addBinding(
    'WorkspaceRoleBinding',
    binding('admins', 'WorkspaceRole', 'team-admin', [{ kind: 'Group', name: 'team-admins' }], {
      labels: ws('team'),
    }),
  );
  const attrs = attributesOf(parseRequestInfo('GET', `${t2}/workspaces/team`));
  const d = await newAuthorizer('RBAC', new RuleResolver(l)).authorize(user('hank', ['team-admins']), attrs);
  assert.deepEqual(d, { allowed: true, reason: 'member of workspace "team"' });
});

test('memberships: workspaces and namespaces whose bindings name the user or their groups', async () => {
  const l = listers();
  l.addBinding(
    'WorkspaceRoleBinding',
    binding('devs', 'WorkspaceRole', 'team-admin', [{ kind: 'Group', name: 'devs' }], {
      labels: ws('other'),
    }),
  );
  l.addBinding('RoleBinding', binding('erin-y', 'Role', 'cm', subject('erin'), { namespace: 'y' }));
  l.addBinding('RoleBinding', binding('erin-x', 'Role', 'cm', subject('erin'), { namespace: 'x' }));
  const resolver = new RuleResolver(l);
  assert.deepEqual(await resolver.workspacesOf(user('erin')), new Set(['team']));
  assert.deepEqual(await resolver.workspacesOf(user('erin', ['devs'])), new Set(['team', 'other']));
  assert.equal(await resolver.isWorkspaceMember(user('erin'), 'team'), true);
  assert.equal(await resolver.isWorkspaceMember(user('erin'), 'other'), false);
  assert.equal(await resolver.isWorkspaceMember(user('erin'), ''), false);
  assert.deepEqual(await resolver.namespacesOf(user('erin')), new Set(['x', 'y']));
  assert.deepEqual(await resolver.namespacesOf(user('erin'), 'team'), new Set(['x']));
  assert.deepEqual(await resolver.namespacesOf(user('carol')), new Set(['esc']));
});

test('non-resource URLs: granted by a ClusterRole bound cluster-wide, here to a group', async () => {
  assert.equal(await may(user('gina', ['ops']), 'GET', '/metrics'), true);
  assert.equal(await may(user('gina', ['ops']), 'GET', '/api/v1/nodes'), false);
  assert.equal(await may('gina', 'GET', '/metrics'), false);
});

test('rulesFor: every rule held at a scope, the common ones included', async () => {
  const resolver = new RuleResolver(listers());
  const carolInEsc = await resolver.rulesFor(user('carol'), scopeOf('esc', ''));
  assert.ok(carolInEsc.some((r) => r.resources?.includes('configmaps')));
  assert.ok(carolInEsc.some((r) => r.resources?.includes('selfsubjectaccessreviews')));
  const carolElsewhere = await resolver.rulesFor(user('carol'), scopeOf('other', ''));
  assert.ok(!carolElsewhere.some((r) => r.resources?.includes('configmaps')));
  const erin = await resolver.rulesFor(user('erin'), scopeOf('x', ''));
  assert.ok(
    erin.some((r) => r.verbs.includes('*')),
    'x is labelled team',
  );
  const erinInY = await resolver.rulesFor(user('erin'), scopeOf('y', ''));
  assert.ok(!erinInY.some((r) => r.verbs.includes('*')));
});

test('a resolver whose listers never load answers 503', { timeout: 15_000 }, async () => {
  const l = listers();
  l.hasSynced = () => false;
  l.waitForSync = async () => false;
  await assert.rejects(
    newAuthorizer('RBAC', new RuleResolver(l)).authorize(
      user('bob'),
      attributesOf(parseRequestInfo('GET', '/api/v1/nodes')),
    ),
    (err: unknown) => err instanceof StatusError && err.code === 503,
  );
});

const escalation = () => {
  const resolver = new RuleResolver(listers());
  return new EscalationChecker(newAuthorizer('RBAC', resolver), resolver);
};
const write = (url: string) => parseRequestInfo('POST', url);
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const refusedAs = (pattern: RegExp) => (err: unknown) =>
  err instanceof StatusError && err.code === 403 && pattern.test(err.message);

test('escalation: a role may grant only what its writer holds at its scope', async () => {
  const check = escalation();
  const roles = write(`${RBAC}/namespaces/esc/roles`);
  await check.checkWrite(user('carol'), roles, {
    metadata: { name: 'cm-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  await assert.rejects(
    check.checkWrite(user('carol'), roles, {
      metadata: { name: 'secret-reader' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    }),
    refusedAs(/User "carol" is attempting to grant RBAC permissions not currently held/),
  );
  await check.checkWrite(user('carol'), roles, {
    metadata: { name: 'sneaky', annotations: { 'iam.kubesphere.io/aggregation-roles': '["ns-admin"]' } },
    rules: [],
  });
  // Aggregation resolves in the role's own namespace: "everything" lives in "wide", so it adds nothing in "esc".
  await check.checkWrite(user('carol'), roles, {
    metadata: { name: 'elsewhere', annotations: { 'iam.kubesphere.io/aggregation-roles': '["everything"]' } },
    rules: [],
  });
});

test('escalation: a binding may bind only an existing role whose rules its writer holds', async () => {
  const check = escalation();
  const bindings = write(`${RBAC}/namespaces/esc/rolebindings`);
  await check.checkWrite(user('carol'), bindings, binding('dave-ns', 'Role', 'ns-admin', subject('dave')));
  await assert.rejects(
    check.checkWrite(
      user('carol'),
      bindings,
      binding('self', 'ClusterRole', 'all-powerful', subject('carol')),
    ),
    refusedAs(/the ClusterRole "all-powerful" grants/),
  );
  await assert.rejects(
    check.checkWrite(user('carol'), bindings, binding('none', 'Role', 'not-there-yet', subject('carol'))),
    refusedAs(/does not exist/),
  );
  const grb = write('/apis/iam.kubesphere.io/v1alpha2/globalrolebindings');
  await assert.rejects(
    check.checkWrite(user('bob'), grb, binding('bob-admin', 'GlobalRole', 'platform-admin', subject('bob'))),
    refusedAs(/not currently held/),
  );
  await check.checkWrite(
    user('bob'),
    grb,
    binding('carol-regular', 'GlobalRole', 'platform-regular', subject('carol')),
  );
  // dave holds `bind` (every verb) in "wide": nothing is checked there.
  const wide = parseRequestInfo('POST', `${RBAC}/namespaces/wide/rolebindings`);
  assert.equal(await check.mayGrantAnything(user('dave'), wide), true);
  assert.equal(await check.mayGrantAnything(user('carol'), bindings), false);
  await check.checkWrite(user('dave'), wide, binding('any', 'ClusterRole', 'all-powerful', subject('dave')));
});

test('escalation: adding a user to a group needs what the group is granted', async () => {
  const check = escalation();
  const info = parseRequestInfo('PUT', '/apis/iam.kubesphere.io/v1alpha2/users/gina');
  await assert.rejects(
    check.checkGroups(user('carol'), info, ['ops']),
    refusedAs(/the group "ops" is granted by ClusterRoleBinding "ops-metrics"/),
  );
  await check.checkGroups(user('carol'), info, ['nobody-binds-this']);
  await check.checkGroups(user('gina', ['ops']), info, ['ops']);
});
