// The dev cluster's admission parts in-process: quota
// scopes and scope selectors, the last slot of a quota taken by exactly one of many concurrent creates (and updates), pods
// charged on resize only, claims' storage quota, and
// LimitRange bounds on claims and on a pod's sum.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StatusError } from '../../src/k8s/status.ts';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { defOf } from '../helpers/workloads.ts';

type Obj = Record<string, unknown>;

describe('quota and limit range admission in-process', { timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  const create = (resource: string, ns: string, body: Obj) =>
    dev.rest.create(defOf(dev, '', resource), ns, body);
  const refusal = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 403);
      return err.message;
    }
    assert.fail('expected a refusal');
  };
  const pod = (name: string, extra: Obj = {}, resources: Obj = {}) => ({
    metadata: { name },
    spec: { containers: [{ name: 'app', image: 'nginx', resources }], ...extra },
  });

  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
    for (const ns of ['scopes', 'race', 'claims', 'updates', 'selectors'])
      create('namespaces', '', { metadata: { name: ns } });
  });
  after(() => dev?.close());

  it('charges scoped quotas only with the pods in scope', () => {
    create('resourcequotas', 'scopes', {
      metadata: { name: 'besteffort' },
      spec: { hard: { pods: '1' }, scopes: ['BestEffort'] },
    });
    create('resourcequotas', 'scopes', {
      metadata: { name: 'terminating' },
      spec: { hard: { pods: '1' }, scopes: ['Terminating'] },
    });
    create('pods', 'scopes', pod('be1'));
    assert.match(
      refusal(() => create('pods', 'scopes', pod('be2'))),
      /exceeded quota: besteffort/,
    );
    // Burstable and not terminating: neither quota applies.
    create('pods', 'scopes', pod('burst1', {}, { requests: { cpu: '100m' } }));
    create('pods', 'scopes', pod('burst2', {}, { requests: { cpu: '100m' } }));
    create('pods', 'scopes', pod('job1', { activeDeadlineSeconds: 60 }, { requests: { cpu: '100m' } }));
    assert.match(
      refusal(() =>
        create('pods', 'scopes', pod('job2', { activeDeadlineSeconds: 60 }, { requests: { cpu: '1' } })),
      ),
      /exceeded quota: terminating, requested: pods=1, used: pods=1, limited: pods=1/,
    );
  });

  it('applies scope selectors: priority class operators and cross-namespace pod affinity', async () => {
    const selectorQuota = (name: string, matchExpressions: Obj[]) =>
      create('resourcequotas', 'selectors', {
        metadata: { name },
        spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions } },
      });
    selectorQuota('named', [{ scopeName: 'PriorityClass', operator: 'Exists' }]);
    selectorQuota('unnamed', [{ scopeName: 'PriorityClass', operator: 'DoesNotExist' }]);
    selectorQuota('not-batch', [
      { scopeName: 'PriorityClass', operator: 'NotIn', values: ['batch'] },
      { scopeName: 'NotBestEffort', operator: 'Exists' },
    ]);
    create('resourcequotas', 'selectors', {
      metadata: { name: 'cross' },
      spec: { hard: { pods: '0' }, scopes: ['CrossNamespacePodAffinity'] },
    });
    const cpu = { requests: { cpu: '100m' } };
    create('pods', 'selectors', pod('u1'));
    assert.match(
      refusal(() => create('pods', 'selectors', pod('u2'))),
      /exceeded quota: unnamed/,
    );
    create('pods', 'selectors', pod('b1', { priorityClassName: 'batch' }));
    assert.match(
      refusal(() => create('pods', 'selectors', pod('b2', { priorityClassName: 'batch' }))),
      /exceeded quota: named/,
    );
    const statusOf = (name: string) =>
      (dev.rest.get(defOf(dev, '', 'resourcequotas'), 'selectors', name).obj.status as Obj | undefined)?.used;
    // NotIn matches a pod without a priority class too, once it is not BestEffort.
    const rest = dev.rest;
    rest.delete(defOf(dev, '', 'resourcequotas'), 'selectors', 'unnamed', { gracePeriodSeconds: 0 });
    rest.delete(defOf(dev, '', 'resourcequotas'), 'selectors', 'named', { gracePeriodSeconds: 0 });
    create('pods', 'selectors', pod('burst1', {}, cpu));
    assert.match(
      refusal(() => create('pods', 'selectors', pod('burst2', { priorityClassName: 'web' }, cpu))),
      /exceeded quota: not-batch, requested: pods=1, used: pods=1, limited: pods=1/,
    );
    create('pods', 'selectors', pod('batch2', { priorityClassName: 'batch' }, cpu));
    const affinity = (term: Obj) => ({
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', ...term } },
          ],
        },
      },
    });
    create('pods', 'selectors', pod('local', { priorityClassName: 'batch', ...affinity({}) }));
    assert.match(
      refusal(() =>
        create(
          'pods',
          'selectors',
          pod('far', { priorityClassName: 'batch', ...affinity({ namespaces: ['other'] }) }),
        ),
      ),
      /exceeded quota: cross, requested: pods=1, used: pods=0, limited: pods=0/,
    );
    assert.match(
      refusal(() =>
        create(
          'pods',
          'selectors',
          pod('any', { priorityClassName: 'batch', ...affinity({ namespaceSelector: {} }) }),
        ),
      ),
      /exceeded quota: cross/,
    );
    // The quota controller counts the same pods.
    await dev.controllers.idle();
    assert.deepEqual(statusOf('not-batch'), { pods: '1' });
    assert.deepEqual(statusOf('cross'), { pods: '0' });
  });

  it('refuses scope fields of the wrong JSON type with 400', () => {
    for (const spec of [
      { hard: { pods: '1' }, scopes: 'BestEffort' },
      { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 1, operator: 'Exists' }] } },
      {
        hard: { pods: '1' },
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: 'a' }] },
      },
    ])
      assert.throws(
        () => create('resourcequotas', 'selectors', { metadata: { name: 'shape' }, spec }),
        (err) =>
          err instanceof StatusError &&
          err.code === 400 &&
          /cannot be handled as a ResourceQuota/.test(err.message),
      );
  });

  it('lets exactly one of many concurrent creates take the last slot', async () => {
    create('resourcequotas', 'race', { metadata: { name: 'q' }, spec: { hard: { 'count/secrets': '1' } } });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        devRequest(dev, 'POST', '/api/v1/namespaces/race/secrets', { metadata: { name: `s${i}` } }),
      ),
    );
    const codes = answers.map((a) => a.status).sort();
    assert.deepEqual(codes, [201, 403, 403, 403, 403, 403, 403, 403]);
    const refused = answers.find((a) => a.status === 403)?.body as Obj;
    assert.equal(refused.reason, 'Forbidden');
    assert.match(
      String(refused.message),
      /exceeded quota: q, requested: count\/secrets=1, used: count\/secrets=1, limited: count\/secrets=1/,
    );
  });

  it('lets exactly one of many concurrent updates take the last slot', async () => {
    create('resourcequotas', 'updates', {
      metadata: { name: 'ports' },
      spec: { hard: { 'services.nodeports': '1' } },
    });
    for (let i = 0; i < 6; i++)
      create('services', 'updates', { metadata: { name: `s${i}` }, spec: { ports: [{ port: 80 }] } });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        devRequest(
          dev,
          'PATCH',
          `/api/v1/namespaces/updates/services/s${i}`,
          JSON.stringify({ spec: { type: 'NodePort' } }),
          { 'Content-Type': 'application/merge-patch+json' },
        ),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 403, 403, 403, 403, 403]);
    assert.match(
      String((answers.find((a) => a.status === 403)?.body as Obj | undefined)?.message),
      /^services "s\d" is forbidden: exceeded quota: ports, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1$/,
    );
  });

  it("charges a pod's resize (pods/resize) with its growth; a plain update cannot change resources and is never charged", () => {
    create('resourcequotas', 'updates', {
      metadata: { name: 'cpu' },
      spec: { hard: { 'requests.cpu': '1' } },
    });
    const d = defOf(dev, '', 'pods');
    const withCpu = (cpu: string) => {
      const p = structuredClone(dev.rest.get(d, 'updates', 'resized').obj);
      ((p.spec as Obj).containers as Obj[])[0].resources = { requests: { cpu } };
      return p;
    };
    const resize = (cpu: string) => dev.rest.update(d, 'updates', 'resized', withCpu(cpu), {}, 'resize');
    create('pods', 'updates', pod('resized', {}, { requests: { cpu: '400m' } }));
    create('pods', 'updates', pod('other', {}, { requests: { cpu: '400m' } }));
    assert.throws(
      () => dev.rest.update(d, 'updates', 'resized', withCpu('500m')),
      (err: unknown) =>
        err instanceof StatusError &&
        err.code === 422 &&
        /^Pod "resized" is invalid: spec: Forbidden: pod updates may not change fields other than /.test(
          err.message,
        ),
    );
    assert.match(
      refusal(() => resize('700m')),
      /^pods "resized" is forbidden: exceeded quota: cpu, requested: requests.cpu=300m, used: requests.cpu=800m, limited: requests.cpu=1$/,
    );
    resize('600m');
    resize('100m');
    // A quota that requires memory, created after the pods: updates pass, a resize must specify it.
    create('resourcequotas', 'updates', {
      metadata: { name: 'memory' },
      spec: { hard: { 'requests.memory': '1Gi' } },
    });
    const relabelled = structuredClone(dev.rest.get(d, 'updates', 'other').obj);
    (relabelled.metadata as Obj).labels = { tier: 'web' };
    dev.rest.update(d, 'updates', 'other', relabelled);
    assert.match(
      refusal(() => resize('200m')),
      /failed quota: memory: must specify requests.memory for: app/,
    );
  });

  it('bounds claims and the sum of a pod', () => {
    create('limitranges', 'claims', {
      metadata: { name: 'lr' },
      spec: {
        limits: [
          { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } },
          { type: 'Pod', max: { memory: '1Gi' } },
        ],
      },
    });
    const claim = (name: string, storage: string) => ({
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
    });
    create('persistentvolumeclaims', 'claims', claim('small', '512Mi'));
    assert.match(
      refusal(() => create('persistentvolumeclaims', 'claims', claim('big', '2Gi'))),
      /^persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 2Gi$/,
    );
    // A storage quota charges claims only: pods pass it untouched.
    create('resourcequotas', 'claims', {
      metadata: { name: 'storage' },
      spec: { hard: { 'requests.storage': '1Gi' } },
    });
    create('persistentvolumeclaims', 'claims', claim('mid', '512Mi'));
    assert.match(
      refusal(() => create('persistentvolumeclaims', 'claims', claim('more', '1Mi'))),
      /exceeded quota: storage, requested: requests.storage=1Mi, used: requests.storage=1Gi, limited: requests.storage=1Gi$/,
    );
    create('pods', 'claims', pod('fits', {}, { limits: { memory: '256Mi' } }));
    const twoContainers = {
      metadata: { name: 'pair' },
      spec: {
        containers: ['a', 'b'].map((name) => ({
          name,
          image: 'nginx',
          resources: { limits: { memory: '768Mi' } },
        })),
      },
    };
    assert.match(
      refusal(() => create('pods', 'claims', twoContainers)),
      /maximum memory usage per Pod is 1Gi, but limit is 1536Mi/,
    );
  });
});
