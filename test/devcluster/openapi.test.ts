// OpenAPI v3 documents: unit checks of the index and group documents (GVK tags, patch keys, CRD schemas, every
// $ref resolvable inside its document), then the real kubectl against a small HTTPS server that serves them:
// `kubectl explain`, `kubectl create -f` (server-side field validation is detected from the PATCH operation) and a
// second `kubectl apply` whose strategic merge patch is computed from our schemas without falling back.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  builtinSchemas,
  openApiV3GroupDocument,
  openApiV3Index,
  type ResourceInfo,
} from '../../src/devcluster/openapi/index.ts';
import { ensureLocalPki } from '../../src/pki/index.ts';
import { hasKubectl, NO_KUBECTL, runKubectl, writeKubeconfig } from '../helpers/kubectl.ts';

type Obj = Record<string, unknown>;
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const r = (
  group: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  subresources: string[] = [],
): ResourceInfo => ({
  group,
  version: 'v1',
  kind,
  plural,
  namespaced,
  verbs: VERBS,
  subresources,
});

const CORE_RESOURCES = [
  r('', 'Namespace', 'namespaces', false, ['status']),
  r('', 'Node', 'nodes', false, ['status']),
  r('', 'Pod', 'pods', true, ['status', 'log', 'exec']),
  r('', 'Service', 'services', true, ['status']),
  r('', 'Endpoints', 'endpoints', true),
  r('', 'ConfigMap', 'configmaps', true),
  r('', 'Secret', 'secrets', true),
  r('', 'ServiceAccount', 'serviceaccounts', true, ['token']),
  r('', 'Event', 'events', true),
  r('', 'PersistentVolumeClaim', 'persistentvolumeclaims', true, ['status']),
];
const APPS_RESOURCES = [
  r('apps', 'Deployment', 'deployments', true, ['status', 'scale']),
  r('apps', 'ReplicaSet', 'replicasets', true, ['status', 'scale']),
  r('apps', 'StatefulSet', 'statefulsets', true, ['status', 'scale']),
  r('apps', 'DaemonSet', 'daemonsets', true, ['status']),
];
const OTHER_RESOURCES: Record<string, ResourceInfo[]> = {
  'batch/v1': [
    r('batch', 'Job', 'jobs', true, ['status']),
    r('batch', 'CronJob', 'cronjobs', true, ['status']),
  ],
  'rbac.authorization.k8s.io/v1': [
    r('rbac.authorization.k8s.io', 'Role', 'roles', true),
    r('rbac.authorization.k8s.io', 'RoleBinding', 'rolebindings', true),
    r('rbac.authorization.k8s.io', 'ClusterRole', 'clusterroles', false),
    r('rbac.authorization.k8s.io', 'ClusterRoleBinding', 'clusterrolebindings', false),
  ],
  'coordination.k8s.io/v1': [r('coordination.k8s.io', 'Lease', 'leases', true)],
  'apiextensions.k8s.io/v1': [
    r('apiextensions.k8s.io', 'CustomResourceDefinition', 'customresourcedefinitions', false, ['status']),
  ],
  'authorization.k8s.io/v1': [
    {
      ...r('authorization.k8s.io', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false),
      verbs: ['create'],
    },
  ],
};
const WIDGET_SCHEMA = {
  type: 'object',
  description: 'Widget is a test custom resource.',
  properties: {
    spec: {
      type: 'object',
      description: 'Desired state of the widget.',
      properties: {
        size: { type: 'integer', description: 'How many sprockets the widget has.' },
        color: { type: 'string', description: 'Paint colour.' },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};
const CR_RESOURCES = [{ ...r('example.com', 'Widget', 'widgets', true, ['status']), group: 'example.com' }];

function documentFor(gv: string): Obj {
  if (gv === 'v1') return openApiV3GroupDocument('v1', CORE_RESOURCES) as Obj;
  if (gv === 'apps/v1') return openApiV3GroupDocument('apps/v1', APPS_RESOURCES) as Obj;
  if (gv === 'example.com/v1')
    return openApiV3GroupDocument(gv, CR_RESOURCES, { Widget: WIDGET_SCHEMA }) as Obj;
  return openApiV3GroupDocument(gv, OTHER_RESOURCES[gv] ?? []) as Obj;
}
const ALL_GVS = ['v1', 'apps/v1', 'example.com/v1', ...Object.keys(OTHER_RESOURCES)];

const schemasOf = (doc: Obj) => (doc.components as { schemas: Record<string, Obj> }).schemas;
const pathsOf = (doc: Obj) => doc.paths as Record<string, Record<string, Obj>>;

/** Every `$ref` in the document, with the JSON path where it occurs. */
function refsIn(node: unknown, at = '$', out: [string, string][] = []): [string, string][] {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) refsIn(v, `${at}[${i}]`, out);
  } else if (typeof node === 'object' && node !== null)
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push([at, v]);
      else refsIn(v, `${at}.${k}`, out);
    }
  return out;
}

