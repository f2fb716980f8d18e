// Volumes bind in the dev cluster as kube-controller-manager's PV controller and kube-scheduler's VolumeBinding
// plugin bind them: a WaitForFirstConsumer claim waits (one WaitForFirstConsumer event) until a pod uses it, then is
// provisioned on the scheduler's node (hostPath PV pinned there) and the pod runs; an Immediate class provisions at
// once; static volumes bind smallest-fit by class, access modes, selector and capacity, or by name; a deleted
// claim's volume is Released then reclaimed by policy; a lost volume makes its claim Lost; a grown claim is expanded;
// the scheduler refuses pods whose claims are missing or unbound Immediate, with kube's messages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { demoNode } from '../../../src/devcluster/simulation/nodes.ts';
import type { Obj } from '../../../src/devcluster/store.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { createNamespace, defOf, metaOf, specOf, statusOf, until } from '../../helpers/workloads.ts';

const NS = 'vols';
let dev: TestDevCluster;
const claims = () => defOf(dev, '', 'persistentvolumeclaims');
const pvs = () => defOf(dev, '', 'persistentvolumes');
const claimOf = (name: string) => dev.store.get('/persistentvolumeclaims', NS, name)?.obj as Obj;
const pvOf = (name: string) => dev.store.get('/persistentvolumes', '', name)?.obj as Obj | undefined;
const podOf = (name: string) => dev.store.get('/pods', NS, name)?.obj as Obj;
const claim = (name: string, spec: Obj = {}, metadata: Obj = {}): Obj => ({
  metadata: { name, ...metadata },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const volume = (name: string, size: string, spec: Obj = {}, metadata: Obj = {}): Obj => ({
  metadata: { name, ...metadata },
  spec: {
    capacity: { storage: size },
    accessModes: ['ReadWriteOnce'],
    storageClassName: '',
    hostPath: { path: `/data/${name}` },
    ...spec,
  },
});
const podUsing = (name: string, ...claimNames: string[]): Obj => ({
  metadata: { name },
  spec: {
    containers: [{ name: 'main', image: 'nginx:1.27' }],
    volumes: claimNames.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })),
  },
});
const eventsOf = (name: string, reason: string) =>
  dev.store
    .list('/events', NS)
    .filter((e) => (e.obj.involvedObject as Obj).name === name && e.obj.reason === reason)
    .map((e) => ({ message: String(e.obj.message), count: Number(e.obj.count) }));
const phaseOf = (o: Obj | undefined) => statusOf(o ?? {}).phase;
const podScheduled = (name: string) =>
  ((statusOf(podOf(name)).conditions as Obj[] | undefined) ?? []).find((c) => c.type === 'PodScheduled');

