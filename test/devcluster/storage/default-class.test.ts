// The dev cluster's default StorageClass and the admission steps of a new claim or volume, as kube-apiserver's:
// a fresh data directory has kind's `standard` class (and keeps it deleted once deleted), a claim naming no class
// gets the newest default (one naming "" keeps none), per-class quota charges the defaulted class, and claims and
// volumes get their protection finalizers; a claim deleted under a running pod stays Terminating until the pod goes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Obj } from '../../../src/devcluster/store.ts';
import { StatusError } from '../../../src/k8s/status.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { createNamespace, defOf, metaOf, specOf, until } from '../../helpers/workloads.ts';

const NS = 'vols';
const claim = (name: string, spec: Obj = {}): Obj => ({
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

describe('default StorageClass and claim admission', { timeout: 60_000 }, () => {
  let dev: TestDevCluster;
  const claims = () => defOf(dev, '', 'persistentvolumeclaims');
  const classes = () => defOf(dev, 'storage.k8s.io', 'storageclasses');
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
    createNamespace(dev, NS);
  });
  after(async () => {
    await dev?.close();
  });

  it('a fresh cluster has the default class `standard`, with our own provisioner', () => {
    const sc = dev.store.get('storage.k8s.io/storageclasses', '', 'standard')?.obj as Obj;
    assert.deepEqual(metaOf(sc).annotations, { 'storageclass.kubernetes.io/is-default-class': 'true' });
    assert.equal(sc.provisioner, 'devcluster.kapiserver.io/local-path');
    assert.equal(sc.reclaimPolicy, 'Delete');
    assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
    assert.equal(sc.allowVolumeExpansion, true);
  });

  it('a claim naming no class gets the newest default; "" and a named class are kept', async () => {
    const none = dev.rest.create(claims(), NS, claim('plain'));
    assert.equal(specOf(none.obj).storageClassName, 'standard');
    assert.deepEqual(metaOf(none.obj).finalizers, ['kubernetes.io/pvc-protection']);
    const empty = dev.rest.create(claims(), NS, claim('static', { storageClassName: '' }));
    assert.equal(specOf(empty.obj).storageClassName, '');
    // A second default, created a second later (creationTimestamp has whole seconds), is the newer one.
    await new Promise((r) => setTimeout(r, 1100));
    dev.rest.create(classes(), '', {
      metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'devcluster.kapiserver.io/local-path',
    });
    assert.equal(specOf(dev.rest.create(claims(), NS, claim('newer')).obj).storageClassName, 'fast');
    dev.rest.delete(classes(), '', 'fast');
    assert.equal(specOf(dev.rest.create(claims(), NS, claim('again')).obj).storageClassName, 'standard');
  });

  it('per-class quota charges the defaulted class', () => {
    createNamespace(dev, 'quota');
    dev.rest.create(defOf(dev, '', 'resourcequotas'), 'quota', {
      metadata: { name: 'q' },
      spec: { hard: { 'standard.storageclass.storage.k8s.io/requests.storage': '1Gi' } },
    });
    dev.rest.create(claims(), 'quota', claim('one'));
    assert.throws(
      () => dev.rest.create(claims(), 'quota', claim('two')),
      (err: unknown) =>
        err instanceof StatusError &&
        err.code === 403 &&
        /exceeded quota: q, requested: standard\.storageclass\.storage\.k8s\.io\/requests\.storage=1Gi/.test(
          err.message,
        ),
    );
  });

  it('a volume gets the pv-protection finalizer; deleted while not Bound, it goes', async () => {
    const pvs = defOf(dev, '', 'persistentvolumes');
    const pv = dev.rest.create(pvs, '', {
      metadata: { name: 'loose' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/tmp/loose' },
      },
    });
    assert.deepEqual(metaOf(pv.obj).finalizers, ['kubernetes.io/pv-protection']);
    dev.rest.delete(pvs, '', 'loose');
    await until(() => !dev.store.get('/persistentvolumes', '', 'loose'), 'the volume removed');
  });

  it('a claim used by a scheduled pod stays Terminating until the pod is gone', async () => {
    dev.rest.create(claims(), NS, claim('used', { storageClassName: '' }));
    const pods = defOf(dev, '', 'pods');
    dev.rest.create(pods, NS, {
      metadata: { name: 'user' },
      spec: {
        nodeName: 'somewhere',
        containers: [{ name: 'c', image: 'busybox' }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'used' } }],
      },
    });
    dev.rest.delete(claims(), NS, 'used');
    await dev.controllers.idle();
    const left = dev.store.get('/persistentvolumeclaims', NS, 'used')?.obj as Obj;
    assert.ok(metaOf(left).deletionTimestamp, 'Terminating');
    assert.deepEqual(metaOf(left).finalizers, ['kubernetes.io/pvc-protection']);
    dev.rest.delete(pods, NS, 'user', { gracePeriodSeconds: 0 });
    await until(() => !dev.store.get('/persistentvolumeclaims', NS, 'used'), 'the claim removed');
  });
});

describe('the default class on a data directory', { timeout: 60_000 }, () => {
  it('is created once: deleted, it stays deleted after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'devcluster-sc-'));
    try {
      let dev = await startTestDevCluster({ dataDir, seedDemoData: false });
      dev.rest.delete(defOf(dev, 'storage.k8s.io', 'storageclasses'), '', 'standard');
      await dev.close();
      dev = await startTestDevCluster({ dataDir, seedDemoData: false });
      assert.equal(dev.store.get('storage.k8s.io/storageclasses', '', 'standard'), undefined);
      await dev.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
