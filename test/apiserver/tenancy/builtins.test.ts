// A fresh start has what a fresh KubeSphere install has: system-workspace with the system namespaces in it, the role
// templates and role bases; the tenancy CRDs validate what clients send; an operator's edits of built-in objects
// survive a restart of kapiserver, and a deleted built-in object comes back.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { CRD_SPEC_FILE } from '../../../src/apiserver/openapi/generate.ts';
import { SYSTEM_NAMESPACES } from '../../../src/apiserver/tenancy/builtins.ts';
import { type DevCluster, startDevCluster } from '../../../src/devcluster/index.ts';
import { hasKubectl, kubectlOk, NO_KUBECTL, writeKubeconfig } from '../../helpers/kubectl.ts';
import { login } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// biome-ignore lint/suspicious/noExplicitAny: test bodies are arbitrary JSON read by assertions
type Json = any;

const IAM = '/apis/iam.kubesphere.io/v1alpha2';
const TENANT = '/apis/tenant.kubesphere.io';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

let dataDir: string;
let dev: DevCluster;
let stack: TestStack;
let token: string;
let adminPassword: string | undefined;

async function call(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': contentType } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

async function startKapiserver(): Promise<void> {
  stack = await startTestStack({ dev, dataDir });
  // The admin user is bootstrapped once: later starts keep its first password.
  adminPassword ??= stack.adminPassword;
  token = (await login(stack, 'admin', adminPassword)).access_token;
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-tenancy-'));
  dev = await startDevCluster({ dataDir, port: 0, logger: pino({ level: 'silent' }) });
  await startKapiserver();
});
after(async () => {
  await stack?.close();
  await dev?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('kubectl: system-workspace exists as template and workspace, and holds the system namespaces', {
  skip: !hasKubectl && NO_KUBECTL,
}, async () => {
  const kubeconfig = writeKubeconfig(join(dataDir, 'kubeconfig'), {
    server: stack.secureUrl,
    caPem: stack.caPem,
    token,
  });
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const names = await kubectlOk(['get', 'workspacetemplates,workspaces', '-o', 'name'], { env });
  assert.deepEqual(names.trim().split('\n').sort(), [
    'workspace.tenant.kubesphere.io/system-workspace',
    'workspacetemplate.tenant.kubesphere.io/system-workspace',
  ]);
  const table = await kubectlOk(['get', 'workspacetemplates'], { env });
  assert.match(table, /^NAME\s+AGE\n/);

  const existing = (await call('GET', '/api/v1/namespaces')).body.items.map((n: Json) => n.metadata.name);
  const expected = SYSTEM_NAMESPACES.filter((n) => existing.includes(n)).sort();
  assert.ok(expected.includes('kube-system') && expected.includes('kubesphere-system'), expected.join());
  const labelled = await kubectlOk(
    [
      'get',
      'ns',
      '-l',
      'kubesphere.io/workspace=system-workspace',
      '-o',
      'jsonpath={.items[*].metadata.name}',
    ],
    { env },
  );
  assert.deepEqual(labelled.split(' ').sort(), expected);
});

test('the built-in workspace has KubeSphere’s shape', async () => {
  const tpl = await call('GET', `${TENANT}/v1alpha2/workspacetemplates/system-workspace`);
  assert.equal(tpl.status, 200);
  assert.deepEqual(tpl.body.spec, {
    placement: { clusterSelector: {} },
    template: { spec: { manager: 'admin', networkIsolation: false } },
  });
  const ws = await call('GET', `${TENANT}/v1alpha1/workspaces/system-workspace`);
  assert.deepEqual(ws.body.spec, { manager: 'admin', networkIsolation: false });
});

test('role templates and role bases are there for the console’s role editors', async () => {
  const templates = await call(
    'GET',
    `${IAM}/workspaceroles?labelSelector=${encodeURIComponent('iam.kubesphere.io/role-template')}`,
  );
  const byName = new Map<string, Json>(templates.body.items.map((r: Json) => [r.metadata.name, r]));
  assert.equal(byName.size, 19);
  const viewProjects = byName.get('role-template-view-projects');
  assert.deepEqual(JSON.parse(viewProjects.metadata.annotations['iam.kubesphere.io/role-template-rules']), {
    projects: 'view',
  });
  assert.equal(viewProjects.metadata.annotations['iam.kubesphere.io/module'], 'Projects Management');

  const bases = (await call('GET', `${IAM}/rolebases`)).body.items;
  const base = (name: string) => bases.find((b: Json) => b.metadata.name === name);
  for (const role of ['admin', 'regular', 'viewer', 'self-provisioner']) {
    assert.equal(base(`workspace-${role}`).role.kind, 'WorkspaceRole', role);
  }
  const admin = base('workspace-admin').role;
  assert.deepEqual(admin.rules, [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
  // Every template a workspace role aggregates exists (aggregation fails on an unknown name).
  for (const name of JSON.parse(admin.metadata.annotations['iam.kubesphere.io/aggregation-roles']))
    assert.ok(byName.has(name), name);
  const projectAdmin = base('project-admin');
  assert.equal(projectAdmin.role.kind, 'Role');
  assert.equal(projectAdmin.metadata.labels['scope.kubesphere.io/namespace'], '');

  const viewer = await call('GET', `${RBAC}/clusterroles/cluster-viewer`);
  assert.equal(viewer.status, 200);
  const clusterTemplates = await call(
    'GET',
    `${RBAC}/clusterroles?labelSelector=${encodeURIComponent('iam.kubesphere.io/role-template=true')}`,
  );
  assert.equal(clusterTemplates.body.items.length, 30);
  const platform = await call('GET', `${IAM}/globalroles/role-template-manage-platform-settings`);
  assert.equal(platform.body.metadata.annotations['iam.kubesphere.io/module'], 'Platform Settings');
});

test('the CRDs validate: what the console sends is stored, wrong types and missing fields are a 422', async () => {
  const path = `${TENANT}/v1alpha2/workspacetemplates`;
  const ok = await call('POST', path, {
    apiVersion: 'tenant.kubesphere.io/v1alpha2',
    kind: 'WorkspaceTemplate',
    metadata: { name: 'demo', annotations: { 'kubesphere.io/creator': 'admin' } },
    spec: {
      template: {
        metadata: { annotations: { 'kubesphere.io/alias-name': 'Demo' } },
        spec: { manager: 'admin' },
      },
      placement: { clusters: [{ name: 'host' }] },
    },
  });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  assert.equal(ok.body.spec.template.metadata.annotations['kubesphere.io/alias-name'], 'Demo');
  assert.deepEqual(ok.body.spec.placement.clusters, [{ name: 'host' }]);

  const wrongType = await call('POST', path, {
    metadata: { name: 'bad-type' },
    spec: { template: { spec: { networkIsolation: 'yes' } }, placement: {} },
  });
  assert.equal(wrongType.status, 422);
  assert.equal(wrongType.body.reason, 'Invalid');
  assert.match(wrongType.body.message, /spec\.template\.spec\.networkIsolation/);

  const missing = await call('POST', path, { metadata: { name: 'no-placement' }, spec: { template: {} } });
  assert.equal(missing.status, 422);
  assert.match(missing.body.message, /spec\.placement/);

  const rule = await call('POST', `${IAM}/workspaceroles`, {
    metadata: { name: 'no-verbs' },
    rules: [{ apiGroups: ['*'], resources: ['*'] }],
  });
  assert.equal(rule.status, 422);
  assert.match(rule.body.message, /rules\[0\]\.verbs/);
  const binding = await call('POST', `${IAM}/workspacerolebindings`, {
    metadata: { name: 'no-role' },
    subjects: [],
  });
  assert.equal(binding.status, 422);
  assert.match(binding.body.message, /roleRef/);
  assert.equal((await call('DELETE', `${path}/demo`)).status, 200);
});

test('the CRD swagger document has the tenancy kinds', () => {
  const doc = JSON.parse(readFileSync(CRD_SPEC_FILE, 'utf8')) as Json;
  for (const k of [
    'io.kubesphere.tenant.v1alpha2.WorkspaceTemplate',
    'io.kubesphere.tenant.v1alpha1.Workspace',
    'io.kubesphere.iam.v1alpha2.Group',
    'io.kubesphere.iam.v1alpha2.GroupBinding',
    'io.kubesphere.iam.v1alpha2.RoleBase',
  ])
    assert.ok(doc.definitions[k], k);
  assert.ok(doc.paths['/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates/{name}'].patch);
  assert.ok(doc.paths['/apis/tenant.kubesphere.io/v1alpha1/workspaces'].get);
});

test('edits to built-in objects survive a restart; deleted ones come back; a namespace taken out stays out', async () => {
  const alias = { metadata: { annotations: { 'kubesphere.io/alias-name': 'Edited' } } };
  const merge = 'application/merge-patch+json';
  assert.equal(
    (await call('PATCH', `${IAM}/workspaceroles/role-template-view-projects`, alias, merge)).status,
    200,
  );
  const rules = { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
  assert.equal(
    (await call('PATCH', `${RBAC}/clusterroles/role-template-view-nodes`, rules, merge)).status,
    200,
  );
  assert.equal((await call('DELETE', `${IAM}/rolebases/workspace-viewer`)).status, 200);
  const unlabel = { metadata: { labels: { 'kubesphere.io/workspace': null } } };
  assert.equal((await call('PATCH', '/api/v1/namespaces/kube-public', unlabel, merge)).status, 200);

  await stack.close();
  await startKapiserver();

  const role = await call('GET', `${IAM}/workspaceroles/role-template-view-projects`);
  assert.equal(role.body.metadata.annotations['kubesphere.io/alias-name'], 'Edited');
  const nodes = await call('GET', `${RBAC}/clusterroles/role-template-view-nodes`);
  assert.deepEqual(nodes.body.rules, rules.rules);
  const viewer = await call('GET', `${IAM}/rolebases/workspace-viewer`);
  assert.equal(viewer.status, 200);
  assert.equal(viewer.body.role.metadata.name, 'viewer');
  const ns = await call('GET', '/api/v1/namespaces/kube-public');
  assert.equal(ns.body.metadata.labels?.['kubesphere.io/workspace'], undefined);
  const ks = await call('GET', '/api/v1/namespaces/kube-system');
  assert.equal(ks.body.metadata.labels['kubesphere.io/workspace'], 'system-workspace');
});
