// The real kubectl (/usr/bin/kubectl, which picks its client by the server's minor version) against a fresh
// dev cluster. Every case checks kubectl's output, not just its exit code.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, KUBECTL, type KubectlResult, runKubectl } from '../helpers/kubectl.ts';

if (!hasKubectl) console.log(`# skipping dev cluster kubectl tests: ${KUBECTL} is not installed`);

let dev: TestDevCluster;
let home: string;

function kubectl(args: string[], input?: string): Promise<KubectlResult> {
  const env = { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') };
  return runKubectl(['--kubeconfig', dev.kubeconfigPath, ...args], { env, input, timeoutMs: 60_000 });
}

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  assert.equal(r.status, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

function file(name: string, text: string): string {
  const p = join(home, name);
  writeFileSync(p, text);
  return p;
}

describe('kubectl against the dev cluster', {
  skip: !hasKubectl && 'kubectl not installed',
  timeout: 600_000,
}, () => {
  before(async () => {
    dev = await startTestDevCluster();
    home = mkdtempSync(join(tmpdir(), 'devcluster-kubectl-home-'));
  });
  after(async () => {
    await dev?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('version reports the server version', async () => {
    const out = await ok(['version']);
    assert.match(out, /Server Version: v1\.33\./);
  });

  it('api-resources and api-versions list built-ins', async () => {
    const out = await ok(['api-resources']);
    for (const re of [
      /^pods\s+po\s+v1\s+true\s+Pod$/m,
      /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m,
      /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m,
      /^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false/m,
    ])
      assert.match(out, re);
    const versions = await ok(['api-versions']);
    for (const gv of ['v1', 'apps/v1', 'batch/v1', 'rbac.authorization.k8s.io/v1', 'apiextensions.k8s.io/v1'])
      assert.ok(versions.split('\n').includes(gv), `${gv} missing from ${versions}`);
  });

  it('get nodes, namespaces and pods in several output formats', async () => {
    const nodes = await ok(['get', 'nodes']);
    assert.match(nodes, /^NAME\s+/);
    for (const n of ['node1', 'node2', 'node3']) assert.match(nodes, new RegExp(`^${n}\\s`, 'm'));
    const names = await ok(['get', 'nodes', '-o', 'name']);
    assert.deepEqual(names.trim().split('\n'), ['node/node1', 'node/node2', 'node/node3']);
    const json = JSON.parse(await ok(['get', 'nodes', '-o', 'json'])) as {
      items: { status: { conditions: unknown[] } }[];
    };
    assert.equal(json.items.length, 3);
    assert.ok(json.items[0].status.conditions.length >= 4);
    const yaml = await ok(['get', 'ns', 'kube-system', '-o', 'yaml']);
    assert.match(yaml, /name: kube-system/);
    assert.match(yaml, /phase: Active/);
    const ns = await ok(['get', 'ns']);
    for (const n of ['default', 'kube-system', 'kube-public', 'kubesphere-system'])
      assert.match(ns, new RegExp(`^${n}\\s`, 'm'));
    const pods = await ok(['get', 'pods', '-A', '-o', 'wide']);
    assert.match(pods, /^NAMESPACE\s+NAME\s+/);
    assert.match(
      pods,
      /^kube-system\s+kube-proxy-[a-z0-9]{5}\s+\S+\s+\S+\s+\S+\s+\S+\s+192\.168\.49\.11\s+node1\s/m,
    );
    const selected = await ok(['get', 'nodes', '-l', 'node-role.kubernetes.io/control-plane', '-o', 'name']);
    assert.equal(selected.trim(), 'node/node1');
    const notSelected = await ok([
      'get',
      'nodes',
      '-l',
      '!node-role.kubernetes.io/control-plane',
      '-o',
      'name',
    ]);
    assert.deepEqual(notSelected.trim().split('\n'), ['node/node2', 'node/node3']);
    const bad = await kubectl(['get', 'nodes', '-l', 'a in (b']);
    assert.notEqual(bad.status, 0);
  });

  it('describe node shows conditions, capacity and addresses', async () => {
    const out = await ok(['describe', 'node', 'node1']);
    assert.match(out, /Name:\s+node1/);
    assert.match(out, /Roles:\s+control-plane/);
    assert.match(out, /Ready\s+True/);
    assert.match(out, /InternalIP:\s+192\.168\.49\.11/);
    assert.match(out, /Capacity:/);
    assert.match(out, /Kubelet Version:\s+v1\.33\.1/);
  });

  it('creates a namespace, a configmap and a secret', async () => {
    assert.match(await ok(['create', 'namespace', 'team-a']), /namespace\/team-a created/);
    assert.match(
      await ok(['create', 'configmap', 'cfg', '--from-literal=color=blue', '-n', 'team-a']),
      /configmap\/cfg created/,
    );
    assert.match(
      await ok(['create', 'secret', 'generic', 'pw', '--from-literal=password=s3cret', '-n', 'team-a']),
      /secret\/pw created/,
    );
    const cm = JSON.parse(await ok(['get', 'configmap', 'cfg', '-n', 'team-a', '-o', 'json'])) as {
      data: Record<string, string>;
    };
    assert.deepEqual(cm.data, { color: 'blue' });
    const pw = await ok(['get', 'secret', 'pw', '-n', 'team-a', '-o', 'jsonpath={.data.password}']);
    assert.equal(Buffer.from(pw, 'base64').toString(), 's3cret');
    const missing = await kubectl(['create', 'configmap', 'x', '--from-literal=a=b', '-n', 'nope']);
    assert.match(missing.stderr, /NotFound|namespaces "nope" not found/);
  });

  it('apply -f twice patches a changed field; label, annotate, scale, server-side apply', async () => {
    const manifest = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team-a
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ${image}
        ports: [{containerPort: 80}]
`;
    const f = file('deploy.yaml', manifest('nginx:1.25'));
    assert.match(await ok(['apply', '-f', f]), /deployment\.apps\/web created/);
    file('deploy.yaml', manifest('nginx:1.27'));
    assert.match(await ok(['apply', '-f', f]), /deployment\.apps\/web configured/);
    assert.equal(
      await ok([
        'get',
        'deploy',
        'web',
        '-n',
        'team-a',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image} {.metadata.generation}',
      ]),
      'nginx:1.27 2',
    );
    assert.match(await ok(['apply', '-f', f]), /deployment\.apps\/web unchanged/);
    assert.match(await ok(['label', 'deploy', 'web', '-n', 'team-a', 'tier=frontend']), /labeled/);
    assert.match(await ok(['annotate', 'deploy', 'web', '-n', 'team-a', 'owner=alice']), /annotated/);
    assert.match(await ok(['scale', 'deploy', 'web', '-n', 'team-a', '--replicas=4']), /scaled/);
    const d = JSON.parse(await ok(['get', 'deploy', 'web', '-n', 'team-a', '-o', 'json'])) as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: { replicas: number };
    };
    assert.equal(d.metadata.labels.tier, 'frontend');
    assert.equal(d.metadata.annotations.owner, 'alice');
    assert.equal(d.spec.replicas, 4);
    assert.match(
      await ok(['get', 'deploy', '-n', 'team-a', '-l', 'tier=frontend', '-o', 'name']),
      /deployment\.apps\/web/,
    );

    // Server-side apply over a client-side-applied object: kubectl migrates the ownership, then re-applies.
    const migrated = await kubectl(['apply', '--server-side', '--force-conflicts', '-f', f]);
    assert.equal(migrated.status, 0, migrated.stderr);
    assert.match(migrated.stdout, /deployment\.apps\/web serverside-applied/);
    assert.doesNotMatch(migrated.stderr, /failed to re-apply/);
    const after = await ok([
      'get',
      'deploy',
      'web',
      '-n',
      'team-a',
      '-o',
      'jsonpath={.spec.template.metadata.labels.app} {.metadata.labels.tier}',
    ]);
    assert.equal(after, 'web frontend');

    const ssa = file(
      'ssa.yaml',
      `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
  namespace: team-a
data:
  k: v1
`,
    );
    assert.match(await ok(['apply', '--server-side', '-f', ssa]), /configmap\/ssa serverside-applied/);
    file(
      'ssa.yaml',
      `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
  namespace: team-a
data:
  k: v2
`,
    );
    assert.match(await ok(['apply', '--server-side', '-f', ssa]), /serverside-applied/);
    assert.equal(await ok(['get', 'cm', 'ssa', '-n', 'team-a', '-o', 'jsonpath={.data.k}']), 'v2');
    const mf = await ok(['get', 'cm', 'ssa', '-n', 'team-a', '-o', 'yaml', '--show-managed-fields']);
    assert.match(mf, /manager: kubectl/);
    assert.match(mf, /operation: Apply/);
  });

  it('get -w prints an event that arrives while watching', async () => {
    const child = spawn(
      KUBECTL,
      [
        '--kubeconfig',
        dev.kubeconfigPath,
        'get',
        'configmaps',
        '-n',
        'team-a',
        '-w',
        '--output-watch-events',
      ],
      {
        env: { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      const waitFor = async (re: RegExp) => {
        for (let i = 0; i < 300 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 100));
        assert.match(out, re);
      };
      await waitFor(/cfg/);
      await ok(['create', 'configmap', 'watched', '-n', 'team-a', '--from-literal=x=y']);
      await waitFor(/ADDED\s+watched/);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('CRD create, custom resource create/get/delete, CRD delete', async () => {
    const crd = file(
      'crd.yaml',
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
              color: {type: string, default: red}
`,
    );
    assert.match(
      await ok(['apply', '-f', crd]),
      /customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.example\.com created/,
    );
    assert.match(
      await ok(['api-resources', '--api-group=example.com']),
      /widgets\s+wd\s+example\.com\/v1\s+true\s+Widget/,
    );
    const cr = file(
      'cr.yaml',
      `apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: team-a}
spec: {size: 3}
`,
    );
    assert.match(await ok(['create', '-f', cr]), /widget\.example\.com\/w1 created/);
    const got = JSON.parse(await ok(['get', 'wd', 'w1', '-n', 'team-a', '-o', 'json'])) as {
      spec: { size: number; color: string };
    };
    assert.deepEqual(got.spec, { size: 3, color: 'red' });
    const invalid = await kubectl(
      ['create', '-f', '-', '--validate=false'],
      `apiVersion: example.com/v1
kind: Widget
metadata: {name: w2, namespace: team-a}
spec: {size: 0}
`,
    );
    assert.notEqual(invalid.status, 0);
    assert.match(invalid.stderr, /spec\.size/);
    const unknown = await kubectl(
      ['create', '-f', '-'],
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w3, namespace: team-a}\nspec: {size: 2, junk: 1}\n',
    );
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /unknown field "spec\.junk"/);
    assert.match(await ok(['delete', 'widget', 'w1', '-n', 'team-a']), /widget\.example\.com "w1" deleted/);
    const gone = await kubectl(['get', 'widget', 'w1', '-n', 'team-a']);
    assert.match(gone.stderr, /NotFound/);
    assert.match(await ok(['delete', 'crd', 'widgets.example.com']), /deleted/);
  });

  it('auth can-i and whoami', async () => {
    assert.equal((await ok(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
    assert.match(await ok(['auth', 'whoami']), /kubernetes-admin/);
  });

  it('delete removes objects and namespaces with their contents', async () => {
    assert.match(await ok(['delete', 'configmap', 'cfg', '-n', 'team-a']), /configmap "cfg" deleted/);
    assert.match(await ok(['delete', 'namespace', 'team-a']), /namespace "team-a" deleted/);
    const r = await kubectl(['get', 'ns', 'team-a']);
    assert.match(r.stderr, /NotFound/);
    const left = await ok(['get', 'configmaps,deployments', '-n', 'team-a', '-o', 'name']);
    assert.equal(left.trim(), '');
  });
});
