// ResourceQuota and LimitRange as kube-apiserver and kube-controller-manager enforce them, checked with the real
// kubectl: quota admission (kube's "exceeded quota" and "must specify" refusals), status.used kept by the quota
// controller, kubectl's quota columns and describe, a Deployment held at the quota with FailedCreate events,
// updates charged as kube charges them (a Service turned NodePort or LoadBalancer, a claim resized), LimitRanger
// defaults and bounds, and 422s for invalid quotas and limit ranges.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';
import { statusOf, until } from '../helpers/workloads.ts';

type Obj = Record<string, unknown>;

const pod = (name: string, resources?: Obj) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'app', image: 'nginx:1.25', ...(resources ? { resources } : {}) }] },
  });

describe('quota and limit range admission', { skip: !hasKubectl && NO_KUBECTL, timeout: 180_000 }, () => {
  let dev: TestDevCluster;
  let kubectl: Kubectl;
  const k = async (ns: string, args: string[], input?: string) => kubectl.run([...args, '-n', ns], input);
  const ok = async (ns: string, args: string[], input?: string) => {
    const r = await k(ns, args, input);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const json = async (ns: string, args: string[]) => JSON.parse(await ok(ns, [...args, '-o', 'json']));

  before(async () => {
    dev = await startTestDevCluster();
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
    for (const ns of ['q1', 'q2', 'q3', 'q4', 'q5', 'q6']) await kubectl.run(['create', 'namespace', ns]);
  });
  after(() => dev?.close());

  it('refuses pods beyond the quota with kube message and keeps status.used', async () => {
    await ok('q1', ['create', 'quota', 'q', '--hard=pods=2,requests.cpu=1']);
    const res = { requests: { cpu: '400m' } };
    await ok('q1', ['create', '-f', '-'], pod('a', res));
    await ok('q1', ['create', '-f', '-'], pod('b', res));
    const third = await k('q1', ['create', '-f', '-'], pod('c', res));
    assert.notEqual(third.status, 0);
    assert.match(
      third.stderr,
      /pods "c" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=400m, used: pods=2,requests.cpu=800m, limited: pods=2,requests.cpu=1/,
    );
    const unset = await k('q1', ['create', '-f', '-'], pod('d'));
    assert.match(unset.stderr, /pods "d" is forbidden: failed quota: q: must specify requests.cpu for: app/);

    await dev.controllers.idle();
    const quota = await json('q1', ['get', 'quota', 'q']);
    assert.deepEqual(quota.status, {
      hard: { pods: '2', 'requests.cpu': '1' },
      used: { pods: '2', 'requests.cpu': '800m' },
    });
    const table = await ok('q1', ['get', 'quota']);
    assert.match(table, /^NAME\s+AGE\s+REQUEST\s+LIMIT\s*$/m);
    assert.match(table, /^q\s+\S+\s+pods: 2\/2, requests.cpu: 800m\/1\s*$/m);
    const describe = await ok('q1', ['describe', 'quota', 'q']);
    assert.match(describe, /requests.cpu\s+800m\s+1/);

    // A finished pod frees its slot; the recount follows the pod's change.
    await ok('q1', ['delete', 'pod', 'a', '--grace-period=0', '--force']);
    await dev.controllers.idle();
    assert.equal((await json('q1', ['get', 'quota', 'q'])).status.used.pods, '1');
    await ok('q1', ['create', '-f', '-'], pod('c', res));
  });

  it('counts other kinds by count/<resource>.<group> and legacy names', async () => {
    await ok('q2', ['create', 'quota', 'objects', '--hard=configmaps=2,count/deployments.apps=1']);
    // kube-root-ca.crt may or may not exist here; create until the quota refuses.
    const made: string[] = [];
    let refusal = '';
    for (let i = 0; i < 3 && !refusal; i++) {
      const r = await k('q2', ['create', 'configmap', `cm${i}`]);
      if (r.status === 0) made.push(`cm${i}`);
      else refusal = r.stderr;
    }
    assert.match(
      refusal,
      /configmaps "cm\d" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=2, limited: configmaps=2/,
    );
    await ok('q2', ['create', 'deployment', 'one', '--image=nginx', '--replicas=0']);
    const second = await k('q2', ['create', 'deployment', 'two', '--image=nginx', '--replicas=0']);
    assert.match(
      second.stderr,
      /deployments.apps "two" is forbidden: exceeded quota: objects, requested: count\/deployments.apps=1/,
    );
  });

  it('holds a Deployment at the quota with FailedCreate events, and resumes when the quota grows', async () => {
    await ok('q3', ['create', 'quota', 'pods', '--hard=pods=2']);
    await ok('q3', ['create', 'deployment', 'web', '--image=nginx', '--replicas=4']);
    await dev.controllers.idle(1_000);
    const pods = await json('q3', ['get', 'pods']);
    assert.equal(pods.items.length, 2);
    const events = await json('q3', ['get', 'events', '--field-selector', 'reason=FailedCreate']);
    assert.ok(events.items.length > 0);
    assert.match(
      events.items[0].message,
      /^(\(combined from similar events\): )?Error creating: pods "web-[a-z0-9]+-[a-z0-9]+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2$/,
    );
    const rs = (await json('q3', ['get', 'rs'])).items[0];
    assert.equal(rs.status.conditions.find((c: Obj) => c.type === 'ReplicaFailure')?.reason, 'FailedCreate');

    // The raised quota wakes the ReplicaSet (no resync, no waiting out its back-off).
    await ok('q3', ['patch', 'quota', 'pods', '-p', '{"spec":{"hard":{"pods":"4"}}}']);
    await dev.controllers.idle();
    assert.equal((await json('q3', ['get', 'pods'])).items.length, 4);
    // So does deleting the quota.
    await ok('q3', ['scale', 'deployment', 'web', '--replicas=6']);
    await dev.controllers.idle(1_000);
    assert.equal((await json('q3', ['get', 'pods'])).items.length, 4);
    await ok('q3', ['delete', 'quota', 'pods']);
    await dev.controllers.idle();
    assert.equal((await json('q3', ['get', 'pods'])).items.length, 6);
  });

  it('charges updates that grow usage: a Service turned NodePort or LoadBalancer, a claim resized', async () => {
    await ok('q5', [
      'create',
      'quota',
      'svc',
      '--hard=services.nodeports=1,services.loadbalancers=0,requests.storage=1Gi,gold.storageclass.storage.k8s.io/requests.storage=600Mi',
    ]);
    await ok('q5', ['create', 'service', 'clusterip', 'two', '--tcp=80:80,443:443']);
    await ok('q5', ['create', 'service', 'clusterip', 'one', '--tcp=80:80']);
    const toNodePort = await k('q5', ['patch', 'service', 'two', '-p', '{"spec":{"type":"NodePort"}}']);
    assert.match(
      toNodePort.stderr,
      /services "two" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1/,
    );
    assert.equal((await json('q5', ['get', 'service', 'two'])).spec.type, 'ClusterIP');
    await ok('q5', ['patch', 'service', 'one', '-p', '{"spec":{"type":"NodePort"}}']);
    // Its node port is charged already: only the load balancer is new.
    const toLb = await k('q5', ['patch', 'service', 'one', '-p', '{"spec":{"type":"LoadBalancer"}}']);
    assert.match(
      toLb.stderr,
      /services "one" is forbidden: exceeded quota: svc, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0/,
    );
    // An update that charges nothing more passes at the limit.
    await ok('q5', ['label', 'service', 'one', 'tier=web']);

    const claim = JSON.stringify({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: {
        storageClassName: 'gold',
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '512Mi' } },
      },
    });
    await ok('q5', ['create', '-f', '-'], claim);
    // Only a bound claim of a class that allows expansion may grow.
    await ok(
      'q5',
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'gold' },
        provisioner: 'example.com/gold',
        allowVolumeExpansion: true,
      }),
    );
    // The volume an external provisioner would create for it, pre-bound: the PV controller binds the claim.
    await ok(
      'q5',
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'gold-data' },
        spec: {
          capacity: { storage: '512Mi' },
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'gold',
          hostPath: { path: '/data/gold' },
          claimRef: { namespace: 'q5', name: 'data' },
        },
      }),
    );
    await until(
      () => statusOf(dev.store.get('/persistentvolumeclaims', 'q5', 'data')?.obj ?? {}).phase === 'Bound',
      'bound',
    );
    const resize = (size: string) =>
      k('q5', [
        'patch',
        'pvc',
        'data',
        '-p',
        JSON.stringify({ spec: { resources: { requests: { storage: size } } } }),
      ]);
    const tooBig = await resize('1Gi');
    assert.match(
      tooBig.stderr,
      /persistentvolumeclaims "data" is forbidden: exceeded quota: svc, requested: gold.storageclass.storage.k8s.io\/requests.storage=512Mi, used: gold.storageclass.storage.k8s.io\/requests.storage=512Mi, limited: gold.storageclass.storage.k8s.io\/requests.storage=600Mi/,
    );
    assert.equal((await resize('600Mi')).status, 0);
    await dev.controllers.idle();
    const used = (await json('q5', ['get', 'quota', 'svc'])).status.used;
    assert.equal(used['services.nodeports'], '1');
    assert.equal(used['requests.storage'], '600Mi');
  });

  it('applies a scopeSelector over priority classes, in admission and status.used', async () => {
    for (const [name, value] of [
      ['high', 1000],
      ['low', 10],
    ])
      await kubectl.run(['create', 'priorityclass', String(name), `--value=${value}`]);
    const quota = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'high' },
      spec: {
        hard: { pods: '1' },
        scopeSelector: {
          matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }],
        },
      },
    });
    await ok('q6', ['create', '-f', '-'], quota);
    const prioritized = (name: string, priorityClassName: string) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { priorityClassName, containers: [{ name: 'app', image: 'nginx:1.25' }] },
      });
    await ok('q6', ['create', '-f', '-'], prioritized('h1', 'high'));
    const second = await k('q6', ['create', '-f', '-'], prioritized('h2', 'high'));
    assert.match(
      second.stderr,
      /pods "h2" is forbidden: exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1/,
    );
    await ok('q6', ['create', '-f', '-'], prioritized('l1', 'low'));
    await ok('q6', ['create', '-f', '-'], pod('plain'));
    await dev.controllers.idle();
    assert.deepEqual((await json('q6', ['get', 'quota', 'high'])).status.used, { pods: '1' });
  });

  it('applies LimitRange defaults and refuses pods outside its bounds', async () => {
    const lr = JSON.stringify({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits' },
      spec: {
        limits: [
          {
            type: 'Container',
            max: { cpu: '1' },
            default: { cpu: '500m', memory: '256Mi' },
            defaultRequest: { memory: '128Mi' },
          },
        ],
      },
    });
    await ok('q4', ['create', '-f', '-'], lr);
    const stored = await json('q4', ['get', 'limits', 'limits']);
    assert.deepEqual(stored.spec.limits[0].defaultRequest, { memory: '128Mi', cpu: '500m' });

    assert.match(
      await ok('q4', ['describe', 'limits', 'limits']),
      /Container\s+cpu\s+-\s+1\s+500m\s+500m\s+-/,
    );

    await ok('q4', ['create', '-f', '-'], pod('plain'));
    const p = await json('q4', ['get', 'pod', 'plain']);
    assert.deepEqual(p.spec.containers[0].resources, {
      limits: { cpu: '500m', memory: '256Mi' },
      requests: { memory: '128Mi', cpu: '500m' },
    });
    assert.equal(
      p.metadata.annotations['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app',
    );
    assert.equal(p.status.qosClass, 'Burstable');

    const big = await k('q4', ['create', '-f', '-'], pod('big', { limits: { cpu: '2' } }));
    assert.match(big.stderr, /pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2/);
    assert.equal((await k('q4', ['get', 'pod', 'big'])).status, 1);
  });

  it('refuses invalid quotas and limit ranges with 422', async () => {
    const quota = (hard: Obj) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'bad' }, spec: { hard } });
    const negative = await k('q4', ['create', '-f', '-'], quota({ cpu: '-1' }));
    assert.match(
      negative.stderr,
      /ResourceQuota "bad" is invalid: spec.hard\[cpu\]: Invalid value: "-1": must be greater than or equal to 0/,
    );
    const unknown = await k('q4', ['create', '-f', '-'], quota({ widgets: '1' }));
    assert.match(
      unknown.stderr,
      /spec.hard\[widgets\]: Invalid value: "widgets": must be a standard resource for quota/,
    );
    const scoped = (spec: Obj) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'bad' }, spec });
    const countsConfigMaps = await k(
      'q4',
      ['create', '-f', '-'],
      scoped({ hard: { configmaps: '1' }, scopes: ['PriorityClass'] }),
    );
    assert.match(
      countsConfigMaps.stderr,
      /spec.scopes: Invalid value: \[\]core.ResourceQuotaScope\{"PriorityClass"\}: unsupported scope applied to resource/,
    );
    const selector = await k(
      'q4',
      ['create', '-f', '-'],
      scoped({
        hard: { pods: '1' },
        scopeSelector: {
          matchExpressions: [
            { scopeName: 'BestEffort', operator: 'In', values: ['x'] },
            { scopeName: 'PriorityClass', operator: 'NotIn' },
          ],
        },
      }),
    );
    assert.match(
      selector.stderr,
      /spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating/,
    );
    assert.match(
      selector.stderr,
      /spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector/,
    );
    const conflict = await k(
      'q4',
      ['create', '-f', '-'],
      scoped({ hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] }),
    );
    assert.match(conflict.stderr, /spec.scopes: Invalid value: .*: conflicting scopes/);
    const garbage = await k('q4', ['create', '-f', '-'], quota({ cpu: 'lots' }));
    assert.match(garbage.stderr, /quantities must match the regular expression/);
    const lr = JSON.stringify({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'bad' },
      spec: { limits: [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '2' } }] },
    });
    const over = await k('q4', ['create', '-f', '-'], lr);
    assert.match(
      over.stderr,
      /LimitRange "bad" is invalid: [\s\S]*spec.limits\[0\].default\[cpu\]: Invalid value: "1": default value 2 is greater than max value 1/,
    );
  });
});
