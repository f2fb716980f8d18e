// Protobuf request bodies: objects encoded with protobufjs from our trimmed generated.proto definitions decode to
// their JSON form; then the real kubectl (1.33 via the /usr/bin/kubectl dispatcher) talks to a small HTTPS server
// that captures the POST bodies of its generator commands, and those real bodies are decoded and checked.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  decodeProtobufObject,
  protobufRoot,
  supportedProtobufKinds,
} from '../../src/devcluster/protobuf/index.ts';
import { StatusError } from '../../src/k8s/status.ts';
import { ensureLocalPki } from '../../src/pki/index.ts';
import { hasKubectl, kubectlOk, NO_KUBECTL, writeKubeconfig } from '../helpers/kubectl.ts';

const PROTO = 'application/vnd.kubernetes.protobuf';

/** Builds a `k8s\0` + runtime.Unknown envelope around `object` encoded as `pkg.kind`. */
function envelope(
  apiVersion: string,
  kind: string,
  pkg: string,
  object: Record<string, unknown>,
  extra = {},
) {
  const root = protobufRoot();
  const type = root.lookupType(`${pkg}.${kind}`);
  const raw = type.encode(type.fromObject(object)).finish();
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const env = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, ...extra })).finish();
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...env]);
}

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the decode to throw');
}

