// The simulated machines over a real dev cluster (real HTTP where clients would use it): node registration and
// heartbeats, the scheduler's filters and messages, pods/binding, the kubelet's pod lifecycle and graceful deletion,
// pods/log options, exec refused over plain and upgrade requests, endpoints with named ports, the QoS class.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { demoNode, NodeHeartbeat } from '../../../src/devcluster/simulation/nodes.ts';
import { unschedulableMessage } from '../../../src/devcluster/simulation/scheduler.ts';
import type { Obj } from '../../../src/devcluster/store.ts';
import { qosClass } from '../../../src/devcluster/strategy/pod.ts';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { createNamespace, defOf, statusOf, until } from '../../helpers/workloads.ts';

let dev: TestDevCluster;
const NS = 'sim';
const pods = () => defOf(dev, '', 'pods');
const pod = (name: string) => dev.store.get('/pods', NS, name);
const podBody = (name: string, spec: Obj = {}, meta: Obj = {}): Obj => ({
  metadata: { name, ...meta },
  spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], ...spec },
});
const eventsOf = (name: string, reason: string) =>
  dev.store
    .list('/events', NS)
    .filter((e) => (e.obj.involvedObject as Obj).name === name && e.obj.reason === reason)
    .map((e) => String(e.obj.message));
const phase = (name: string) => statusOf(pod(name)?.obj ?? {}).phase;

