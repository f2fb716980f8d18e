// PersistentVolumeClaim updates as kube-apiserver v1.33 validates and admits them, and the StorageClasses they
// depend on: with the real kubectl, a resize of an unbound claim is refused with kube's 422, a bound claim grows only
// when its class allows expansion (kube's 403 otherwise) and `kubectl get sc` shows kubectl's columns; in-process,
// the fields a claim may still change (volumeName once, a missing class, a bound claim's request down to its
// capacity) and what a StorageClass may not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Obj } from '../../../src/devcluster/store.ts';
import { StatusError } from '../../../src/k8s/status.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../../helpers/kubectl.ts';
import { createNamespace, defOf } from '../../helpers/workloads.ts';

const NS = 'claims';
const IMMUTABLE =
  'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

const claim = (name: string, spec: Obj = {}, metadata: Obj = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, ...metadata },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const storageClass = (name: string, extra: Obj = {}) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner: 'example.com/disk',
  ...extra,
});

describe('claim updates and storage classes as kube-apiserver handles them', { timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  const claims = () => defOf(dev, '', 'persistentvolumeclaims');
  const classes = () => defOf(dev, 'storage.k8s.io', 'storageclasses');
  const get = (name: string) => dev.rest.get(claims(), NS, name).obj;
  /** Binds the claim to a new volume of `capacity` as the PV controller does (both sides, at once). */
  const bind = (name: string, capacity: string) => {
    const c = get(name);
    const meta = c.metadata as Obj;
    dev.rest.create(defOf(dev, '', 'persistentvolumes'), '', {
      metadata: { name: `pv-${name}` },
      spec: {
        capacity: { storage: capacity },
        accessModes: ['ReadWriteOnce'],
        storageClassName: (c.spec as Obj).storageClassName,
        hostPath: { path: `/data/${name}` },
        claimRef: { kind: 'PersistentVolumeClaim', namespace: NS, name, uid: meta.uid },
      },
      status: { phase: 'Bound' },
    });
    const annotations = { ...(meta.annotations as Obj), 'pv.kubernetes.io/bind-completed': 'yes' };
    dev.rest.update(claims(), NS, name, {
      ...c,
      metadata: { ...meta, annotations },
      spec: { ...(c.spec as Obj), volumeName: `pv-${name}` },
    });
    dev.rest.update(
      claims(),
      NS,
      name,
      { ...get(name), status: { phase: 'Bound', capacity: { storage: capacity } } },
      {},
      'status',
    );
  };
  /** Writes the stored claim after `change`; the refusal's code and message, or undefined when it was stored. */
  const update = (name: string, change: (o: Obj) => void): string | undefined => {
    const next = structuredClone(get(name));
    change(next);
    try {
      dev.rest.update(claims(), NS, name, next);
      return undefined;
    } catch (err) {
      assert.ok(err instanceof StatusError, String(err));
      return `${err.code} ${err.message}`;
    }
  };
  const setStorage = (size: string) => (o: Obj) => {
    ((o.spec as Obj).resources as Obj).requests = { storage: size };
  };

  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
    createNamespace(dev, NS);
  });
  after(async () => {
    await dev?.close();
  });

  describe('with kubectl', { skip: !hasKubectl && NO_KUBECTL }, () => {
    let kubectl: Kubectl;
    const k = (input: string | undefined, ...args: string[]) => kubectl.run([...args, '-n', NS], input);
    const resize = (name: string, size: string) =>
      k(
        undefined,
        'patch',
        'pvc',
        name,
        '-p',
        JSON.stringify({ spec: { resources: { requests: { storage: size } } } }),
      );

    before(() => {
      kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
    });

    it('kubectl patch of an unbound claim is refused with kube message', async () => {
      assert.equal((await k(JSON.stringify(claim('pending')), 'create', '-f', '-')).status, 0);
      const grown = await resize('pending', '2Gi');
      assert.notEqual(grown.status, 0);
      assert.ok(
        grown.stderr.includes(`The PersistentVolumeClaim "pending" is invalid: ${IMMUTABLE}\n`),
        grown.stderr,
      );
      assert.match(
        grown.stderr,
        /^- \tresources\.requests\.storage: "1Gi",\n\+ \tresources\.requests\.storage: "2Gi",$/m,
      );
    });

    it('a bound claim grows only when its StorageClass allows expansion; kubectl get sc', async () => {
      for (const sc of [
        storageClass('fixed', {
          metadata: { name: 'fixed', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        }),
        storageClass('elastic', { allowVolumeExpansion: true, volumeBindingMode: 'WaitForFirstConsumer' }),
      ])
        assert.equal((await k(JSON.stringify(sc), 'create', '-f', '-')).status, 0);
      const table = await k(undefined, 'get', 'sc');
      assert.match(
        table.stdout,
        /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\s*$/m,
      );
      assert.match(table.stdout, /^elastic\s+example\.com\/disk\s+Delete\s+WaitForFirstConsumer\s+true\s+/m);
      assert.match(table.stdout, /^fixed \(default\)\s+example\.com\/disk\s+Delete\s+Immediate\s+false\s+/m);
      for (const name of ['fixed', 'elastic']) {
        assert.equal(
          (await k(JSON.stringify(claim(`on-${name}`, { storageClassName: name })), 'create', '-f', '-'))
            .status,
          0,
        );
        bind(`on-${name}`, '1Gi');
      }
      const refused = await resize('on-fixed', '2Gi');
      assert.ok(
        refused.stderr.includes(
          'persistentvolumeclaims "on-fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
        ),
        refused.stderr,
      );
      const grown = await resize('on-elastic', '2Gi');
      assert.equal(grown.status, 0, grown.stderr);
      assert.equal((((get('on-elastic').spec as Obj).resources as Obj).requests as Obj).storage, '2Gi');
    });
  });

  it("a bound claim's request: up with expansion, back down to above its capacity, never below it", () => {
    dev.rest.create(classes(), '', storageClass('grow', { allowVolumeExpansion: true }));
    dev.rest.create(claims(), NS, claim('sized', { storageClassName: 'grow' }));
    bind('sized', '1Gi');
    assert.equal(update('sized', setStorage('3Gi')), undefined);
    assert.equal(update('sized', setStorage('2Gi')), undefined, 'recovering from a failed expansion');
    assert.equal(
      update('sized', setStorage('1Gi')),
      '422 PersistentVolumeClaim "sized" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    );
    const other = update('sized', (o) => {
      (o.spec as Obj).accessModes = ['ReadWriteMany'];
    });
    assert.match(String(other), new RegExp(`^422 PersistentVolumeClaim "sized" is invalid: ${IMMUTABLE}\\n`));
  });

  it('volumeName is set once; a claim without a class may get one; volumeMode never changes', () => {
    // Without a default class (the fresh cluster's `standard` and the ones above deleted), a new claim keeps none.
    for (const c of dev.store.list('storage.k8s.io/storageclasses')) dev.rest.delete(classes(), '', c.name);
    dev.rest.create(claims(), NS, claim('open'));
    assert.equal((get('open').spec as Obj).storageClassName, undefined);
    const set = (field: string, value: unknown) =>
      update('open', (o) => {
        (o.spec as Obj)[field] = value;
      });
    assert.equal(set('volumeName', 'pv-1'), undefined);
    assert.match(String(set('volumeName', 'pv-2')), /^- \tvolumeName: "pv-1",\n\+ \tvolumeName: "pv-2",$/m);
    assert.equal(set('storageClassName', 'late-default'), undefined);
    assert.match(
      String(set('storageClassName', 'other')),
      /spec: Forbidden: spec is immutable after creation/,
    );
    assert.match(
      String(set('volumeMode', 'Block')),
      /, volumeMode: Invalid value: "Block": field is immutable\]$/,
    );
    // The beta annotation is immutable, but names the class a claim may then set in its spec.
    dev.rest.create(
      claims(),
      NS,
      claim('annotated', {}, { annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } }),
    );
    assert.match(
      String(
        update('annotated', (o) => {
          ((o.metadata as Obj).annotations as Obj)['volume.beta.kubernetes.io/storage-class'] = 'silver';
        }),
      ),
      /metadata\.annotations\.volume\.beta\.kubernetes\.io\/storage-class: Invalid value: "silver": field is immutable/,
    );
    assert.equal(
      update('annotated', (o) => {
        (o.spec as Obj).storageClassName = 'gold';
      }),
      undefined,
    );
  });

  it('volumeAttributesClassName is dropped, as with its 1.33 feature gate off', () => {
    const created = dev.rest.create(claims(), NS, claim('attributed', { volumeAttributesClassName: 'fast' }));
    assert.equal((created.obj.spec as Obj).volumeAttributesClassName, undefined);
    assert.equal(
      update('attributed', (o) => {
        (o.spec as Obj).volumeAttributesClassName = 'fast';
      }),
      undefined,
    );
    assert.equal((get('attributed').spec as Obj).volumeAttributesClassName, undefined);
  });

  it("a StorageClass: kube's defaults and required provisioner; only allowVolumeExpansion and metadata change", () => {
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        assert.ok(err instanceof StatusError && err.code === 422, String(err));
        return err.message;
      }
      assert.fail('expected a 422');
    };
    assert.equal(
      refusal(() => dev.rest.create(classes(), '', { metadata: { name: 'bare' }, reclaimPolicy: 'Recycle' })),
      'StorageClass.storage.k8s.io "bare" is invalid: [provisioner: Required value, reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"]',
    );
    const sc = dev.rest.create(classes(), '', storageClass('plain', { parameters: { type: 'ssd' } })).obj;
    assert.deepEqual([sc.reclaimPolicy, sc.volumeBindingMode], ['Delete', 'Immediate']);
    const changed = (extra: Obj) => ({ ...dev.rest.get(classes(), '', 'plain').obj, ...extra });
    dev.rest.update(classes(), '', 'plain', changed({ allowVolumeExpansion: true }));
    assert.equal(
      refusal(() =>
        dev.rest.update(
          classes(),
          '',
          'plain',
          changed({
            provisioner: 'other',
            parameters: {},
            reclaimPolicy: 'Retain',
            volumeBindingMode: 'WaitForFirstConsumer',
          }),
        ),
      ),
      'StorageClass.storage.k8s.io "plain" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden., reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden., volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable]',
    );
  });
});