describe('decodeProtobufObject (bodies built with protobufjs)', () => {
  it('decodes a Namespace with every ObjectMeta field the JSON form carries', () => {
    const t = 1_700_000_000;
    const body = envelope('v1', 'Namespace', 'k8s.io.api.core.v1', {
      metadata: {
        name: 'team-a',
        generateName: 'team-',
        namespace: '',
        uid: '',
        resourceVersion: '',
        generation: 0,
        creationTimestamp: {},
        deletionTimestamp: { seconds: t, nanos: 0 },
        deletionGracePeriodSeconds: 0,
        labels: { env: 'dev', 'node-role.kubernetes.io/control-plane': '' },
        annotations: { note: 'hello' },
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: 'u-1',
            controller: true,
            blockOwnerDeletion: false,
          },
        ],
        finalizers: ['example.com/f'],
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            apiVersion: 'v1',
            time: { seconds: t },
            fieldsType: 'FieldsV1',
            fieldsV1: { Raw: Buffer.from('{"f:metadata":{"f:labels":{}}}') },
          },
        ],
      },
      spec: { finalizers: ['kubernetes'] },
      status: {},
    });
    assert.deepEqual(decodeProtobufObject(body), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'team-a',
        generateName: 'team-',
        deletionTimestamp: '2023-11-14T22:13:20Z',
        deletionGracePeriodSeconds: 0,
        labels: { env: 'dev', 'node-role.kubernetes.io/control-plane': '' },
        annotations: { note: 'hello' },
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: 'u-1',
            controller: true,
            blockOwnerDeletion: false,
          },
        ],
        finalizers: ['example.com/f'],
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            apiVersion: 'v1',
            time: '2023-11-14T22:13:20Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:labels': {} } },
          },
        ],
      },
      spec: { finalizers: ['kubernetes'] },
      status: {},
    });
  });

  it('turns Secret and ConfigMap bytes into base64 and keeps string data as is', () => {
    const secret = decodeProtobufObject(
      envelope('v1', 'Secret', 'k8s.io.api.core.v1', {
        metadata: { name: 's', namespace: 'default' },
        data: { 'tls.key': Buffer.from([0, 1, 2, 255]), user: Buffer.from('admin') },
        stringData: { extra: 'x' },
        type: 'Opaque',
        immutable: false,
      }),
    );
    assert.deepEqual(secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default' },
      immutable: false,
      data: { 'tls.key': 'AAEC/w==', user: 'YWRtaW4=' },
      stringData: { extra: 'x' },
      type: 'Opaque',
    });
    const cm = decodeProtobufObject(
      envelope('v1', 'ConfigMap', 'k8s.io.api.core.v1', {
        metadata: { name: 'c' },
        data: { a: 'b', empty: '' },
        binaryData: { bin: Buffer.from('hi') },
      }),
    );
    assert.deepEqual(cm.data, { a: 'b', empty: '' });
    assert.deepEqual(cm.binaryData, { bin: 'aGk=' });
  });

  it('decodes a Deployment: pointer zeros kept, IntOrString as number or string, inlined Go structs flattened', () => {
    const d = decodeProtobufObject(
      envelope('apps/v1', 'Deployment', 'k8s.io.api.apps.v1', {
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: {
          replicas: 0,
          minReadySeconds: 0,
          paused: false,
          selector: {
            matchLabels: { app: 'web' },
            matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }],
          },
          template: {
            metadata: { labels: { app: 'web' }, creationTimestamp: {} },
            spec: {
              hostNetwork: false,
              terminationGracePeriodSeconds: 0,
              containers: [
                {
                  name: 'nginx',
                  image: 'nginx:1.27',
                  ports: [{ containerPort: 80, hostPort: 0, protocol: 'TCP' }],
                  env: [
                    { name: 'A', value: '1' },
                    {
                      name: 'B',
                      valueFrom: {
                        configMapKeyRef: { localObjectReference: { name: 'cm' }, key: 'k', optional: true },
                      },
                    },
                  ],
                  resources: { limits: { cpu: { string: '500m' }, memory: { string: '128Mi' } } },
                  readinessProbe: {
                    handler: { httpGet: { path: '/healthz', port: { type: 1, strVal: 'http' } } },
                  },
                  livenessProbe: {
                    handler: { tcpSocket: { port: { type: 0, intVal: 8080 } } },
                    periodSeconds: 5,
                  },
                  volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: false }],
                },
              ],
              volumes: [{ name: 'data', volumeSource: { emptyDir: { sizeLimit: { string: '1Gi' } } } }],
            },
          },
          strategy: {
            type: 'RollingUpdate',
            rollingUpdate: { maxUnavailable: { type: 0, intVal: 0 }, maxSurge: { type: 1, strVal: '25%' } },
          },
        },
        status: {},
      }),
    );
    assert.deepEqual(d.spec, {
      replicas: 0,
      selector: {
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }],
      },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          volumes: [{ name: 'data', emptyDir: { sizeLimit: '1Gi' } }],
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.27',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [
                { name: 'A', value: '1' },
                { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', optional: true } } },
              ],
              resources: { limits: { cpu: '500m', memory: '128Mi' } },
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
              livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 5 },
              readinessProbe: { httpGet: { path: '/healthz', port: 'http' } },
            },
          ],
          terminationGracePeriodSeconds: 0,
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } },
    });
  });

  it('decodes Service, Ingress (inlined rule value), PDB, PriorityClass, CronJob, RBAC and quota kinds', () => {
    const svc = decodeProtobufObject(
      envelope('v1', 'Service', 'k8s.io.api.core.v1', {
        metadata: { name: 'svc' },
        spec: {
          type: 'NodePort',
          selector: { app: 'svc' },
          ports: [
            {
              name: '80-8080',
              protocol: 'TCP',
              port: 80,
              targetPort: { type: 0, intVal: 8080 },
              nodePort: 0,
            },
          ],
        },
      }),
    );
    assert.deepEqual(svc.spec, {
      ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
      selector: { app: 'svc' },
      type: 'NodePort',
    });

    const ing = decodeProtobufObject(
      envelope('networking.k8s.io/v1', 'Ingress', 'k8s.io.api.networking.v1', {
        metadata: { name: 'ing' },
        spec: {
          ingressClassName: 'nginx',
          rules: [
            {
              host: 'foo.com',
              ingressRuleValue: {
                http: {
                  paths: [
                    {
                      path: '/bar',
                      pathType: 'Exact',
                      backend: { service: { name: 'svc1', port: { number: 8080 } } },
                    },
                  ],
                },
              },
            },
          ],
          tls: [{ hosts: ['foo.com'], secretName: 'tls' }],
        },
      }),
    );
    assert.deepEqual(ing.spec, {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['foo.com'], secretName: 'tls' }],
      rules: [
        {
          host: 'foo.com',
          http: {
            paths: [
              {
                path: '/bar',
                pathType: 'Exact',
                backend: { service: { name: 'svc1', port: { number: 8080 } } },
              },
            ],
          },
        },
      ],
    });

    const pdb = decodeProtobufObject(
      envelope('policy/v1', 'PodDisruptionBudget', 'k8s.io.api.policy.v1', {
        metadata: { name: 'pdb' },
        spec: { minAvailable: { type: 0, intVal: 0 }, selector: { matchLabels: { app: 'a' } } },
      }),
    );
    assert.deepEqual(pdb.spec, { minAvailable: 0, selector: { matchLabels: { app: 'a' } } });

    const pc = decodeProtobufObject(
      envelope('scheduling.k8s.io/v1', 'PriorityClass', 'k8s.io.api.scheduling.v1', {
        metadata: { name: 'pc' },
        value: 0,
        globalDefault: false,
        description: 'low',
        preemptionPolicy: 'Never',
      }),
    );
    assert.deepEqual(pc, {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'pc' },
      value: 0,
      description: 'low',
      preemptionPolicy: 'Never',
    });

    const cj = decodeProtobufObject(
      envelope('batch/v1', 'CronJob', 'k8s.io.api.batch.v1', {
        metadata: { name: 'cj' },
        spec: {
          schedule: '*/1 * * * *',
          jobTemplate: {
            metadata: { name: 'cj' },
            spec: {
              template: {
                spec: {
                  restartPolicy: 'OnFailure',
                  containers: [{ name: 'cj', image: 'busybox', command: ['date'] }],
                },
              },
            },
          },
        },
      }),
    );
    assert.deepEqual(cj.spec, {
      schedule: '*/1 * * * *',
      jobTemplate: {
        metadata: { name: 'cj' },
        spec: {
          template: {
            spec: {
              containers: [{ name: 'cj', image: 'busybox', command: ['date'] }],
              restartPolicy: 'OnFailure',
            },
          },
        },
      },
    });

    const rb = decodeProtobufObject(
      envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', 'k8s.io.api.rbac.v1', {
        metadata: { name: 'rb', namespace: 'default' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      }),
    );
    assert.deepEqual(rb.subjects, [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }]);
    assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' });

    const quota = decodeProtobufObject(
      envelope('v1', 'ResourceQuota', 'k8s.io.api.core.v1', {
        metadata: { name: 'q' },
        spec: { hard: { pods: { string: '10' }, 'requests.cpu': { string: '2' } }, scopes: ['BestEffort'] },
      }),
    );
    assert.deepEqual(quota.spec, { hard: { pods: '10', 'requests.cpu': '2' }, scopes: ['BestEffort'] });
  });

  it('lists the generator kinds as supported and no template types', () => {
    const kinds = supportedProtobufKinds();
    for (const [gv, kind] of [
      ['v1', 'Namespace'],
      ['v1', 'ConfigMap'],
      ['v1', 'Secret'],
      ['v1', 'Pod'],
      ['v1', 'Service'],
      ['v1', 'ServiceAccount'],
      ['v1', 'ResourceQuota'],
      ['apps/v1', 'Deployment'],
      ['batch/v1', 'Job'],
      ['batch/v1', 'CronJob'],
      ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
      ['networking.k8s.io/v1', 'Ingress'],
      ['policy/v1', 'PodDisruptionBudget'],
      ['scheduling.k8s.io/v1', 'PriorityClass'],
    ])
      assert.ok(kinds[gv]?.includes(kind), `${gv} ${kind} is supported`);
    assert.ok(!kinds.v1.includes('PodTemplateSpec'));
  });

  it('answers 400 for malformed bytes and 415 for kinds or encodings it does not know', () => {
    assert.equal(statusOf(() => decodeProtobufObject(new Uint8Array([1, 2, 3]))).code, 400);
    assert.equal(
      statusOf(() => decodeProtobufObject(new Uint8Array([0x6b, 0x38, 0x73, 0, 0x0a, 0xff]))).code,
      400,
    );
    // A valid envelope whose object bytes are truncated.
    const good = envelope('v1', 'ConfigMap', 'k8s.io.api.core.v1', {
      metadata: { name: 'c' },
      data: { a: 'b' },
    });
    const root = protobufRoot();
    const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const cut = unknown
      .encode(
        unknown.fromObject({
          typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' },
          raw: new Uint8Array([0x0a, 0x40, 1]),
        }),
      )
      .finish();
    assert.equal(
      statusOf(() => decodeProtobufObject(new Uint8Array([0x6b, 0x38, 0x73, 0, ...cut]))).code,
      400,
    );
    assert.equal(statusOf(() => decodeProtobufObject(good.subarray(0, good.length - 3))).code, 400);

    const unknownKind = statusOf(() =>
      decodeProtobufObject(
        envelope(
          'v1',
          'ConfigMap',
          'k8s.io.api.core.v1',
          {},
          { typeMeta: { apiVersion: 'example.com/v1', kind: 'Widget' } },
        ),
      ),
    );
    assert.equal(unknownKind.code, 415);
    assert.equal(unknownKind.reason, 'UnsupportedMediaType');
    assert.match(unknownKind.message, /Widget in example\.com\/v1/);
    const notAKind = statusOf(() =>
      decodeProtobufObject(
        envelope(
          'v1',
          'PodSpec',
          'k8s.io.api.core.v1',
          {},
          { typeMeta: { apiVersion: 'v1', kind: 'PodSpec' } },
        ),
      ),
    );
    assert.equal(notAKind.code, 415);
    const gzipped = statusOf(() =>
      decodeProtobufObject(
        envelope('v1', 'ConfigMap', 'k8s.io.api.core.v1', {}, { contentEncoding: 'gzip' }),
      ),
    );
    assert.equal(gzipped.code, 415);
    const noType = statusOf(() =>
      decodeProtobufObject(envelope('v1', 'ConfigMap', 'k8s.io.api.core.v1', {}, { typeMeta: {} })),
    );
    assert.equal(noType.code, 400);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Capture harness: a tiny HTTPS API server that records what the real kubectl POSTs.

const TOKEN = 'protobuf-capture-token';
const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

const res = (name: string, kind: string, namespaced: boolean) => ({
  name,
  singularName: kind.toLowerCase(),
  namespaced,
  kind,
  verbs: VERBS,
});
const GROUPS: Record<string, ReturnType<typeof res>[]> = {
  v1: [
    res('namespaces', 'Namespace', false),
    res('configmaps', 'ConfigMap', true),
    res('secrets', 'Secret', true),
    res('pods', 'Pod', true),
    res('services', 'Service', true),
    res('serviceaccounts', 'ServiceAccount', true),
    res('resourcequotas', 'ResourceQuota', true),
  ],
  'apps/v1': [res('deployments', 'Deployment', true)],
  'batch/v1': [res('jobs', 'Job', true), res('cronjobs', 'CronJob', true)],
  'rbac.authorization.k8s.io/v1': [
    res('roles', 'Role', true),
    res('rolebindings', 'RoleBinding', true),
    res('clusterroles', 'ClusterRole', false),
    res('clusterrolebindings', 'ClusterRoleBinding', false),
  ],
  'networking.k8s.io/v1': [res('ingresses', 'Ingress', true)],
  'policy/v1': [res('poddisruptionbudgets', 'PodDisruptionBudget', true)],
  'scheduling.k8s.io/v1': [res('priorityclasses', 'PriorityClass', false)],
  'authorization.k8s.io/v1': [
    { ...res('selfsubjectaccessreviews', 'SelfSubjectAccessReview', false), verbs: ['create'] },
  ],
  'authentication.k8s.io/v1': [
    { ...res('selfsubjectreviews', 'SelfSubjectReview', false), verbs: ['create'] },
  ],
};

interface Captured {
  path: string;
  contentType: string;
  body: Buffer;
}

function discovery(path: string, port: number): unknown {
  if (path === '/version')
    return { major: '1', minor: '33', gitVersion: 'v1.33.0', platform: 'linux/amd64', goVersion: 'go1.24.0' };
  if (path === '/api')
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }],
    };
  if (path === '/apis')
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: Object.keys(GROUPS)
        .filter((gv) => gv.includes('/'))
        .map((gv) => {
          const [name, version] = gv.split('/');
          const v = { groupVersion: gv, version };
          return { name, versions: [v], preferredVersion: v };
        }),
    };
  const gv = path === '/api/v1' ? 'v1' : path.startsWith('/apis/') ? path.slice(6) : '';
  if (GROUPS[gv])
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: GROUPS[gv] };
  return undefined;
}