describe('simulated nodes, scheduler and kubelets', { timeout: 120_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false, simulation: { podStartMs: 50, podRunMs: 200 } });
    const nodes = defOf(dev, '', 'nodes');
    for (const i of [1, 2, 3]) dev.rest.create(nodes, '', demoNode(i, i === 1));
    createNamespace(dev, NS);
    await until(() => dev.store.list('coordination.k8s.io/leases', 'kube-node-lease').length === 3, 'leases');
  });
  after(async () => {
    await dev?.close();
  });

  it('registers any node: pod CIDR, Ready status, addresses, nodeInfo and a Lease owned by the node', async () => {
    dev.rest.create(defOf(dev, '', 'nodes'), '', { metadata: { name: 'extra', labels: { pool: 'x' } } });
    await until(() => !!dev.store.get('coordination.k8s.io/leases', 'kube-node-lease', 'extra'), 'lease');
    const node = dev.store.get('/nodes', '', 'extra')?.obj as Obj;
    assert.equal((node.spec as Obj).podCIDR, '10.244.4.0/24', 'the lowest free /24');
    const status = node.status as Obj;
    const ready = (status.conditions as Obj[]).find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'True');
    assert.equal((status.allocatable as Obj).pods, '110');
    assert.deepEqual(status.addresses, [
      { type: 'InternalIP', address: '192.168.49.14' },
      { type: 'Hostname', address: 'extra' },
    ]);
    assert.equal((status.nodeInfo as Obj).kubeletVersion, 'v1.33.1');
    const lease = dev.store.get('coordination.k8s.io/leases', 'kube-node-lease', 'extra')?.obj as Obj;
    assert.equal(
      (lease.metadata as Obj as { ownerReferences: Obj[] }).ownerReferences[0].uid,
      (node.metadata as Obj).uid,
    );
    dev.rest.delete(defOf(dev, '', 'nodes'), '', 'extra');
    await until(
      () => !dev.store.get('coordination.k8s.io/leases', 'kube-node-lease', 'extra'),
      'lease collected',
    );
  });

  it('a heartbeat renews every lease in one store batch', () => {
    const before = new Map(
      dev.store.list('coordination.k8s.io/leases', 'kube-node-lease').map((e) => [e.name, e.rv]),
    );
    let batches = 0;
    const batch = dev.store.batch.bind(dev.store);
    dev.store.batch = (fn) => {
      batches++;
      batch(fn);
    };
    try {
      new NodeHeartbeat(dev.rest, 60_000, () => Date.now() + 5000).beat();
    } finally {
      dev.store.batch = batch;
    }
    assert.equal(batches, 1);
    for (const e of dev.store.list('coordination.k8s.io/leases', 'kube-node-lease')) {
      assert.ok(e.rv > (before.get(e.name) ?? 0), `${e.name} renewed`);
      assert.match(String((e.obj.spec as Obj).renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    }
  });

  it('words FailedScheduling as kube-scheduler does', () => {
    assert.equal(
      unschedulableMessage(3, [
        ['node(s) had untolerated taint {a: }'],
        ['Insufficient cpu'],
        ['Insufficient cpu', 'Insufficient memory'],
      ]),
      '0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {a: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
    assert.equal(unschedulableMessage(0, []), 'no nodes available to schedule pods');
  });

  it('filters by unschedulable, taints and memory; retries when a node changes', async () => {
    const nodes = defOf(dev, '', 'nodes');
    const cordon = (name: string, unschedulable: boolean) => {
      const e = dev.store.get('/nodes', '', name);
      if (!e) throw new Error(name);
      dev.rest.update(nodes, '', name, { ...e.obj, spec: { ...(e.obj.spec as Obj), unschedulable } });
    };
    cordon('node2', true);
    dev.rest.create(
      pods(),
      NS,
      podBody('big', {
        containers: [{ name: 'main', image: 'nginx', resources: { requests: { memory: '7Gi' } } }],
      }),
    );
    dev.rest.create(
      pods(),
      NS,
      podBody('blocker', {
        nodeName: 'node3',
        containers: [{ name: 'main', image: 'nginx', resources: { requests: { memory: '1Gi' } } }],
      }),
    );
    await until(() => eventsOf('big', 'FailedScheduling').length > 0, 'FailedScheduling');
    const [message] = eventsOf('big', 'FailedScheduling');
    // node3 has 7935640Ki allocatable: 7Gi fits only while nothing else asks for memory there.
    assert.match(
      message,
      /^0\/3 nodes are available: 1 Insufficient memory, 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 1 node\(s\) were unschedulable\. preemption: 0\/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling\.$/,
    );
    const cond = (statusOf(pod('big')?.obj ?? {}).conditions as Obj[]).find((c) => c.type === 'PodScheduled');
    assert.deepEqual([cond?.status, cond?.reason, cond?.message], ['False', 'Unschedulable', message]);
    cordon('node2', false);
    await until(
      () => (pod('big')?.obj.spec as Obj | undefined)?.nodeName === 'node2',
      'scheduled after uncordon',
    );
    assert.deepEqual(eventsOf('big', 'Scheduled'), [`Successfully assigned ${NS}/big to node2`]);
  });

  it('pods/binding sets the node once; an update may not change it', async () => {
    dev.rest.create(pods(), NS, podBody('manual', { schedulerName: 'my-scheduler' }));
    const path = `/api/v1/namespaces/${NS}/pods/manual/binding`;
    const bind = (node: string, name = 'manual') =>
      devRequest(dev, 'POST', path, {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name },
        target: { kind: 'Node', name: node },
      });
    assert.equal((await bind('node3', 'other')).status, 400);
    const ok = await bind('node3');
    assert.equal(ok.status, 201, ok.text);
    assert.equal((ok.body as Obj).status, 'Success');
    const again = await bind('node2');
    assert.equal(again.status, 409);
    assert.match(String((again.body as Obj).message), /is already assigned to node "node3"/);
    await until(() => phase('manual') === 'Running', 'running on node3');
    const cur = (await devRequest(dev, 'GET', `/api/v1/namespaces/${NS}/pods/manual`)).body as Obj;
    const moved = await devRequest(dev, 'PUT', `/api/v1/namespaces/${NS}/pods/manual`, {
      ...cur,
      spec: { ...(cur.spec as Obj), nodeName: 'node2' },
    });
    assert.equal(moved.status, 422);
  });

  it('runs a pod through ContainerCreating to Running, with IP, statuses, conditions and events', async () => {
    const seen: string[] = [];
    const unsubscribe = dev.store.subscribe((ev) => {
      if (ev.res !== '/pods' || ev.name !== 'life') return;
      const s = statusOf(ev.obj);
      const waiting = ((s.containerStatuses as Obj[] | undefined)?.[0]?.state as Obj | undefined)?.waiting as
        | Obj
        | undefined;
      seen.push(`${String(s.phase)}${waiting ? `/${String(waiting.reason)}` : ''}`);
    });
    dev.rest.create(pods(), NS, podBody('life', { nodeSelector: { 'kubernetes.io/hostname': 'node3' } }));
    await until(() => phase('life') === 'Running', 'Running');
    unsubscribe();
    assert.ok(
      seen.indexOf('Pending/ContainerCreating') >= 0 &&
        seen.indexOf('Pending/ContainerCreating') < seen.indexOf('Running'),
      seen.join(),
    );
    const s = statusOf(pod('life')?.obj ?? {});
    assert.equal(s.hostIP, '192.168.49.13');
    assert.match(String(s.podIP), /^10\.244\.3\.\d+$/);
    assert.equal(s.qosClass, 'BestEffort');
    const types = (s.conditions as Obj[])
      .filter((c) => c.status === 'True')
      .map((c) => c.type)
      .sort();
    assert.deepEqual(types, [
      'ContainersReady',
      'Initialized',
      'PodReadyToStartContainers',
      'PodScheduled',
      'Ready',
    ]);
    const cs = (s.containerStatuses as Obj[])[0];
    assert.equal(cs.ready, true);
    assert.match(String(cs.containerID), /^containerd:\/\/[0-9a-f]{64}$/);
    assert.match(String(cs.imageID), /^nginx@sha256:[0-9a-f]{64}$/);
    const ips = dev.store
      .list('/pods', NS)
      .map((e) => statusOf(e.obj).podIP)
      .filter(Boolean);
    assert.equal(new Set(ips).size, ips.length, 'pod IPs are unique');
    const started = dev.store
      .list('/events', NS)
      .find((e) => (e.obj.involvedObject as Obj).name === 'life' && e.obj.reason === 'Started')?.obj as Obj;
    assert.equal((started.involvedObject as Obj).fieldPath, 'spec.containers{main}');
    assert.deepEqual(started.source, { component: 'kubelet', host: 'node3' });
  });

  it('run-to-completion pods finish with the exit code asked by annotation', async () => {
    dev.rest.create(pods(), NS, podBody('ok', { restartPolicy: 'Never' }));
    dev.rest.create(
      pods(),
      NS,
      podBody(
        'fails',
        { restartPolicy: 'OnFailure' },
        { annotations: { 'kapiserver.kubesphere.io/simulated-exit-code': '3' } },
      ),
    );
    dev.rest.create(
      pods(),
      NS,
      podBody(
        'long',
        { restartPolicy: 'Never' },
        { annotations: { 'kapiserver.kubesphere.io/simulated-run-seconds': '3600' } },
      ),
    );
    await until(() => phase('ok') === 'Succeeded' && phase('fails') === 'Failed', 'finished');
    const term = (name: string) =>
      ((statusOf(pod(name)?.obj ?? {}).containerStatuses as Obj[])[0].state as Obj).terminated as Obj;
    assert.deepEqual([term('ok').exitCode, term('ok').reason], [0, 'Completed']);
    assert.deepEqual([term('fails').exitCode, term('fails').reason], [3, 'Error']);
    assert.equal(phase('long'), 'Running');
  });

  it('pods/log: container choice, options, waiting and unscheduled pods', async () => {
    dev.rest.create(
      pods(),
      NS,
      podBody('two', {
        containers: [
          { name: 'a', image: 'x', command: ['run', 'it'] },
          { name: 'b', image: 'y' },
        ],
      }),
    );
    await until(() => phase('two') === 'Running', 'Running');
    const log = (q: string) => devRequest(dev, 'GET', `/api/v1/namespaces/${NS}/pods/two/log${q}`);
    const unnamed = await log('');
    assert.equal(unnamed.status, 400);
    assert.match(
      String((unnamed.body as Obj).message),
      /a container name must be specified for pod two, choose one of: \[a b\]/,
    );
    const a = await log('?container=a');
    assert.equal(a.status, 200);
    assert.match(a.text, /the container would run: run it\n$/);
    assert.equal((await log('?container=a&tailLines=1')).text.split('\n').length, 2);
    assert.equal((await log('?container=a&limitBytes=10')).text.length, 10);
    assert.equal((await log('?container=a&sinceTime=2999-01-01T00:00:00Z')).text, '');
    assert.equal((await log('?container=a&tailLines=-1')).status, 400);
    assert.equal((await log('?container=zz')).status, 400);
    dev.rest.create(pods(), NS, podBody('nowhere', { nodeSelector: { none: 'x' } }));
    const nowhere = await devRequest(dev, 'GET', `/api/v1/namespaces/${NS}/pods/nowhere/log`);
    assert.equal(nowhere.status, 400);
    assert.match(String((nowhere.body as Obj).message), /does not have a host assigned/);
  });

  it('exec refuses with a Status: plain POST, SPDY upgrade; unauthenticated is 401 first', async () => {
    const path = `/api/v1/namespaces/${NS}/pods/life/exec?command=ls&stdout=true`;
    const plain = await devRequest(dev, 'POST', path);
    assert.equal(plain.status, 400);
    assert.match(String((plain.body as Obj).message), /runs no processes/);
    const upgrade = (token: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${dev.url}${path}`, {
          method: 'POST',
          ca: dev.caPem,
          headers: {
            Authorization: `Bearer ${token}`,
            Connection: 'Upgrade',
            Upgrade: 'SPDY/3.1',
            'X-Stream-Protocol-Version': 'v4.channel.k8s.io',
          },
        });
        req.on('response', (r) => {
          let text = '';
          r.on('data', (c) => {
            text += c;
          });
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
        });
        req.on('upgrade', () => reject(new Error('upgraded')));
        req.on('error', reject);
        req.end();
      });
    const spdy = await upgrade(dev.token);
    assert.equal(spdy.status, 400);
    assert.match(JSON.parse(spdy.text).message, /pods\/exec is not available/);
    assert.equal((await upgrade('wrong')).status, 401);
  });

  it('graceful deletion: marked, stopped by the kubelet (Killing) and removed; grace 0 removes at once', async () => {
    const del = await devRequest(dev, 'DELETE', `/api/v1/namespaces/${NS}/pods/life`);
    assert.equal(del.status, 200);
    assert.ok(((del.body as Obj).metadata as Obj).deletionTimestamp);
    assert.equal(((del.body as Obj).metadata as Obj).deletionGracePeriodSeconds, 30);
    await until(() => !pod('life'), 'removed by the kubelet');
    assert.deepEqual(eventsOf('life', 'Killing'), ['Stopping container main']);
    const now = await devRequest(dev, 'DELETE', `/api/v1/namespaces/${NS}/pods/two`, {
      gracePeriodSeconds: 0,
    });
    assert.equal(now.status, 200);
    assert.equal(pod('two'), undefined);
    assert.equal(
      (await devRequest(dev, 'DELETE', `/api/v1/namespaces/${NS}/pods/ok?gracePeriodSeconds=x`)).status,
      400,
    );
  });

  it('pods/eviction deletes gracefully unless a PodDisruptionBudget forbids it (429)', async () => {
    for (const n of ['e1', 'e2']) dev.rest.create(pods(), NS, podBody(n, {}, { labels: { app: 'evict' } }));
    await until(() => phase('e1') === 'Running' && phase('e2') === 'Running', 'running');
    dev.rest.create(defOf(dev, 'policy', 'poddisruptionbudgets'), NS, {
      metadata: { name: 'keep-one' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'evict' } } },
    });
    const evict = (name: string) =>
      devRequest(dev, 'POST', `/api/v1/namespaces/${NS}/pods/${name}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name },
      });
    const first = await evict('e1');
    assert.equal(first.status, 201, first.text);
    await until(() => !pod('e1'), 'evicted');
    const second = await evict('e2');
    assert.equal(second.status, 429);
    assert.match(
      String(((second.body as Obj).details as { causes: Obj[] }).causes[0].message),
      /needs 1 healthy pods and has 1 currently/,
    );
    assert.equal(phase('e2'), 'Running');
  });

  it('the pods of a deleted node are collected', async () => {
    dev.rest.create(defOf(dev, '', 'nodes'), '', { metadata: { name: 'gone' } });
    dev.rest.create(pods(), NS, podBody('stranded', { nodeName: 'gone' }));
    await until(() => phase('stranded') === 'Running', 'running on the new node');
    dev.rest.delete(defOf(dev, '', 'nodes'), '', 'gone');
    await until(() => !pod('stranded'), 'orphaned pod deleted');
  });

  it('Endpoints resolve named target ports; the Service owns its EndpointSlice', async () => {
    dev.rest.create(
      pods(),
      NS,
      podBody(
        'srv',
        { containers: [{ name: 'main', image: 'nginx', ports: [{ name: 'web', containerPort: 8080 }] }] },
        { labels: { app: 'srv' } },
      ),
    );
    dev.rest.create(defOf(dev, '', 'services'), NS, {
      metadata: { name: 'srv' },
      spec: { selector: { app: 'srv' }, ports: [{ port: 80, targetPort: 'web' }] },
    });
    await until(
      () =>
        (
          (dev.store.get('/endpoints', NS, 'srv')?.obj.subsets as Obj[] | undefined)?.[0]?.addresses as
            | Obj[]
            | undefined
        )?.length === 1,
      'endpoint',
    );
    const subset = ((dev.store.get('/endpoints', NS, 'srv')?.obj.subsets ?? []) as Obj[])[0];
    assert.deepEqual(subset.ports, [{ port: 8080, protocol: 'TCP' }]);
    assert.equal((subset.addresses as Obj[])[0].ip, statusOf(pod('srv')?.obj ?? {}).podIP);
    const slices = () =>
      dev.store
        .list('discovery.k8s.io/endpointslices', NS)
        .filter((e) => ((e.obj.metadata as Obj).labels as Obj)['kubernetes.io/service-name'] === 'srv');
    assert.equal(slices().length, 1);
    dev.rest.delete(defOf(dev, '', 'services'), NS, 'srv');
    await until(
      () => !dev.store.get('/endpoints', NS, 'srv') && slices().length === 0,
      'endpoints and slice gone',
    );
  });

  it('every namespace gets kube-root-ca.crt with the cluster CA', async () => {
    await until(() => !!dev.store.get('/configmaps', NS, 'kube-root-ca.crt'), 'root CA');
    assert.equal(
      (dev.store.get('/configmaps', NS, 'kube-root-ca.crt')?.obj.data as Obj | undefined)?.['ca.crt'],
      dev.caPem,
    );
  });

  it('QoS class', () => {
    const c = (resources: Obj) => ({ containers: [{ name: 'a', image: 'x', resources }] });
    assert.equal(qosClass(c({})), 'BestEffort');
    assert.equal(qosClass(c({ requests: { cpu: '1' } })), 'Burstable');
    assert.equal(qosClass(c({ limits: { cpu: '1', memory: '1Gi' } })), 'Guaranteed');
    assert.equal(
      qosClass(c({ requests: { cpu: '500m' }, limits: { cpu: '1', memory: '1Gi' } })),
      'Burstable',
    );
  });
});
