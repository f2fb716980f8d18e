// Pure RBAC rule evaluation (src/k8s/rbac.ts): matching as the Kubernetes RBAC authorizer, subject matching,
// coverage for escalation checks, and Kubernetes' forbidden message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  forbiddenMessage,
  parseRules,
  type RbacAttributes,
  ruleAllows,
  subjectMatches,
  uncoveredRules,
} from '../../../src/k8s/rbac.ts';

const res = (over: Partial<RbacAttributes>): RbacAttributes => ({
  isResourceRequest: true,
  verb: 'get',
  apiGroup: '',
  resource: 'pods',
  subresource: '',
  name: '',
  namespace: 'default',
  path: '/api/v1/namespaces/default/pods',
  ...over,
});

test('verbs, groups, resources and names match as in Kubernetes', () => {
  const r = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
  assert.equal(ruleAllows(res({}), r), true);
  assert.equal(ruleAllows(res({ verb: 'delete' }), r), false);
  assert.equal(ruleAllows(res({ apiGroup: 'apps' }), r), false);
  assert.equal(ruleAllows(res({ resource: 'secrets' }), r), false);
  // A subresource is its own resource: pods does not grant pods/exec or pods/log.
  assert.equal(ruleAllows(res({ subresource: 'log' }), r), false);
  assert.equal(ruleAllows(res({ subresource: 'log' }), { ...r, resources: ['pods/log'] }), true);
  assert.equal(ruleAllows(res({ subresource: 'status' }), { ...r, resources: ['*/status'] }), true);
  assert.equal(
    ruleAllows(res({ subresource: 'exec', verb: 'create' }), {
      verbs: ['*'],
      apiGroups: ['*'],
      resources: ['*'],
    }),
    true,
  );
  const named = { ...r, resourceNames: ['web'] };
  assert.equal(ruleAllows(res({ name: 'web' }), named), true);
  assert.equal(ruleAllows(res({ name: 'db' }), named), false);
  assert.equal(
    ruleAllows(res({ verb: 'list', name: '' }), named),
    false,
    'resourceNames never grant a plain list',
  );
});

test('non-resource URLs: exact, trailing * prefix, and * ', () => {
  const nr = (path: string, verb = 'get'): RbacAttributes => res({ isResourceRequest: false, path, verb });
  const r = { verbs: ['get'], nonResourceURLs: ['/metrics', '/apis/*'] };
  assert.equal(ruleAllows(nr('/metrics'), r), true);
  assert.equal(ruleAllows(nr('/metrics/x'), r), false);
  assert.equal(ruleAllows(nr('/apis/apps/v1'), r), true);
  assert.equal(ruleAllows(nr('/metrics', 'post'), r), false);
  assert.equal(ruleAllows(nr('/anything'), { verbs: ['*'], nonResourceURLs: ['*'] }), true);
  // A resource rule never grants a non-resource URL and vice versa.
  assert.equal(ruleAllows(nr('/metrics'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }), false);
  assert.equal(ruleAllows(res({}), { verbs: ['*'], nonResourceURLs: ['*'] }), false);
});

test('subjects: users, groups, service accounts (namespace defaults to the binding)', () => {
  const u = { name: 'system:serviceaccount:ns1:robot', groups: ['system:authenticated'] };
  assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'robot' }, u, 'ns1'), true);
  assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'robot' }, u, 'ns2'), false);
  assert.equal(subjectMatches({ kind: 'Group', name: 'system:authenticated' }, u), true);
  assert.equal(subjectMatches({ kind: 'User', name: 'robot' }, u), false);
});

test('parseRules drops malformed entries instead of granting anything', () => {
  assert.deepEqual(parseRules('x'), []);
  assert.deepEqual(parseRules([{ verbs: [] }, null, { resources: ['*'] }, { verbs: 'get' }]), []);
  assert.equal(parseRules([{ verbs: ['get', 3], resources: ['pods'] }])[0].verbs.length, 1);
});

test('coverage: a holder of narrower rules cannot grant wider ones', () => {
  const held = parseRules([
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'configmaps'] },
    { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'] },
    { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['one'] },
  ]);
  assert.deepEqual(
    uncoveredRules(held, parseRules([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])),
    [],
  );
  assert.deepEqual(
    uncoveredRules(
      held,
      parseRules([{ verbs: ['create', 'patch'], apiGroups: ['apps'], resources: ['deployments'] }]),
    ),
    [],
  );
  assert.equal(
    uncoveredRules(held, parseRules([{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }])).length,
    1,
  );
  assert.equal(
    uncoveredRules(held, parseRules([{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }])).length,
    1,
  );
  assert.equal(
    uncoveredRules(held, parseRules([{ verbs: ['get'], apiGroups: ['*'], resources: ['pods'] }])).length,
    1,
  );
  assert.equal(
    uncoveredRules(held, parseRules([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }])).length,
    1,
  );
  assert.deepEqual(
    uncoveredRules(
      held,
      parseRules([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['one'] }]),
    ),
    [],
  );
  assert.equal(
    uncoveredRules(held, parseRules([{ verbs: ['get'], nonResourceURLs: ['/metrics'] }])).length,
    1,
  );
  const admin = parseRules([
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]);
  assert.deepEqual(uncoveredRules(admin, [...held, { verbs: ['get'], nonResourceURLs: ['/metrics'] }]), []);
});

test('forbidden messages read like Kubernetes', () => {
  assert.equal(
    forbiddenMessage('alice', res({ verb: 'list', resource: 'nodes', namespace: '' })),
    'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope',
  );
  assert.equal(
    forbiddenMessage('alice', res({ verb: 'create', subresource: 'exec', name: 'web' })),
    'pods "web" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "default"',
  );
  assert.equal(
    forbiddenMessage('alice', res({ verb: 'get', apiGroup: 'apps', resource: 'deployments', name: 'x' })),
    'deployments.apps "x" is forbidden: User "alice" cannot get resource "deployments" in API group "apps" in the namespace "default"',
  );
  assert.equal(
    forbiddenMessage('bob', res({ isResourceRequest: false, path: '/metrics' })),
    'forbidden: User "bob" cannot get path "/metrics"',
  );
});