describe('real kubectl protobuf bodies decode', { timeout: 300_000 }, () => {
  let dir = '';
  let server: Server | undefined;
  let kubeconfig = '';
  const captured: Captured[] = [];

  before(async () => {
    if (!hasKubectl) return;
    dir = mkdtempSync(join(tmpdir(), 'protobuf-kubectl-'));
    const pki = await ensureLocalPki(dir);
    const srv = createServer({ cert: pki.serving.certPem, key: pki.serving.keyPem }, (req, response) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'https://localhost').pathname;
        const port = (srv.address() as AddressInfo).port;
        const send = (code: number, body: unknown) => {
          response.writeHead(code, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        };
        const failure = (code: number, reason: string, message: string) =>
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
          return failure(401, 'Unauthorized', 'Unauthorized');
        if (req.method === 'GET') {
          const doc = discovery(path, port);
          return doc
            ? send(200, doc)
            : failure(404, 'NotFound', 'the server could not find the requested resource');
        }
        if (req.method !== 'POST') return failure(405, 'MethodNotAllowed', 'not supported here');
        const body = Buffer.concat(chunks);
        const contentType = String(req.headers['content-type'] ?? '');
        captured.push({ path, contentType, body });
        try {
          const obj = contentType === PROTO ? decodeProtobufObject(body) : JSON.parse(body.toString('utf8'));
          if (obj.kind === 'SelfSubjectAccessReview') obj.status = { allowed: true };
          if (obj.kind === 'SelfSubjectReview')
            obj.status = { userInfo: { username: 'dev-admin', groups: ['system:masters'] } };
          return send(201, obj);
        } catch (err) {
          const e = err instanceof StatusError ? err : new StatusError(500, 'InternalError', String(err));
          return failure(e.code, e.reason, e.message);
        }
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

  function kubectl(...args: string[]): Promise<string> {
    return kubectlOk(['--kubeconfig', kubeconfig, ...args], {
      env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig },
    });
  }

  /** Runs a kubectl generator command and returns the decoded protobuf body it POSTed to `path`. */
  async function capture(path: string, ...args: string[]): Promise<Record<string, unknown>> {
    return captureExpecting(/created/, path, ...args);
  }

  async function captureExpecting(
    printed: RegExp,
    path: string,
    ...args: string[]
  ): Promise<Record<string, unknown>> {
    const post = await capturePost(printed, path, ...args);
    assert.equal(post.contentType, PROTO, 'kubectl 1.33 sends protobuf');
    assert.deepEqual([...post.body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
    return decodeProtobufObject(post.body);
  }

  async function capturePost(printed: RegExp, path: string, ...args: string[]): Promise<Captured> {
    const before = captured.length;
    const out = await kubectl(...args);
    assert.match(out, printed, `kubectl ${args.join(' ')} printed: ${out}`);
    const posts = captured.slice(before).filter((c) => c.path === path);
    assert.equal(posts.length, 1, `one POST to ${path}`);
    return posts[0];
  }

  const skipWithoutKubectl = (t: { skip: (m: string) => void }) => {
    if (hasKubectl) return false;
    t.skip(NO_KUBECTL);
    return true;
  };

  it('kubectl create namespace x', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const ns = await capture('/api/v1/namespaces', 'create', 'namespace', 'x');
    assert.deepEqual(ns, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'x' },
      spec: {},
      status: {},
    });
  });

  it('kubectl create configmap c --from-literal=a=b -n default', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const cm = await capture(
      '/api/v1/namespaces/default/configmaps',
      'create',
      'configmap',
      'c',
      '--from-literal=a=b',
      '-n',
      'default',
    );
    assert.deepEqual(cm, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default' },
      data: { a: 'b' },
    });
  });

  it('kubectl create secret generic s --from-literal=k=v', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const s = await capture(
      '/api/v1/namespaces/default/secrets',
      'create',
      'secret',
      'generic',
      's',
      '--from-literal=k=v',
    );
    assert.equal(s.kind, 'Secret');
    assert.deepEqual(s.metadata, { name: 's' }, 'without -n kubectl leaves the namespace to the URL');
    assert.deepEqual(s.data, { k: Buffer.from('v').toString('base64') });
    assert.equal(s.type, undefined, 'no --type: the empty Go string is omitted and the server defaults it');
  });

  it('kubectl create deployment d --image=nginx --replicas=2', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const d = await capture(
      '/apis/apps/v1/namespaces/default/deployments',
      'create',
      'deployment',
      'd',
      '--image=nginx',
      '--replicas=2',
      '--port=80',
    );
    assert.equal(d.apiVersion, 'apps/v1');
    assert.equal(d.kind, 'Deployment');
    assert.deepEqual(d.metadata, { name: 'd', labels: { app: 'd' } });
    assert.deepEqual(d.spec, {
      replicas: 2,
      selector: { matchLabels: { app: 'd' } },
      template: {
        metadata: { labels: { app: 'd' } },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }],
        },
      },
      strategy: {},
    });
    assert.deepEqual(d.status, {});
  });

  it('kubectl run p --image=busybox creates a Pod (observed: kubectl 1.33 sends this one as JSON)', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const post = await capturePost(
      /created/,
      '/api/v1/namespaces/default/pods',
      'run',
      'p',
      '--image=busybox',
      '--labels=tier=web',
      '--env=A=1',
      '--',
      'sleep',
      '3600',
    );
    const p =
      post.contentType === PROTO ? decodeProtobufObject(post.body) : JSON.parse(post.body.toString('utf8'));
    assert.equal(p.kind, 'Pod');
    assert.equal(p.metadata.name, 'p');
    assert.deepEqual(p.metadata.labels, { tier: 'web' });
    const spec = p.spec as {
      containers: Record<string, unknown>[];
      restartPolicy: string;
      dnsPolicy: string;
    };
    assert.deepEqual(spec.containers, [
      {
        name: 'p',
        image: 'busybox',
        args: ['sleep', '3600'],
        env: [{ name: 'A', value: '1' }],
        resources: {},
      },
    ]);
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
  });

  it('kubectl create service nodeport, cronjob, role, priorityclass, pdb, ingress, quota decode', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const svc = await capture(
      '/api/v1/namespaces/default/services',
      'create',
      'service',
      'nodeport',
      'web',
      '--tcp=80:8080',
    );
    assert.deepEqual(svc.spec, {
      ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
      selector: { app: 'web' },
      type: 'NodePort',
    });

    const cj = await capture(
      '/apis/batch/v1/namespaces/default/cronjobs',
      'create',
      'cronjob',
      'tick',
      '--image=busybox',
      '--schedule=*/5 * * * *',
      '--',
      'date',
    );
    const jt = (cj.spec as { jobTemplate: { spec: { template: { spec: Record<string, unknown> } } } })
      .jobTemplate;
    assert.equal((cj.spec as { schedule: string }).schedule, '*/5 * * * *');
    assert.deepEqual(jt.spec.template.spec.containers, [
      { name: 'tick', image: 'busybox', command: ['date'], resources: {} },
    ]);
    assert.equal(jt.spec.template.spec.restartPolicy, 'OnFailure');

    const role = await capture(
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
      'create',
      'role',
      'reader',
      '--verb=get,list',
      '--resource=pods',
    );
    assert.deepEqual(role.rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]);

    const pc = await capture(
      '/apis/scheduling.k8s.io/v1/priorityclasses',
      'create',
      'priorityclass',
      'low',
      '--value=0',
      '--description=low priority',
    );
    assert.equal(pc.value, 0);
    assert.equal(pc.description, 'low priority');
    assert.equal(pc.preemptionPolicy, 'PreemptLowerPriority');

    const pdb = await capture(
      '/apis/policy/v1/namespaces/default/poddisruptionbudgets',
      'create',
      'poddisruptionbudget',
      'pdb',
      '--selector=app=web',
      '--min-available=50%',
    );
    assert.deepEqual(pdb.spec, { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } });

    const ing = await capture(
      '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
      'create',
      'ingress',
      'ing',
      '--class=nginx',
      '--rule=foo.com/bar=svc1:8080,tls=my-cert',
    );
    assert.deepEqual(ing.spec, {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['foo.com'], secretName: 'my-cert' }],
      rules: [
        {
          host: 'foo.com',
          http: {
            paths: [
              {
                path: '/bar',
                pathType: 'Exact',
                backend: { service: { name: 'svc1', port: { number: 8080 } } },
              },
            ],
          },
        },
      ],
    });

    const quota = await capture(
      '/api/v1/namespaces/default/resourcequotas',
      'create',
      'quota',
      'q',
      '--hard=cpu=1,memory=1G,pods=2',
    );
    assert.deepEqual(quota.spec, { hard: { cpu: '1', memory: '1G', pods: '2' } });
  });

  it('kubectl auth can-i and auth whoami send their reviews as protobuf', async (t) => {
    if (skipWithoutKubectl(t)) return;
    const ssar = await captureExpecting(
      /^yes$/m,
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      'auth',
      'can-i',
      'create',
      'pods',
      '-n',
      'kube-system',
    );
    assert.equal(ssar.kind, 'SelfSubjectAccessReview');
    assert.deepEqual((ssar.spec as { resourceAttributes: unknown }).resourceAttributes, {
      namespace: 'kube-system',
      verb: 'create',
      resource: 'pods',
    });
    const ssr = await captureExpecting(
      /dev-admin/,
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      'auth',
      'whoami',
    );
    assert.equal(ssr.kind, 'SelfSubjectReview');
    assert.equal(ssr.apiVersion, 'authentication.k8s.io/v1');
  });
});
