// StatefulSet and DaemonSet controllers over a real dev cluster: ordered stable names, Parallel, claims,
// ControllerRevisions and a partitioned rolling update; a daemon per selected, tolerating node, following node
// label changes and template updates. The test plays the kubelet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Entry, Obj } from '../../../src/devcluster/store.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import {
  createNamespace,
  defOf,
  metaOf,
  ownedBy,
  readyKubelet,
  specOf,
  statusOf,
  until,
} from '../../helpers/workloads.ts';

let dev: TestDevCluster;
const NS = 'stateful';
const sts = (name: string) => dev.store.get('apps/statefulsets', NS, name) as Entry;
const ds = (name: string) => dev.store.get('apps/daemonsets', NS, name) as Entry;
const podNames = (owner: Entry) =>
  ownedBy(dev, '/pods', NS, owner)
    .filter((p) => !metaOf(p.obj).deletionTimestamp)
    .map((p) => p.name)
    .sort();
const hashOf = (p: Entry) => (metaOf(p.obj).labels as Obj)['controller-revision-hash'];
const workload = (name: string, extra: Obj = {}, image = 'redis:7') => ({
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
    ...extra,
  },
});
const setImage = (res: string, name: string, image: string) => {
  const [group, resource] = res.split('/');
  const o = structuredClone((dev.store.get(res, NS, name) as Entry).obj);
  ((specOf(o).template as Obj).spec as { containers: Obj[] }).containers[0].image = image;
  dev.rest.update(defOf(dev, group, resource), NS, name, o);
};

