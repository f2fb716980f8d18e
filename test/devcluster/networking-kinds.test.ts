// NetworkPolicy, Ingress, IngressClass (networking.k8s.io/v1), PodDisruptionBudget (policy/v1) and PriorityClass
// (scheduling.k8s.io/v1) served by the dev cluster with discovery, OpenAPI and Table output, checked with the real
// kubectl; and `/openapi/v2`, the Swagger 2.0 document built from the same schemas.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

type Obj = Record<string, unknown>;

const MANIFESTS = [
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'db-only-web', namespace: 'default' },
    spec: {
      podSelector: { matchLabels: { app: 'db' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: { app: 'web' } } }],
          ports: [{ protocol: 'TCP', port: 5432 }],
        },
      ],
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: 'nginx' },
    spec: {
      controller: 'k8s.io/ingress-nginx',
      parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' },
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
      rules: ['shop.example.com', 'api.example.com'].map((host) => ({
        host,
        http: {
          paths: [
            { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
          ],
        },
      })),
    },
  },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web', namespace: 'default' },
    spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'batch-low' },
    value: 1000,
    globalDefault: false,
    preemptionPolicy: 'Never',
    description: 'batch jobs',
  },
];

/** Every `$ref` in `v`. */
function refs(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) refs(x, out);
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push(x);
      else refs(x, out);
    }
  return out;
}

describe('/openapi/v2 in protobuf, as kubectl reads it', {
  skip: !hasKubectl && NO_KUBECTL,
  timeout: 120_000,
}, () => {
  let dev: TestDevCluster;
  let kubectl: Kubectl;
  before(async () => {
    dev = await startTestDevCluster();
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
  });
  after(() => dev?.close());

  it('kubectl explain --output=plaintext-openapiv2 walks the definitions', async () => {
    const r = await kubectl.run(['explain', 'ingress.spec', '--output=plaintext-openapiv2']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^KIND:\s+Ingress\nVERSION:\s+networking\.k8s\.io\/v1/m);
    assert.match(r.stdout, /^\s+ingressClassName\t<string>$/m);
    assert.match(r.stdout, /^\s+rules\t<\[\]Object>$/m);
    const field = await kubectl.run(['explain', 'deployment.spec.replicas', '--output=plaintext-openapiv2']);
    assert.match(field.stdout, /FIELD:\s+replicas <integer>/);
  });

  it('kubectl validates a kind: List client-side against it', async () => {
    const list = (data: Obj) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'listed', namespace: 'default' },
            ...data,
          },
        ],
      });
    const ok = await kubectl.run(['apply', '-f', '-'], list({ data: { a: 'b' } }));
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /configmap\/listed created/);
    const bad = await kubectl.run(['apply', '-f', '-'], list({ bogus: 1 }));
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /unknown field "bogus" in io\.k8s\.api\.core\.v1\.ConfigMap/);
  });
});

describe('networking, policy and scheduling kinds', { timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  let kubectl: Kubectl;
  before(async () => {
    dev = await startTestDevCluster();
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
  });
  after(() => dev?.close());

  it('discovery lists them with their short names and scopes', {
    skip: !hasKubectl && NO_KUBECTL,
  }, async () => {
    const r = await kubectl.run(['api-resources']);
    assert.equal(r.status, 0, r.stderr);
    for (const re of [
      /^networkpolicies\s+netpol\s+networking\.k8s\.io\/v1\s+true\s+NetworkPolicy$/m,
      /^ingresses\s+ing\s+networking\.k8s\.io\/v1\s+true\s+Ingress$/m,
      /^ingressclasses\s+networking\.k8s\.io\/v1\s+false\s+IngressClass$/m,
      /^poddisruptionbudgets\s+pdb\s+policy\/v1\s+true\s+PodDisruptionBudget$/m,
      /^priorityclasses\s+pc\s+scheduling\.k8s\.io\/v1\s+false\s+PriorityClass$/m,
    ])
      assert.match(r.stdout, re);
  });

  it('kubectl applies them strictly and prints kubectl’s columns', {
    skip: !hasKubectl && NO_KUBECTL,
  }, async () => {
    const apply = await kubectl.run(
      ['apply', '--validate=strict', '-f', '-'],
      MANIFESTS.map((m) => JSON.stringify(m)).join('\n---\n'),
    );
    assert.equal(apply.status, 0, apply.stderr);
    const get = async (what: string) => {
      const r = await kubectl.run(['get', what]);
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    assert.match(await get('netpol'), /^NAME\s+POD-SELECTOR\s+AGE\ndb-only-web\s+app=db\s+\d+s$/m);
    assert.match(
      await get('ingressclass'),
      /^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\nnginx\s+k8s\.io\/ingress-nginx\s+IngressParameters\.k8s\.example\.com\/external-lb\s+\d+s$/m,
    );
    assert.match(
      await get('ing'),
      /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\nweb\s+nginx\s+shop\.example\.com,api\.example\.com\s+80, 443\s+\d+s$/m,
    );
    assert.match(
      await get('pdb'),
      /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nweb\s+2\s+N\/A\s+0\s+\d+s$/m,
    );
    assert.match(
      await get('pc'),
      /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\nbatch-low\s+1000\s+false\s+\d+s\s+Never$/m,
    );
    const explain = await kubectl.run(['explain', 'ingress.spec.rules.http.paths']);
    assert.equal(explain.status, 0, explain.stderr);
    assert.match(explain.stdout, /pathType\s+<string> -required-/);
  });

  it('their fields are decoded strictly', async () => {
    const r = await devRequest(dev, 'POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
      metadata: { name: 'wrong' },
      value: 'high',
    });
    assert.equal(r.status, 400, r.text);
    assert.match(
      (r.body as { message: string }).message,
      /Go struct field PriorityClass\.value of type int32/,
    );
  });

  it('/openapi/v2 is a Swagger 2.0 document of the same schemas; an unservable Accept is 406', async () => {
    const r = await devRequest(dev, 'GET', '/openapi/v2');
    assert.equal(r.status, 200, r.text.slice(0, 300));
    const doc = r.body as { swagger: string; definitions: Record<string, Obj>; paths: Record<string, Obj> };
    assert.equal(doc.swagger, '2.0');
    const ingress = doc.definitions['io.k8s.api.networking.v1.Ingress'];
    assert.deepEqual(ingress['x-kubernetes-group-version-kind'], [
      { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
    ]);
    for (const name of [
      'io.k8s.api.core.v1.Pod',
      'io.k8s.api.apps.v1.Deployment',
      'io.k8s.api.policy.v1.PodDisruptionBudget',
    ])
      assert.ok(doc.definitions[name], name);
    const all = refs(doc);
    assert.ok(all.length > 100);
    for (const ref of all) {
      assert.match(ref, /^#\/definitions\//);
      assert.ok(doc.definitions[ref.slice('#/definitions/'.length)], `dangling ${ref}`);
    }
    const create = (doc.paths['/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses'] as Obj)
      .post as Obj;
    const body = (create.parameters as Obj[]).find((p) => p.in === 'body') as Obj;
    assert.deepEqual(body.schema, { $ref: '#/definitions/io.k8s.api.networking.v1.Ingress' });
    assert.ok((create.consumes as string[]).includes('application/json'));
    const htmlOnly = await devRequest(dev, 'GET', '/openapi/v2', undefined, { Accept: 'text/html' });
    assert.equal(htmlOnly.status, 406);
    assert.equal((htmlOnly.body as { reason: string }).reason, 'NotAcceptable');
  });
});