describe('volume binding and provisioning', { timeout: 120_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false, simulation: { podStartMs: 50, podRunMs: 200 } });
    for (const i of [1, 2, 3]) dev.rest.create(defOf(dev, '', 'nodes'), '', demoNode(i, i === 1));
    createNamespace(dev, NS);
    await until(() => dev.store.list('coordination.k8s.io/leases', 'kube-node-lease').length === 3, 'leases');
  });
  after(async () => {
    await dev?.close();
  });

  it('a WaitForFirstConsumer claim waits for its pod, then is provisioned on the pod node and binds', async () => {
    dev.rest.create(claims(), NS, claim('data'));
    await dev.controllers.idle();
    assert.equal(phaseOf(claimOf('data')), 'Pending');
    // Another change of the claim: the event is not repeated.
    dev.rest.update(claims(), NS, 'data', {
      ...claimOf('data'),
      metadata: { ...metaOf(claimOf('data')), labels: { a: 'b' } },
    });
    await dev.controllers.idle();
    assert.deepEqual(eventsOf('data', 'WaitForFirstConsumer'), [
      { message: 'waiting for first consumer to be created before binding', count: 1 },
    ]);
    dev.rest.create(defOf(dev, '', 'pods'), NS, podUsing('app', 'data'));
    await until(() => phaseOf(podOf('app')) === 'Running', 'the pod running');
    const c = claimOf('data');
    const node = String(specOf(podOf('app')).nodeName);
    const uid = String(metaOf(c).uid);
    assert.equal(phaseOf(c), 'Bound');
    assert.equal(specOf(c).volumeName, `pvc-${uid}`);
    assert.deepEqual(statusOf(c).capacity, { storage: '1Gi' });
    assert.deepEqual(statusOf(c).accessModes, ['ReadWriteOnce']);
    assert.deepEqual(metaOf(c).annotations, {
      'volume.kubernetes.io/selected-node': node,
      'volume.kubernetes.io/storage-provisioner': 'devcluster.kapiserver.io/local-path',
      'volume.beta.kubernetes.io/storage-provisioner': 'devcluster.kapiserver.io/local-path',
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
    });
    const pv = pvOf(`pvc-${uid}`) as Obj;
    assert.equal(phaseOf(pv), 'Bound');
    assert.deepEqual(metaOf(pv).annotations, {
      'pv.kubernetes.io/provisioned-by': 'devcluster.kapiserver.io/local-path',
    });
    assert.deepEqual(metaOf(pv).finalizers, ['kubernetes.io/pv-protection']);
    const spec = specOf(pv);
    assert.deepEqual(spec.capacity, { storage: '1Gi' });
    assert.equal(spec.storageClassName, 'standard');
    assert.equal(spec.persistentVolumeReclaimPolicy, 'Delete');
    assert.equal(spec.volumeMode, 'Filesystem');
    assert.deepEqual(spec.hostPath, {
      path: `/var/lib/devcluster/local-path/pvc-${uid}_${NS}_data`,
      type: 'DirectoryOrCreate',
    });
    assert.deepEqual(spec.nodeAffinity, {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
        ],
      },
    });
    const ref = spec.claimRef as Obj;
    assert.deepEqual(
      [ref.kind, ref.apiVersion, ref.namespace, ref.name, ref.uid],
      ['PersistentVolumeClaim', 'v1', NS, 'data', uid],
    );
    assert.ok(ref.resourceVersion);
    assert.equal(
      eventsOf('data', 'ProvisioningSucceeded')[0]?.message,
      `Successfully provisioned volume pvc-${uid}`,
    );
  });

  it('a second pod of that claim goes to the volume node; deleting pod and claim deletes the volume', async () => {
    const node = String(specOf(podOf('app')).nodeName);
    dev.rest.create(defOf(dev, '', 'pods'), NS, podUsing('app2', 'data'));
    await until(() => Boolean(specOf(podOf('app2')).nodeName), 'the second pod scheduled');
    assert.equal(specOf(podOf('app2')).nodeName, node);
    const pvName = String(specOf(claimOf('data')).volumeName);
    dev.rest.delete(claims(), NS, 'data');
    await dev.controllers.idle();
    assert.ok(metaOf(claimOf('data')).deletionTimestamp, 'Terminating while pods use it');
    for (const p of ['app', 'app2'])
      dev.rest.delete(defOf(dev, '', 'pods'), NS, p, { gracePeriodSeconds: 0 });
    await until(() => !claimOf('data') && !pvOf(pvName), 'claim and volume gone');
  });

  it('a pod with two WaitForFirstConsumer claims gets both provisioned on its node', async () => {
    dev.rest.create(claims(), NS, claim('logs'));
    dev.rest.create(claims(), NS, claim('cache'));
    dev.rest.create(defOf(dev, '', 'pods'), NS, podUsing('two-vols', 'logs', 'cache'));
    await until(() => phaseOf(podOf('two-vols')) === 'Running', 'the pod running');
    const node = String(specOf(podOf('two-vols')).nodeName);
    for (const c of ['logs', 'cache']) {
      const pv = pvOf(String(specOf(claimOf(c)).volumeName)) as Obj;
      assert.equal(phaseOf(claimOf(c)), 'Bound');
      assert.deepEqual((specOf(pv).nodeAffinity as Obj).required, {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
        ],
      });
    }
  });

  it('converges from a provisioned volume whose claim was not updated yet (a restart between the writes)', async () => {
    // Both written before the controllers run: the claim as the scheduler left it, and the volume made for it.
    const c = dev.rest.create(
      claims(),
      NS,
      claim('half', {}, { annotations: { 'volume.kubernetes.io/selected-node': 'node2' } }),
    );
    const uid = String(metaOf(c.obj).uid);
    dev.rest.create(pvs(), '', {
      metadata: {
        name: `pvc-${uid}`,
        annotations: { 'pv.kubernetes.io/provisioned-by': 'devcluster.kapiserver.io/local-path' },
      },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'standard',
        persistentVolumeReclaimPolicy: 'Delete',
        hostPath: { path: `/var/lib/devcluster/local-path/pvc-${uid}_${NS}_half` },
        claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: NS, name: 'half', uid },
      },
      status: { phase: 'Bound' },
    });
    await until(() => phaseOf(claimOf('half')) === 'Bound', 'bound');
    await dev.controllers.idle();
    assert.equal(specOf(claimOf('half')).volumeName, `pvc-${uid}`);
    const forIt = dev.store
      .list('/persistentvolumes')
      .filter((v) => (specOf(v.obj).claimRef as Obj | undefined)?.uid === uid);
    assert.equal(forIt.length, 1, 'no second volume');
    assert.deepEqual(eventsOf('half', 'ProvisioningSucceeded'), []);
  });

  it('an Immediate class of our provisioner provisions at once, without node affinity', async () => {
    dev.rest.create(defOf(dev, 'storage.k8s.io', 'storageclasses'), '', {
      metadata: { name: 'now' },
      provisioner: 'devcluster.kapiserver.io/local-path',
      reclaimPolicy: 'Retain',
    });
    dev.rest.create(
      claims(),
      NS,
      claim('quick', { storageClassName: 'now', accessModes: ['ReadWriteMany'] }),
    );
    await until(() => phaseOf(claimOf('quick')) === 'Bound', 'bound');
    const pv = pvOf(String(specOf(claimOf('quick')).volumeName)) as Obj;
    assert.equal(specOf(pv).nodeAffinity, undefined);
    assert.deepEqual(specOf(pv).accessModes, ['ReadWriteMany']);
    // Retain: the claim deleted, its volume stays Released.
    dev.rest.delete(claims(), NS, 'quick');
    await until(() => phaseOf(pvOf(metaOf(pv).name as string)) === 'Released', 'released');
    await dev.controllers.idle();
    assert.ok(pvOf(metaOf(pv).name as string), 'kept');
  });

  it('a claim without a provisioning class binds the smallest Available volume that fits', async () => {
    dev.rest.create(pvs(), '', volume('small', '1Gi'));
    dev.rest.create(pvs(), '', volume('big', '10Gi'));
    dev.rest.create(pvs(), '', volume('mid', '5Gi'));
    dev.rest.create(pvs(), '', volume('rox', '3Gi', { accessModes: ['ReadOnlyMany'] }));
    dev.rest.create(pvs(), '', volume('gold', '3Gi', { storageClassName: 'gold' }));
    dev.rest.create(pvs(), '', volume('labelled', '4Gi', {}, { labels: { tier: 'db' } }));
    dev.rest.create(pvs(), '', volume('block', '3Gi', { volumeMode: 'Block' }));
    await until(() => phaseOf(pvOf('mid')) === 'Available', 'volumes available');
    dev.rest.create(
      claims(),
      NS,
      claim('two', { storageClassName: '', resources: { requests: { storage: '2Gi' } } }),
    );
    await until(() => phaseOf(claimOf('two')) === 'Bound', 'bound');
    assert.equal(
      specOf(claimOf('two')).volumeName,
      'labelled',
      'the smallest of mid and labelled (no selector)',
    );
    dev.rest.create(
      claims(),
      NS,
      claim('picky', {
        storageClassName: '',
        selector: { matchLabels: { tier: 'db' } },
        resources: { requests: { storage: '2Gi' } },
      }),
    );
    dev.rest.create(
      claims(),
      NS,
      claim('none', { storageClassName: '', resources: { requests: { storage: '20Gi' } } }),
    );
    await until(
      () => phaseOf(claimOf('two')) === 'Bound' && specOf(claimOf('none')).volumeName === undefined,
      'claims synced',
    );
    await dev.controllers.idle();
    assert.equal(phaseOf(claimOf('picky')), 'Pending', 'its only match is taken');
    assert.equal(phaseOf(claimOf('none')), 'Pending');
    assert.deepEqual(
      eventsOf('none', 'FailedBinding').map((e) => e.message),
      ['no persistent volumes available for this claim and no storage class is set'],
    );
    const pv = pvOf('labelled') as Obj;
    assert.equal(phaseOf(pv), 'Bound');
    assert.equal(
      metaOf(pv).annotations && (metaOf(pv).annotations as Obj)['pv.kubernetes.io/bound-by-controller'],
      'yes',
    );
    // A manual volume's default reclaim policy is Retain: released, it becomes bindable only when its claimRef goes.
    dev.rest.delete(claims(), NS, 'two');
    await until(() => phaseOf(pvOf('labelled')) === 'Released', 'released');
  });

  it('a claim naming its volume binds it when it fits, else waits with VolumeMismatch', async () => {
    dev.rest.create(claims(), NS, claim('named', { storageClassName: '', volumeName: 'big' }));
    dev.rest.create(
      claims(),
      NS,
      claim('toobig', {
        storageClassName: '',
        volumeName: 'small',
        resources: { requests: { storage: '2Gi' } },
      }),
    );
    await until(() => phaseOf(claimOf('named')) === 'Bound', 'bound by name');
    assert.equal(
      metaOf(claimOf('named')).annotations &&
        (metaOf(claimOf('named')).annotations as Obj)['pv.kubernetes.io/bound-by-controller'],
      undefined,
    );
    await until(() => eventsOf('toobig', 'VolumeMismatch').length > 0, 'mismatch');
    assert.equal(
      eventsOf('toobig', 'VolumeMismatch')[0].message,
      'Cannot bind to requested volume "small": requested PV is too small',
    );
    assert.equal(phaseOf(claimOf('toobig')), 'Pending');
  });

  it('a bound claim whose volume is deleted is Lost', async () => {
    const pvName = String(specOf(claimOf('named')).volumeName);
    dev.rest.delete(pvs(), '', pvName);
    await dev.controllers.idle();
    assert.ok(pvOf(pvName), 'pv-protection keeps a Bound volume');
    // Remove the finalizer as an admin would; the claim then loses its volume.
    const e = dev.store.get('/persistentvolumes', '', pvName);
    dev.rest.update(pvs(), '', pvName, { ...e?.obj, metadata: { ...metaOf(e?.obj as Obj), finalizers: [] } });
    await until(() => phaseOf(claimOf('named')) === 'Lost', 'lost');
    assert.equal(
      eventsOf('named', 'ClaimLost')[0]?.message,
      'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
    );
  });

  it('a bound claim that grows gets its volume and capacity raised', async () => {
    dev.rest.create(claims(), NS, claim('grow', { storageClassName: 'now' }));
    await until(() => phaseOf(claimOf('grow')) === 'Bound', 'bound');
    const c = claimOf('grow');
    // `now` does not allow expansion; let it.
    const sc = dev.store.get('storage.k8s.io/storageclasses', '', 'now')?.obj as Obj;
    dev.rest.update(defOf(dev, 'storage.k8s.io', 'storageclasses'), '', 'now', {
      ...sc,
      allowVolumeExpansion: true,
    });
    dev.rest.update(claims(), NS, 'grow', {
      ...c,
      spec: { ...specOf(c), resources: { requests: { storage: '3Gi' } } },
    });
    await until(() => (statusOf(claimOf('grow')).capacity as Obj).storage === '3Gi', 'expanded');
    assert.deepEqual(specOf(pvOf(String(specOf(c).volumeName)) as Obj).capacity, { storage: '3Gi' });
  });

  it('the scheduler keeps a pod Pending for a missing or an unbound Immediate claim, in kube-scheduler words', async () => {
    dev.rest.create(defOf(dev, '', 'pods'), NS, podUsing('orphan', 'nowhere'));
    await until(() => podScheduled('orphan')?.status === 'False', 'unschedulable');
    assert.equal(
      podScheduled('orphan')?.message,
      '0/3 nodes are available: persistentvolumeclaim "nowhere" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
    dev.rest.create(claims(), NS, claim('waiting', { storageClassName: 'external' }));
    dev.rest.create(defOf(dev, '', 'pods'), NS, podUsing('stuck', 'waiting'));
    await until(() => podScheduled('stuck')?.status === 'False', 'unschedulable');
    assert.match(
      String(podScheduled('stuck')?.message),
      /^0\/3 nodes are available: pod has unbound immediate PersistentVolumeClaims\. preemption: /,
    );
    // The missing claim created: the pod is scheduled (and its claim provisioned).
    dev.rest.create(claims(), NS, claim('nowhere'));
    await until(() => phaseOf(podOf('orphan')) === 'Running', 'running');
    assert.equal(phaseOf(claimOf('nowhere')), 'Bound');
  });

  it('WaitForFirstConsumer with static volumes: the scheduler picks a node whose local volume fits', async () => {
    dev.rest.create(defOf(dev, 'storage.k8s.io', 'storageclasses'), '', {
      metadata: { name: 'local' },
      provisioner: 'kubernetes.io/no-provisioner',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
    const on = (node: string) => ({
      storageClassName: 'local',
      local: { path: '/mnt/disk' },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
          ],
        },
      },
    });
    dev.rest.create(pvs(), '', volume('local-3', '2Gi', on('node3')));
    dev.rest.create(claims(), NS, claim('disk', { storageClassName: 'local' }));
    dev.rest.create(defOf(dev, '', 'pods'), NS, podUsing('db', 'disk'));
    await until(() => phaseOf(podOf('db')) === 'Running', 'running');
    assert.equal(specOf(podOf('db')).nodeName, 'node3');
    assert.equal(specOf(claimOf('disk')).volumeName, 'local-3');
    // No volume left: a second claim's pod fits nowhere.
    dev.rest.create(claims(), NS, claim('disk2', { storageClassName: 'local' }));
    dev.rest.create(defOf(dev, '', 'pods'), NS, podUsing('db2', 'disk2'));
    await until(() => podScheduled('db2')?.status === 'False', 'unschedulable');
    assert.match(
      String(podScheduled('db2')?.message),
      /node\(s\) didn't find available persistent volumes to bind/,
    );
  });
});
