// Cached RBAC decisions: a change to roles, bindings or namespaces applies from the next request (grants and
// revocations alike), decisions are never shared between users, groups or attributes, a decision made while the data
// changed is not kept, and the cache is bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/apiserver/cluster/index.ts';
import { parseRequestInfo } from '../../../src/apiserver/filters/requestinfo.ts';
import {
  type AuthorizationAttributes,
  type Authorizer,
  attributesOf,
  newAuthorizer,
} from '../../../src/apiserver/iam/authorizer.ts';
import { CachingAuthorizer } from '../../../src/apiserver/iam/decision-cache.ts';
import { RuleResolver } from '../../../src/apiserver/iam/rbac-resolver.ts';
import { inWorkspace, MemoryRbacListers } from './memory-listers.ts';

const ALL = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];
const attrs = (method: string, url: string) => attributesOf(parseRequestInfo(method, url));
const bindingOf = (name: string, kind: string, role: string, subjects: unknown[], meta: object = {}) =>
  ({ metadata: { name, ...meta }, roleRef: { kind, name: role }, subjects }) as KubeObject;

function setUp() {
  const listers = new MemoryRbacListers();
  listers.addRole('WorkspaceRole', {
    metadata: { name: 'team-admin', labels: inWorkspace('team') },
    rules: ALL,
  });
  listers.addBinding(
    'WorkspaceRoleBinding',
    bindingOf('erin-team', 'WorkspaceRole', 'team-admin', [{ kind: 'User', name: 'erin' }], {
      labels: inWorkspace('team'),
    }),
  );
  listers.addNamespace('x', 'team');
  const authorizer = newAuthorizer('RBAC', new RuleResolver(listers));
  const may = async (user: { name: string; groups: string[] }, method: string, url: string) =>
    (await authorizer.authorize(user, attrs(method, url))).allowed;
  return { listers, may };
}

const erin = { name: 'erin', groups: ['system:authenticated'] };

test('a grant or a revocation applies from the next request', async () => {
  const { listers, may } = setUp();
  assert.equal(await may(erin, 'GET', '/api/v1/namespaces/x/pods'), true);
  assert.equal(await may(erin, 'GET', '/api/v1/namespaces/x/pods'), true, 'the cached decision');
  // The namespace leaves the workspace: the workspace binding no longer reaches it.
  listers.addNamespace('x', 'elsewhere');
  assert.equal(await may(erin, 'GET', '/api/v1/namespaces/x/pods'), false);
  assert.equal(await may(erin, 'GET', '/api/v1/nodes'), false);
  listers.addRole('ClusterRole', { metadata: { name: 'node-reader' }, rules: ALL });
  listers.addBinding(
    'ClusterRoleBinding',
    bindingOf('erin-nodes', 'ClusterRole', 'node-reader', [{ kind: 'User', name: 'erin' }]),
  );
  assert.equal(await may(erin, 'GET', '/api/v1/nodes'), true, 'the refusal was not kept');
});

test('decisions are never shared between users, groups or attributes', async () => {
  const { listers, may } = setUp();
  listers.addBinding(
    'WorkspaceRoleBinding',
    bindingOf('team-group', 'WorkspaceRole', 'team-admin', [{ kind: 'Group', name: 'team-members' }], {
      labels: inWorkspace('team'),
    }),
  );
  assert.equal(await may(erin, 'GET', '/api/v1/namespaces/x/pods'), true);
  assert.equal(await may({ name: 'frank', groups: [] }, 'GET', '/api/v1/namespaces/x/pods'), false);
  assert.equal(
    await may({ name: 'frank', groups: ['team-members'] }, 'GET', '/api/v1/namespaces/x/pods'),
    true,
  );
  assert.equal(await may({ name: 'frank', groups: [] }, 'GET', '/api/v1/namespaces/x/pods'), false);
  // Names that a plain join would run together with the next part.
  assert.equal(
    await may({ name: 'frank', groups: ['team-members|x'] }, 'GET', '/api/v1/namespaces/x/pods'),
    false,
  );
  assert.equal(await may(erin, 'GET', '/api/v1/namespaces/y/pods'), false, 'another namespace');
  assert.equal(await may(erin, 'GET', '/api/v1/namespaces/x/pods'), true);
});

/** An authorizer that allows everything and counts what it was asked; `during` runs inside each decision. */
function counting(during: () => void = () => {}) {
  const asked: string[] = [];
  const inner: Authorizer = {
    async authorize(_user, a: AuthorizationAttributes) {
      asked.push(a.path);
      during();
      return { allowed: true, reason: 'test' };
    },
  };
  return { asked, inner };
}

test('a decision made while the data changed is not kept', async () => {
  let revision = 0;
  const { asked, inner } = counting(() => revision++);
  const cache = new CachingAuthorizer(inner, () => revision);
  await cache.authorize(erin, attrs('GET', '/api/v1/nodes'));
  await cache.authorize(erin, attrs('GET', '/api/v1/nodes'));
  assert.deepEqual(asked, ['/api/v1/nodes', '/api/v1/nodes']);
});

test('bounded: the oldest decision is forgotten first', async () => {
  const { asked, inner } = counting();
  const cache = new CachingAuthorizer(inner, () => 0, 2);
  for (const path of ['/api/v1/nodes', '/api/v1/pods', '/api/v1/nodes', '/api/v1/services', '/api/v1/pods']) {
    await cache.authorize(erin, attrs('GET', path));
  }
  // nodes and pods cached; services evicts nodes; pods is still there.
  assert.deepEqual(asked, ['/api/v1/nodes', '/api/v1/pods', '/api/v1/services']);
  await cache.authorize(erin, attrs('GET', '/api/v1/nodes'));
  assert.equal(asked.length, 4, 'nodes was forgotten');
});