/** Follows `allOf: [{$ref}]` / `$ref` to the referenced schema. */
function deref(doc: Obj, s: Obj): Obj {
  const target = (Array.isArray(s.allOf) ? (s.allOf[0] as Obj).$ref : s.$ref) as string | undefined;
  return target ? schemasOf(doc)[target.replace('#/components/schemas/', '')] : s;
}

describe('openApiV3Index', () => {
  it('lists api/v1 and apis/<group>/<version> with a stable content hash', () => {
    const index = openApiV3Index(ALL_GVS, documentFor);
    assert.deepEqual(Object.keys(index.paths).sort(), [
      'api/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/apps/v1',
      'apis/authorization.k8s.io/v1',
      'apis/batch/v1',
      'apis/coordination.k8s.io/v1',
      'apis/example.com/v1',
      'apis/rbac.authorization.k8s.io/v1',
    ]);
    assert.match(index.paths['api/v1'].serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    assert.match(
      index.paths['apis/apps/v1'].serverRelativeURL,
      /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/,
    );
    assert.deepEqual(openApiV3Index(ALL_GVS, documentFor), index, 'same input, same hashes');
    assert.deepEqual(Object.keys(openApiV3Index(['v1', 'apps/v1']).paths), ['api/v1', 'apis/apps/v1']);
    // A changed CRD schema changes the hash of that group-version only.
    const changed = openApiV3Index(ALL_GVS, (gv) =>
      gv === 'example.com/v1'
        ? openApiV3GroupDocument(gv, CR_RESOURCES, { Widget: { ...WIDGET_SCHEMA, description: 'v2' } })
        : documentFor(gv),
    );
    assert.notEqual(
      changed.paths['apis/example.com/v1'].serverRelativeURL,
      index.paths['apis/example.com/v1'].serverRelativeURL,
    );
    assert.equal(
      changed.paths['apis/apps/v1'].serverRelativeURL,
      index.paths['apis/apps/v1'].serverRelativeURL,
    );
  });
});

describe('openApiV3GroupDocument', () => {
  it('resolves every $ref inside its own document, for every group-version', () => {
    for (const gv of ALL_GVS) {
      const doc = documentFor(gv);
      assert.equal(doc.openapi, '3.0.0');
      const schemas = schemasOf(doc);
      for (const [at, target] of refsIn(doc)) {
        assert.ok(target.startsWith('#/components/schemas/'), `${gv} ${at}: ${target}`);
        assert.ok(schemas[target.slice(21)], `${gv} ${at}: ${target} resolves`);
      }
    }
    for (const [at, target] of refsIn(builtinSchemas))
      assert.ok(builtinSchemas[target.slice(21)], `built-in ${at}: ${target} is defined`);
  });

  it('tags every served kind and its List with x-kubernetes-group-version-kind', () => {
    const all: [string, ResourceInfo[]][] = [
      ['v1', CORE_RESOURCES],
      ['apps/v1', APPS_RESOURCES],
      ...Object.entries(OTHER_RESOURCES),
    ];
    for (const [gv, resources] of all) {
      const schemas = schemasOf(documentFor(gv));
      const prefix = gv === 'v1' ? 'io.k8s.api.core.v1' : undefined;
      for (const res of resources) {
        const name =
          prefix !== undefined
            ? `${prefix}.${res.kind}`
            : Object.keys(schemas).find((n) => n.endsWith(`.v1.${res.kind}`));
        assert.ok(name && schemas[name], `${gv} ${res.kind} has a schema`);
        assert.deepEqual(schemas[name]['x-kubernetes-group-version-kind'], [
          { group: res.group, version: 'v1', kind: res.kind },
        ]);
        assert.deepEqual(schemas[`${name}List`]['x-kubernetes-group-version-kind'], [
          { group: res.group, version: 'v1', kind: `${res.kind}List` },
        ]);
      }
    }
    const apps = schemasOf(documentFor('apps/v1'));
    assert.ok(apps['io.k8s.api.apps.v1.Deployment']);
    assert.ok(apps['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    assert.ok(apps['io.k8s.api.core.v1.PodSpec'], 'schemas referenced from other groups are included');
    assert.ok(
      schemasOf(documentFor('apiextensions.k8s.io/v1'))[
        'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'
      ],
    );
    assert.ok(schemasOf(documentFor('coordination.k8s.io/v1'))['io.k8s.api.coordination.v1.Lease']);
  });

  it('puts fieldValidation/fieldManager/dryRun on write operations and the GVK on every operation', () => {
    const paths = pathsOf(documentFor('v1'));
    const item = paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
    const names = (o: Obj) => (o.parameters as Obj[]).map((p) => `${p.in}:${p.name}`);
    assert.deepEqual(names(item.patch), [
      'query:dryRun',
      'query:fieldManager',
      'query:fieldValidation',
      'query:force',
    ]);
    assert.deepEqual(names(item.put), ['query:dryRun', 'query:fieldManager', 'query:fieldValidation']);
    assert.deepEqual(names(paths['/api/v1/namespaces/{namespace}/configmaps'].post), [
      'query:dryRun',
      'query:fieldManager',
      'query:fieldValidation',
    ]);
    assert.deepEqual(item.patch['x-kubernetes-group-version-kind'], {
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
    });
    assert.equal(item.patch['x-kubernetes-action'], 'patch');
    assert.ok(paths['/api/v1/configmaps'].get, 'list across namespaces');
    assert.ok(paths['/api/v1/namespaces/{name}'].get, 'cluster-scoped item path');
    const patchTypes = Object.keys((item.patch.requestBody as { content: Obj }).content);
    assert.ok(patchTypes.includes('application/strategic-merge-patch+json'));
    assert.ok(patchTypes.includes('application/apply-patch+yaml'));
    const scale = pathsOf(documentFor('apps/v1'))[
      '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'
    ];
    assert.deepEqual(scale.patch['x-kubernetes-group-version-kind'], {
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    assert.equal(pathsOf(documentFor('v1'))['/api/v1/namespaces/{namespace}/pods/{name}/log'], undefined);
    const ssar = pathsOf(documentFor('authorization.k8s.io/v1'));
    assert.deepEqual(Object.keys(ssar), ['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']);
    assert.ok(ssar['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'].post);
  });

  it('carries strategic-merge keys on containers, env, ports, volumes, volumeMounts, imagePullSecrets, conditions', () => {
    const s = schemasOf(documentFor('apps/v1'));
    const keys = (schema: Obj, field: string) => {
      const p = (schema.properties as Record<string, Obj>)[field];
      return [p['x-kubernetes-patch-merge-key'], p['x-kubernetes-patch-strategy']];
    };
    const podSpec = s['io.k8s.api.core.v1.PodSpec'];
    const container = s['io.k8s.api.core.v1.Container'];
    assert.deepEqual(keys(podSpec, 'containers'), ['name', 'merge']);
    assert.deepEqual(keys(podSpec, 'initContainers'), ['name', 'merge']);
    assert.deepEqual(keys(podSpec, 'volumes'), ['name', 'merge,retainKeys']);
    assert.deepEqual(keys(podSpec, 'imagePullSecrets'), ['name', 'merge']);
    assert.deepEqual(
      keys(podSpec, 'tolerations'),
      [undefined, undefined],
      'tolerations are replaced atomically',
    );
    assert.deepEqual(keys(container, 'env'), ['name', 'merge']);
    assert.deepEqual(keys(container, 'ports'), ['containerPort', 'merge']);
    assert.deepEqual(keys(container, 'volumeMounts'), ['mountPath', 'merge']);
    assert.deepEqual((container.properties as Record<string, Obj>).ports['x-kubernetes-list-map-keys'], [
      'containerPort',
      'protocol',
    ]);
    assert.deepEqual(keys(s['io.k8s.api.apps.v1.DeploymentStatus'], 'conditions'), ['type', 'merge']);
    const core = schemasOf(documentFor('v1'));
    assert.deepEqual(keys(core['io.k8s.api.core.v1.ServiceSpec'], 'ports'), ['port', 'merge']);
    assert.deepEqual(keys(core['io.k8s.api.core.v1.NodeStatus'], 'conditions'), ['type', 'merge']);
    // The walk kubectl explain does: Deployment -> spec -> replicas has a description.
    const spec = deref(
      documentFor('apps/v1'),
      (s['io.k8s.api.apps.v1.Deployment'].properties as Record<string, Obj>).spec,
    );
    assert.match(
      String((spec.properties as Record<string, Obj>).replicas.description),
      /Number of desired pods/,
    );
  });

  it('embeds a CRD openAPIV3Schema with the GVK, ObjectMeta by $ref and no strategic merge patch', () => {
    const doc = documentFor('example.com/v1');
    const widget = schemasOf(doc)['com.example.v1.Widget'];
    assert.deepEqual(widget['x-kubernetes-group-version-kind'], [
      { group: 'example.com', version: 'v1', kind: 'Widget' },
    ]);
    const props = widget.properties as Record<string, Obj>;
    assert.deepEqual(props.spec, WIDGET_SCHEMA.properties.spec);
    assert.deepEqual(props.metadata.allOf, [
      { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
    ]);
    assert.ok(schemasOf(doc)['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    assert.ok(schemasOf(doc)['com.example.v1.WidgetList']);
    const patch = pathsOf(doc)['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
    const types = Object.keys((patch.requestBody as { content: Obj }).content);
    assert.ok(!types.includes('application/strategic-merge-patch+json'));
    assert.ok(types.includes('application/merge-patch+json'));
    assert.ok(pathsOf(doc)['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status'].patch);
    assert.deepEqual(
      WIDGET_SCHEMA.properties.spec.properties.size.type,
      'integer',
      'input schema is not mutated',
    );
    assert.equal((WIDGET_SCHEMA.properties as Record<string, unknown>).metadata, undefined);
    // A kind without a schema still gets a tagged, permissive schema.
    const bare = schemasOf(openApiV3GroupDocument('example.com/v1', CR_RESOURCES) as Obj)[
      'com.example.v1.Widget'
    ];
    assert.equal(bare['x-kubernetes-preserve-unknown-fields'], true);
    assert.deepEqual(bare['x-kubernetes-group-version-kind'], [
      { group: 'example.com', version: 'v1', kind: 'Widget' },
    ]);
  });

  it('stays small: all group documents together are well under 1 MB', () => {
    const total = ALL_GVS.reduce((n, gv) => n + JSON.stringify(documentFor(gv)).length, 0);
    assert.ok(total < 1_000_000, `${total} bytes`);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The real kubectl against a tiny HTTPS server that serves discovery, these documents and an in-memory store.

const TOKEN = 'openapi-test-token';

function discovery(path: string, port: number): unknown {
  if (path === '/version')
    return { major: '1', minor: '33', gitVersion: 'v1.33.0', platform: 'linux/amd64', goVersion: 'go1.24.0' };
  if (path === '/api')
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }],
    };
  const groups: Record<string, ResourceInfo[]> = {
    'apps/v1': APPS_RESOURCES,
    'example.com/v1': CR_RESOURCES,
    ...OTHER_RESOURCES,
  };
  if (path === '/apis')
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: Object.keys(groups).map((gv) => {
        const [name, version] = gv.split('/');
        const v = { groupVersion: gv, version };
        return { name, versions: [v], preferredVersion: v };
      }),
    };
  const gv = path === '/api/v1' ? 'v1' : path.startsWith('/apis/') ? path.slice(6) : '';
  const list = gv === 'v1' ? CORE_RESOURCES : groups[gv];
  if (!list) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: gv,
    resources: list.map((x) => ({
      name: x.plural,
      singularName: x.kind.toLowerCase(),
      namespaced: x.namespaced,
      kind: x.kind,
      verbs: x.verbs,
    })),
  };
}

interface Request {
  method: string;
  path: string;
  query: string;
  contentType: string;
  body: string;
}

describe('real kubectl reads the documents', { timeout: 300_000 }, () => {
  let dir = '';
  let server: Server | undefined;
  let kubeconfig = '';
  const requests: Request[] = [];
  const objects = new Map<string, Obj>();

  before(async () => {
    if (!hasKubectl) return;
    dir = mkdtempSync(join(tmpdir(), 'openapi-kubectl-'));
    const pki = await ensureLocalPki(dir);
    const srv = createServer({ cert: pki.serving.certPem, key: pki.serving.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'https://localhost');
        const path = url.pathname;
        const port = (srv.address() as AddressInfo).port;
        const body = Buffer.concat(chunks).toString('utf8');
        requests.push({
          method: req.method ?? '',
          path,
          query: url.search,
          contentType: String(req.headers['content-type'] ?? ''),
          body,
        });
        const send = (code: number, value: unknown) => {
          res.writeHead(code, { 'content-type': 'application/json' });
          res.end(JSON.stringify(value));
        };
        const status = (code: number, reason: string, message: string) =>
          send(code, {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            reason,
            message,
            code,
          });
        if (req.headers.authorization !== `Bearer ${TOKEN}`)
          return status(401, 'Unauthorized', 'Unauthorized');
        if (req.method === 'GET' && path === '/openapi/v3')
          return send(200, openApiV3Index(ALL_GVS, documentFor));
        if (req.method === 'GET' && path.startsWith('/openapi/v3/')) {
          const key = path.slice('/openapi/v3/'.length);
          const gv = ALL_GVS.find((g) => (g === 'v1' ? 'api/v1' : `apis/${g}`) === key);
          return gv ? send(200, documentFor(gv)) : status(404, 'NotFound', 'not found');
        }
        if (req.method === 'GET') {
          const doc = discovery(path, port);
          if (doc) return send(200, doc);
          const o = objects.get(path);
          return o ? send(200, o) : status(404, 'NotFound', `${path} not found`);
        }
        if (req.method === 'POST') {
          const o = JSON.parse(body) as Obj;
          const meta = o.metadata as Obj;
          meta.uid = `uid-${objects.size + 1}`;
          meta.resourceVersion = '1';
          meta.creationTimestamp = '2025-01-01T00:00:00Z';
          objects.set(`${path}/${meta.name}`, o);
          return send(201, o);
        }
        if (req.method === 'PATCH') {
          const o = objects.get(path);
          return o ? send(200, o) : status(404, 'NotFound', `${path} not found`);
        }
        return status(405, 'MethodNotAllowed', 'not here');
      });
    });
    server = srv;
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const port = (srv.address() as AddressInfo).port;
    kubeconfig = writeKubeconfig(join(dir, 'kubeconfig'), {
      server: `https://127.0.0.1:${port}`,
      caPem: pki.caPem,
      token: TOKEN,
    });
  });

  after(() => {
    server?.closeAllConnections();
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string }> {
    const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
    const r = await runKubectl(['--kubeconfig', kubeconfig, ...args], { env });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.status}\n${r.stderr}`);
    return r;
  }
  const skipWithoutKubectl = (t: { skip: (m: string) => void }) => {
    if (hasKubectl) return false;
    t.skip(NO_KUBECTL);
    return true;
  };

  it('kubectl explain deployment.spec.replicas prints the field description', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const { stdout } = await kubectl('explain', 'deployment.spec.replicas');
    assert.match(stdout, /GROUP:\s+apps/);
    assert.match(stdout, /KIND:\s+Deployment/);
    assert.match(stdout, /FIELD:\s+replicas <integer>/);
    assert.match(stdout, /Number of desired pods/);
    assert.ok(requests.some((q) => q.path === '/openapi/v3/apis/apps/v1' && /hash=/.test(q.query)));
  });

  it('kubectl explain pods.spec.containers lists the container fields', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const { stdout } = await kubectl('explain', 'pods.spec.containers');
    assert.match(stdout, /FIELD:\s+containers <\[\]Container>/);
    for (const field of ['image', 'env', 'ports', 'volumeMounts', 'livenessProbe'])
      assert.match(stdout, new RegExp(`\\n\\s+${field}\\s+<`));
  });

  it('kubectl explain widgets.spec.size reads the CRD schema', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const { stdout } = await kubectl('explain', 'widgets.spec.size');
    assert.match(stdout, /KIND:\s+Widget/);
    assert.match(stdout, /How many sprockets the widget has/);
  });

  it('kubectl create -f and apply twice: server-side validation detected, patch computed from our schemas', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const manifest = (replicas: number, env: string) =>
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: web, namespace: default}',
        'spec:',
        `  replicas: ${replicas}`,
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web}}',
        '    spec:',
        '      containers:',
        '      - name: nginx',
        '        image: nginx:1.27',
        '        ports: [{containerPort: 80}]',
        `        env: [{name: MODE, value: ${env}}, {name: KEEP, value: "1"}]`,
        '        resources: {limits: {cpu: 500m}}',
        '      volumes: [{name: data, emptyDir: {}}]',
        '      tolerations: [{key: k, operator: Exists}]',
        '',
      ].join('\n');
    const file = join(dir, 'web.yaml');

    writeFileSync(file, manifest(1, 'a').replace('name: web', 'name: created'));
    const created = await kubectl('create', '-f', file);
    assert.match(created.stdout, /deployment.apps\/created created/);
    const post = requests.find(
      (q) => q.method === 'POST' && q.path === '/apis/apps/v1/namespaces/default/deployments',
    );
    assert.ok(post, 'the create reached the server');
    assert.match(
      post.query,
      /fieldValidation=Strict/,
      'kubectl found fieldValidation on the PATCH operation',
    );

    writeFileSync(file, manifest(2, 'a'));
    assert.match((await kubectl('apply', '-f', file)).stdout, /deployment.apps\/web created/);
    writeFileSync(file, manifest(3, 'b'));
    // -v=5 makes kubectl log (as "warning: OpenAPI V3 path ...") when it cannot use the v3 document for the patch.
    const applied = await kubectl('apply', '-f', file, '-v=5');
    assert.match(applied.stdout, /deployment.apps\/web configured/);
    assert.doesNotMatch(
      applied.stderr,
      /warning/i,
      `no fallback from the OpenAPI v3 patch path: ${applied.stderr}`,
    );
    const patch = requests.find(
      (q) => q.method === 'PATCH' && q.path === '/apis/apps/v1/namespaces/default/deployments/web',
    );
    assert.ok(patch, 'the second apply patched');
    assert.equal(patch.contentType, 'application/strategic-merge-patch+json');
    assert.match(patch.query, /fieldValidation=Strict/);
    const body = JSON.parse(patch.body) as { spec: { replicas: number; template: { spec: Obj } } };
    assert.equal(body.spec.replicas, 3);
    const podSpec = body.spec.template.spec;
    assert.deepEqual(
      podSpec['$setElementOrder/containers'],
      [{ name: 'nginx' }],
      'containers merged by name',
    );
    const container = (podSpec.containers as Obj[])[0];
    assert.equal(container.name, 'nginx');
    assert.deepEqual(
      container['$setElementOrder/env'],
      [{ name: 'MODE' }, { name: 'KEEP' }],
      'env merged by name',
    );
    assert.deepEqual(container.env, [{ name: 'MODE', value: 'b' }]);
  });
});
