import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequestInfo } from '../../../src/apiserver/filters/requestinfo.ts';
import type { RequestInfo } from '../../../src/apiserver/request.ts';

type Expect = Partial<RequestInfo>;
const R = true;

// [method, url, expected subset]
const cases: [string, string, Expect][] = [
  [
    'GET',
    '/kapis/resources.kubesphere.io/v1alpha3/nodes',
    {
      isResourceRequest: R,
      verb: 'list',
      apiPrefix: 'kapis',
      apiGroup: 'resources.kubesphere.io',
      apiVersion: 'v1alpha3',
      resource: 'nodes',
      name: '',
      namespace: '',
      resourceScope: 'Cluster',
      isKubernetesRequest: false,
    },
  ],
  [
    'GET',
    '/kapis/resources.kubesphere.io/v1alpha3/nodes/node1',
    { verb: 'get', resource: 'nodes', name: 'node1' },
  ],
  [
    'GET',
    '/kapis/resources.kubesphere.io/v1alpha3/namespaces/default/pods/web-1',
    { verb: 'get', namespace: 'default', resource: 'pods', name: 'web-1', resourceScope: 'Namespace' },
  ],
  [
    'GET',
    '/kapis/resources.kubesphere.io/v1alpha3/namespaces/kube-system/pods?page=1&limit=10',
    { verb: 'list', namespace: 'kube-system', resource: 'pods' },
  ],
  [
    'GET',
    '/api/v1/namespaces/default/pods/web-1/log',
    {
      verb: 'get',
      apiGroup: '',
      apiVersion: 'v1',
      namespace: 'default',
      resource: 'pods',
      name: 'web-1',
      subresource: 'log',
      isKubernetesRequest: R,
    },
  ],
  [
    'GET',
    '/apis/apps/v1/deployments',
    { verb: 'list', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', isKubernetesRequest: R },
  ],
  [
    'GET',
    '/apis/apps/v1/namespaces/ns1/deployments/web/scale',
    { verb: 'get', namespace: 'ns1', resource: 'deployments', name: 'web', subresource: 'scale' },
  ],
  ['PUT', '/apis/apps/v1/namespaces/ns1/deployments/web/scale', { verb: 'update', subresource: 'scale' }],
  ['PATCH', '/apis/apps/v1/namespaces/ns1/deployments/web', { verb: 'patch', name: 'web' }],
  [
    'POST',
    '/api/v1/namespaces/default/configmaps',
    { verb: 'create', resource: 'configmaps', namespace: 'default', name: '' },
  ],
  ['DELETE', '/api/v1/namespaces/default/configmaps/c1', { verb: 'delete', name: 'c1' }],
  ['DELETE', '/api/v1/namespaces/default/configmaps', { verb: 'deletecollection', name: '' }],
  ['GET', '/api/v1/pods?watch=true', { verb: 'watch', resource: 'pods' }],
  ['GET', '/api/v1/pods?watch=1&resourceVersion=10', { verb: 'watch' }],
  ['GET', '/api/v1/pods?watch=false', { verb: 'list' }],
  ['GET', '/api/v1/watch/namespaces/default/pods', { verb: 'watch', namespace: 'default', resource: 'pods' }],
  ['GET', '/api/v1/watch/namespaces/default/pods/p1', { verb: 'watch', name: 'p1' }],
  [
    'GET',
    '/api/v1/namespaces/default',
    { verb: 'get', resource: 'namespaces', name: 'default', namespace: 'default' },
  ],
  [
    'PUT',
    '/api/v1/namespaces/default/status',
    { verb: 'update', resource: 'namespaces', name: 'default', subresource: 'status' },
  ],
  [
    'PUT',
    '/api/v1/namespaces/t1/finalize',
    { verb: 'update', resource: 'namespaces', name: 't1', subresource: 'finalize' },
  ],
  ['GET', '/api/v1/namespaces', { verb: 'list', resource: 'namespaces', namespace: '' }],
  // A namespace itself sits in its own namespace (RBAC can grant it there)...
  [
    'GET',
    '/api/v1/namespaces/demo',
    { resource: 'namespaces', namespace: 'demo', resourceScope: 'Namespace' },
  ],
  [
    'PUT',
    '/api/v1/namespaces/demo/finalize',
    { resource: 'namespaces', name: 'demo', namespace: 'demo', resourceScope: 'Namespace' },
  ],
  // ...but cluster-scoped resources under /namespaces/{ns}/ keep the namespace the path names (as Kubernetes parses
  // them) and are cluster-scoped: no namespaced grant reaches them (and no namespaced route serves them).
  [
    'GET',
    '/api/v1/namespaces/demo/namespaces',
    { verb: 'list', resource: 'namespaces', name: '', namespace: 'demo', resourceScope: 'Cluster' },
  ],
  [
    'DELETE',
    '/api/v1/namespaces/demo/namespaces/victim',
    { verb: 'delete', resource: 'namespaces', name: 'victim', namespace: 'demo', resourceScope: 'Cluster' },
  ],
  [
    'POST',
    '/api/v1/namespaces/demo/namespaces',
    { verb: 'create', resource: 'namespaces', namespace: 'demo', resourceScope: 'Cluster' },
  ],
  [
    'PATCH',
    '/api/v1/namespaces/demo/namespaces/victim/status',
    { verb: 'patch', name: 'victim', subresource: 'status', namespace: 'demo', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/api/v1/watch/namespaces/demo/namespaces',
    { verb: 'watch', resource: 'namespaces', namespace: 'demo', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/api/v1/namespaces/demo/nodes/n1',
    { verb: 'get', resource: 'nodes', name: 'n1', namespace: 'demo', resourceScope: 'Cluster' },
  ],
  [
    'POST',
    '/apis/rbac.authorization.k8s.io/v1/namespaces/demo/clusterroles',
    { verb: 'create', resource: 'clusterroles', namespace: 'demo', resourceScope: 'Cluster' },
  ],
  [
    'POST',
    '/apis/iam.kubesphere.io/v1alpha2/namespaces/demo/workspacerolebindings',
    { resource: 'workspacerolebindings', namespace: 'demo', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/kapis/iam.kubesphere.io/v1alpha2/workspaces/ws1/workspaceroles',
    { resource: 'workspaceroles', workspace: 'ws1', resourceScope: 'Workspace' },
  ],
  [
    'GET',
    '/kapis/iam.kubesphere.io/v1alpha2/namespaces/demo/users',
    { resource: 'users', namespace: 'demo', resourceScope: 'Global' },
  ],
  [
    'GET',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/ws1/namespaces/demo/namespaces',
    { workspace: 'ws1', namespace: 'demo', resource: 'namespaces', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/ws1/namespaces/demo',
    { workspace: 'ws1', namespace: 'demo', resource: 'namespaces', name: 'demo', resourceScope: 'Namespace' },
  ],
  [
    'GET',
    '/api/v1/nodes/node1/proxy/metrics',
    { verb: 'get', resource: 'nodes', name: 'node1', subresource: 'proxy' },
  ],
  [
    'GET',
    '/api/v1/proxy/nodes/node1/metrics',
    { verb: 'proxy', resource: 'nodes', name: 'node1', subresource: '' },
  ],
  [
    'POST',
    '/api/v1/namespaces/default/pods/p1/exec?command=ls',
    { verb: 'create', subresource: 'exec', name: 'p1' },
  ],
  ['GET', '/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dp1', { verb: 'list', name: 'p1' }],
  [
    'GET',
    '/api/v1/namespaces/default/pods?fieldSelector=metadata.name==p2,status.phase=Running',
    { verb: 'list', name: 'p2' },
  ],
  [
    'GET',
    '/kapis/iam.kubesphere.io/v1alpha2/users',
    { verb: 'list', apiGroup: 'iam.kubesphere.io', resource: 'users', resourceScope: 'Global' },
  ],
  // KubeSphere's scopes (reference 3.5): the global list, workspace paths, watches selecting one workspace
  ['GET', '/apis/iam.kubesphere.io/v1alpha2/globalroles', { resourceScope: 'Global' }],
  ['GET', '/kapis/iam.kubesphere.io/v1alpha2/globalrolebindings/x', { resourceScope: 'Global' }],
  [
    'GET',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces',
    { verb: 'list', resource: 'workspaces', resourceScope: 'Global' },
  ],
  [
    'GET',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/ws1',
    { verb: 'get', resource: 'workspaces', name: 'ws1', workspace: 'ws1', resourceScope: 'Global' },
  ],
  [
    'GET',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/ws1/clusters',
    { resource: 'clusters', workspace: 'ws1', resourceScope: 'Global' },
  ],
  ['GET', '/kapis/cluster.kubesphere.io/v1alpha1/clusters', { resourceScope: 'Global' }],
  ['GET', '/kapis/resources.kubesphere.io/v1alpha3/clusters', { resourceScope: 'Global' }],
  ['GET', '/kapis/tenant.kubesphere.io/v1alpha3/workspacetemplates', { resourceScope: 'Cluster' }],
  ['GET', '/apis/iam.kubesphere.io/v1alpha2/workspaceroles', { resourceScope: 'Cluster' }],
  [
    'GET',
    '/kapis/iam.kubesphere.io/v1alpha2/workspaces/ws1/workspacemembers/u1',
    { workspace: 'ws1', resource: 'workspacemembers', name: 'u1', resourceScope: 'Workspace' },
  ],
  [
    'GET',
    '/api/v1/watch/namespaces?labelSelector=kubesphere.io%2Fworkspace%3Dws1',
    { verb: 'watch', resource: 'namespaces', workspace: 'ws1', resourceScope: 'Workspace' },
  ],
  [
    'GET',
    '/api/v1/namespaces?watch=true&labelSelector=kubesphere.io/workspace==ws1,team!=x',
    { verb: 'watch', workspace: 'ws1', resourceScope: 'Workspace' },
  ],
  [
    'GET',
    '/api/v1/namespaces?watch=1&labelSelector=team%20in%20(a,b),kubesphere.io/workspace%20in%20(ws1)',
    { verb: 'watch', workspace: 'ws1', resourceScope: 'Workspace' },
  ],
  [
    'GET',
    '/apis/iam.kubesphere.io/v1alpha2/watch/workspacerolebindings?labelSelector=kubesphere.io/workspace=ws1',
    { verb: 'watch', workspace: 'ws1', resourceScope: 'Workspace' },
  ],
  // not one workspace: two, a set of two, a prefix trick, a malformed selector, a list, a namespaced resource
  [
    'GET',
    '/api/v1/watch/namespaces?labelSelector=kubesphere.io/workspace=ws1,kubesphere.io/workspace=ws2',
    { workspace: '', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/api/v1/watch/namespaces?labelSelector=kubesphere.io/workspace%20in%20(ws1,ws2)',
    { workspace: '', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/api/v1/watch/namespaces?labelSelector=kubesphere.io/workspace-x=ws1',
    { workspace: '', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/api/v1/watch/namespaces?labelSelector=kubesphere.io/workspace=ws1,(',
    { workspace: '', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/api/v1/namespaces?labelSelector=kubesphere.io/workspace=ws1',
    { verb: 'list', workspace: '', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/api/v1/watch/secrets?labelSelector=kubesphere.io/workspace=ws1',
    { verb: 'watch', workspace: '', resourceScope: 'Cluster' },
  ],
  [
    'GET',
    '/api/v1/watch/nodes?labelSelector=kubesphere.io/workspace=ws1',
    { verb: 'watch', workspace: '', resourceScope: 'Cluster' },
  ],
  [
    'PUT',
    '/kapis/iam.kubesphere.io/v1alpha2/users/admin/password',
    { verb: 'update', resource: 'users', name: 'admin', subresource: 'password' },
  ],
  [
    'GET',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/ws1/namespaces',
    { verb: 'list', workspace: 'ws1', resource: 'namespaces', resourceScope: 'Workspace' },
  ],
  [
    'GET',
    '/kapis/tenant.kubesphere.io/v1alpha2/workspaces/ws1/namespaces/ns1/pods',
    { workspace: 'ws1', namespace: 'ns1', resource: 'pods', resourceScope: 'Namespace' },
  ],
  [
    'GET',
    '/kapis/clusters/host/resources.kubesphere.io/v1alpha3/nodes',
    { cluster: 'host', apiGroup: 'resources.kubesphere.io', resource: 'nodes', verb: 'list' },
  ],
  [
    'GET',
    '/kapi/v1alpha1/things',
    {
      apiPrefix: 'kapi',
      apiGroup: '',
      apiVersion: 'v1alpha1',
      resource: 'things',
      isKubernetesRequest: false,
    },
  ],
  ['HEAD', '/api/v1/nodes/node1', { verb: 'get', name: 'node1' }],
  ['GET', '/api/v1/namespaces/a%2Fb/pods', { namespace: 'a/b', resource: 'pods' }],
  // non-resource requests
  ['GET', '/healthz', { isResourceRequest: false, verb: 'get', path: '/healthz', apiPrefix: '' }],
  ['POST', '/oauth/token', { isResourceRequest: false, verb: 'post', path: '/oauth/token' }],
  ['GET', '/version', { isResourceRequest: false, verb: 'get' }],
  ['GET', '/kapis/version', { isResourceRequest: false, apiPrefix: 'kapis' }],
  ['GET', '/api', { isResourceRequest: false, apiPrefix: 'api', verb: 'get', resourceScope: 'Cluster' }],
  // non-resource verbs are lower-case, as Kubernetes' (so system:discovery's `get` on /apis matches)
  ['DELETE', '/apis', { isResourceRequest: false, verb: 'delete' }],
  ['POST', '/apis/apps/v1', { isResourceRequest: false, verb: 'post' }],
  ['GET', '/api/v1', { isResourceRequest: false }],
  ['GET', '/apis', { isResourceRequest: false }],
  ['GET', '/apis/apps/v1', { isResourceRequest: false }],
  ['GET', '/apis/apps', { isResourceRequest: false }],
  ['GET', '/openapi/v3', { isResourceRequest: false }],
  [
    'GET',
    '/api/v1/../../kapis/iam.kubesphere.io/v1alpha2/users',
    { isResourceRequest: false, apiPrefix: '' },
  ],
  ['GET', '/api/v1/namespaces/%E0%A4%A/pods', { isResourceRequest: false }],
  ['GET', '//api//v1//nodes', { isResourceRequest: R, resource: 'nodes', verb: 'list' }],
  ['GET', '/api/v1/watch', { isResourceRequest: false }],
];

test(`request info over ${cases.length} paths`, () => {
  assert.ok(cases.length >= 25);
  for (const [method, url, expected] of cases) {
    const info = parseRequestInfo(method, url);
    const actual = Object.fromEntries(Object.keys(expected).map((k) => [k, info[k as keyof RequestInfo]]));
    const want = Object.fromEntries(
      Object.entries(expected).map(([k, v]) => [k, k === 'isResourceRequest' && v === undefined ? true : v]),
    );
    if (!('isResourceRequest' in expected)) {
      assert.equal(info.isResourceRequest, true, `${method} ${url}: expected a resource request`);
    }
    assert.deepEqual(actual, want, `${method} ${url}`);
  }
});