describe('StatefulSet and DaemonSet controllers', { timeout: 60_000 }, () => {
  let kubelet: { stop(): void } | undefined;
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
    createNamespace(dev, NS);
  });
  after(async () => {
    kubelet?.stop();
    await dev?.close();
  });

  it('OrderedReady creates <sts>-0..n-1 one at a time, each after the previous is ready', async () => {
    dev.rest.create(
      defOf(dev, 'apps', 'statefulsets'),
      NS,
      workload('db', {
        replicas: 3,
        serviceName: 'db',
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      }),
    );
    await until(() => podNames(sts('db')).length === 1, 'db-0');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(podNames(sts('db')), ['db-0'], 'db-1 waits for db-0 to be ready');
    const p0 = dev.store.get('/pods', NS, 'db-0') as Entry;
    assert.equal(specOf(p0.obj).hostname, 'db-0');
    assert.equal(specOf(p0.obj).subdomain, 'db');
    assert.ok(dev.store.get('/persistentvolumeclaims', NS, 'data-db-0'), 'the claim of db-0');
    kubelet = readyKubelet(dev, NS);
    await until(() => statusOf(sts('db').obj).readyReplicas === 3, 'three ready replicas');
    assert.deepEqual(podNames(sts('db')), ['db-0', 'db-1', 'db-2']);
    const st = statusOf(sts('db').obj);
    assert.equal(st.currentRevision, st.updateRevision);
    assert.ok(
      dev.store.get('apps/controllerrevisions', NS, String(st.updateRevision)),
      'the ControllerRevision',
    );
  });

  it('a rolling update with a partition replaces only the ordinals at or above it, highest first', async () => {
    dev.rest.patch(defOf(dev, 'apps', 'statefulsets'), NS, 'db', 'merge', {
      spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } },
    });
    const before = statusOf(sts('db').obj).currentRevision;
    setImage('apps/statefulsets', 'db', 'redis:8');
    await until(
      () => statusOf(sts('db').obj).updatedReplicas === 2 && statusOf(sts('db').obj).readyReplicas === 3,
      'db-1 and db-2 updated',
    );
    const st = statusOf(sts('db').obj);
    assert.notEqual(st.updateRevision, before);
    assert.equal(st.currentRevision, before, 'not every pod runs the update revision yet');
    const pod = (n: string) => dev.store.get('/pods', NS, n) as Entry;
    assert.equal(hashOf(pod('db-0')), String(before).slice('db-'.length));
    assert.equal(hashOf(pod('db-2')), String(st.updateRevision).slice('db-'.length));
    assert.equal((specOf(pod('db-2').obj).containers as Obj[])[0].image, 'redis:8');
  });

  it('scales down from the highest ordinal; Parallel creates every pod at once', async () => {
    dev.rest.patch(defOf(dev, 'apps', 'statefulsets'), NS, 'db', 'merge', { spec: { replicas: 1 } });
    await until(() => podNames(sts('db')).join() === 'db-0', 'scaled to db-0');
    kubelet?.stop();
    dev.rest.create(
      defOf(dev, 'apps', 'statefulsets'),
      NS,
      workload('par', { replicas: 3, podManagementPolicy: 'Parallel' }),
    );
    await until(() => podNames(sts('par')).length === 3, 'three pods without readiness');
    kubelet = readyKubelet(dev, NS);
  });

  it('a DaemonSet runs one pod per selected node it tolerates, and follows node labels', async () => {
    const nodes = defOf(dev, '', 'nodes');
    dev.rest.create(nodes, '', { metadata: { name: 'n1', labels: { disk: 'ssd' } } });
    dev.rest.create(nodes, '', { metadata: { name: 'n2', labels: { disk: 'ssd' } } });
    dev.rest.create(nodes, '', { metadata: { name: 'n3', labels: { disk: 'hdd' } } });
    dev.rest.create(nodes, '', {
      metadata: { name: 'n4', labels: { disk: 'ssd' } },
      spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
    });
    dev.rest.create(defOf(dev, 'apps', 'daemonsets'), NS, workload('agent', {}, 'fluentd:1'));
    dev.rest.patch(defOf(dev, 'apps', 'daemonsets'), NS, 'agent', 'merge', {
      spec: { template: { spec: { nodeSelector: { disk: 'ssd' } } } },
    });
    const nodesOf = () =>
      ownedBy(dev, '/pods', NS, ds('agent'))
        .filter((p) => !metaOf(p.obj).deletionTimestamp)
        .map((p) => String(specOf(p.obj).nodeName))
        .sort();
    await until(() => nodesOf().join() === 'n1,n2', 'daemons on n1 and n2');
    await until(() => statusOf(ds('agent').obj).numberReady === 2, 'two ready daemons');
    const st = statusOf(ds('agent').obj);
    assert.equal(st.desiredNumberScheduled, 2);
    assert.equal(st.currentNumberScheduled, 2);
    const [pod] = ownedBy(dev, '/pods', NS, ds('agent'));
    const terms = (
      ((specOf(pod.obj).affinity as Obj).nodeAffinity as Obj)
        .requiredDuringSchedulingIgnoredDuringExecution as Obj
    ).nodeSelectorTerms as Obj[];
    assert.deepEqual(terms[0].matchFields, [
      { key: 'metadata.name', operator: 'In', values: [specOf(pod.obj).nodeName] },
    ]);
    dev.rest.patch(nodes, '', 'n3', 'merge', { metadata: { labels: { disk: 'ssd' } } });
    dev.rest.patch(nodes, '', 'n1', 'merge', { metadata: { labels: { disk: 'hdd' } } });
    await until(() => nodesOf().join() === 'n2,n3', 'daemons follow the labels');
    setImage('apps/daemonsets', 'agent', 'fluentd:2');
    await until(
      () =>
        statusOf(ds('agent').obj).observedGeneration === metaOf(ds('agent').obj).generation &&
        statusOf(ds('agent').obj).updatedNumberScheduled === 2 &&
        statusOf(ds('agent').obj).numberReady === 2,
      'daemons updated',
    );
    assert.equal(
      dev.store.list('apps/controllerrevisions', NS).filter((r) => r.name.startsWith('agent-')).length,
      2,
    );
  });
});
