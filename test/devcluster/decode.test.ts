// Built-in objects are decoded as kube-apiserver decodes them: a wrongly typed field is a 400 naming it (nothing is
// stored), and unknown fields follow fieldValidation (Strict 400, Warn the default with a Warning header, Ignore),
// over HTTP and with the real kubectl's --validate modes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

type Status = { kind: string; reason: string; code: number; message: string };

describe('strict decoding of built-in types', { timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  let kubectl: Kubectl;
  const NS = '/api/v1/namespaces/default';
  const deployment = (replicas: unknown) => ({
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  });

  before(async () => {
    dev = await startTestDevCluster();
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
  });
  after(() => dev?.close());

  it('a wrongly typed field is a 400 BadRequest naming it, and nothing is stored', async () => {
    const cases: [string, unknown, RegExp][] = [
      [
        `${NS}/secrets`,
        { metadata: { name: 's' }, stringData: { enabled: true } },
        /^Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal bool into Go struct field Secret\.stringData of type string$/,
      ],
      [
        '/apis/apps/v1/namespaces/default/deployments',
        deployment('three'),
        /cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32/,
      ],
      [
        `${NS}/pods`,
        {
          metadata: { name: 'p' },
          spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: '80' }] }] },
        },
        /cannot unmarshal string into Go struct field ContainerPort\.spec\.containers\[0\]\.ports\[0\]\.containerPort of type int32/,
      ],
      [
        `${NS}/configmaps`,
        { metadata: { name: 'c', labels: 'x' } },
        /Go struct field ObjectMeta\.metadata\.labels/,
      ],
      [`${NS}/secrets`, { metadata: { name: 's' }, data: { k: 'not base64!' } }, /illegal base64 data/],
    ];
    for (const [path, body, message] of cases) {
      const r = await devRequest(dev, 'POST', path, body);
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      const s = r.body as Status;
      assert.equal(s.reason, 'BadRequest');
      assert.match(s.message, message);
    }
    assert.equal((await devRequest(dev, 'GET', `${NS}/secrets/s`)).status, 404);
    assert.equal(
      (await devRequest(dev, 'GET', '/apis/apps/v1/namespaces/default/deployments/web')).status,
      404,
    );
  });

  it('quantities and int-or-strings take numbers and strings; a merge patch is decoded too', async () => {
    const pod = {
      metadata: { name: 'sized' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            resources: { requests: { cpu: 1, memory: '64Mi' } },
            readinessProbe: { httpGet: { port: 'http' } },
            livenessProbe: { httpGet: { port: 8080 } },
          },
        ],
      },
    };
    assert.equal((await devRequest(dev, 'POST', `${NS}/pods`, pod)).status, 201);
    assert.equal(
      (await devRequest(dev, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment(2))).status,
      201,
    );
    const patched = await devRequest(
      dev,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web',
      { spec: { replicas: '5' } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal(patched.status, 400, patched.text);
    const stored = await devRequest(dev, 'GET', '/apis/apps/v1/namespaces/default/deployments/web');
    assert.equal((stored.body as { spec: { replicas: number } }).spec.replicas, 2);
  });

  it("quantities are trimmed of surrounding spaces, as Quantity.UnmarshalJSON's strings.TrimSpace; inner spaces are refused", async () => {
    const pod = (name: string, cpu: string) => ({
      metadata: { name },
      spec: {
        containers: [{ name: 'c', image: 'i', resources: { requests: { cpu, memory: '\t64Mi\u00a0' } } }],
      },
    });
    const created = await devRequest(dev, 'POST', `${NS}/pods`, pod('spaced', ' 1 '));
    assert.equal(created.status, 201, created.text);
    const stored = await devRequest(dev, 'GET', `${NS}/pods/spaced`);
    const c = (stored.body as { spec: { containers: { resources: unknown }[] } }).spec.containers[0];
    assert.deepEqual(c.resources, { requests: { cpu: '1', memory: '64Mi' } });
    const inner = await devRequest(dev, 'POST', `${NS}/pods`, pod('inner', '1 m'));
    assert.equal(inner.status, 400, inner.text);
    assert.match(
      (inner.body as Status).message,
      /^Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression/,
    );
    const quota = await devRequest(dev, 'POST', `${NS}/resourcequotas`, {
      metadata: { name: 'spaced' },
      spec: { hard: { pods: ' 2', 'requests.cpu': '500m ' } },
    });
    assert.equal(quota.status, 201, quota.text);
    assert.deepEqual((quota.body as { spec: unknown }).spec, { hard: { pods: '2', 'requests.cpu': '500m' } });
    assert.equal((await devRequest(dev, 'DELETE', `${NS}/resourcequotas/spaced`)).status, 200);
  });

  it('unknown fields: Strict refuses naming each, Warn (default) drops with a Warning, Ignore drops silently', async () => {
    const body = (name: string) => ({ metadata: { name, bogus: 1 }, data: { a: 'b' }, extra: true });
    const strict = await devRequest(dev, 'POST', `${NS}/configmaps?fieldValidation=Strict`, body('strict'));
    assert.equal(strict.status, 400);
    assert.equal(
      (strict.body as Status).message,
      'strict decoding error: unknown field "metadata.bogus", unknown field "extra"',
    );
    for (const [name, query, warned] of [
      ['warn', '?fieldValidation=Warn', true],
      ['default', '', true],
      ['ignore', '?fieldValidation=Ignore', false],
    ] as const) {
      const r = await devRequest(dev, 'POST', `${NS}/configmaps${query}`, body(name));
      assert.equal(r.status, 201, r.text);
      const warning = r.headers.warning;
      if (warned)
        assert.deepEqual(
          warning,
          '299 - "unknown field \\"metadata.bogus\\"", 299 - "unknown field \\"extra\\""',
        );
      else assert.equal(warning, undefined);
      const stored = (await devRequest(dev, 'GET', `${NS}/configmaps/${name}`)).body as Record<
        string,
        unknown
      >;
      assert.equal(stored.extra, undefined);
      assert.equal((stored.metadata as Record<string, unknown>).bogus, undefined);
      assert.deepEqual(stored.data, { a: 'b' });
    }
  });

  it('kubectl: a boolean in stringData fails apply; --validate modes map to fieldValidation', {
    skip: !hasKubectl && NO_KUBECTL,
  }, async () => {
    const secret = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'k' },
      stringData: { on: true },
    });
    const bad = await kubectl.run(['apply', '-f', '-'], secret);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /cannot unmarshal bool into Go struct field Secret\.stringData of type string/);
    const cm = (name: string) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' }, bogus: 1 });
    const strict = await kubectl.run(['create', '--validate=strict', '-f', '-'], cm('k-strict'));
    assert.notEqual(strict.status, 0);
    assert.match(strict.stderr, /unknown field "bogus"/);
    const warn = await kubectl.run(['create', '--validate=warn', '-f', '-'], cm('k-warn'));
    assert.equal(warn.status, 0, warn.stderr);
    assert.match(warn.stderr, /Warning: unknown field "bogus"/);
    const ignore = await kubectl.run(['create', '--validate=false', '-f', '-'], cm('k-ignore'));
    assert.equal(ignore.status, 0, ignore.stderr);
    assert.doesNotMatch(ignore.stderr, /unknown field/);
  });
});
