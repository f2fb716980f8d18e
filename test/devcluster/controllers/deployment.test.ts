// Deployment and ReplicaSet controllers over a real dev cluster: ReplicaSets named by pod-template-hash with
// revisions, pods with controller ownerReferences, rolling updates within maxSurge/maxUnavailable, Recreate,
// revisionHistoryLimit, pause, rollback to an old template, and the status kubectl's rollout status reads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { podTemplateHash } from '../../../src/devcluster/controllers/template-hash.ts';
import type { Entry, Obj } from '../../../src/devcluster/store.ts';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import {
  createNamespace,
  defOf,
  deploymentBody,
  metaOf,
  ownedBy,
  readyKubelet,
  specOf,
  statusOf,
  until,
} from '../../helpers/workloads.ts';

let dev: TestDevCluster;
const NS = 'deploy';
const deployments = () => defOf(dev, 'apps', 'deployments');
const get = (name: string) => {
  const e = dev.store.get('apps/deployments', NS, name);
  assert.ok(e, `deployment ${name}`);
  return e;
};
const replicaSets = (name: string) => ownedBy(dev, 'apps/replicasets', NS, get(name));
const activePods = (rs: Entry) =>
  ownedBy(dev, '/pods', NS, rs).filter((p) => !metaOf(p.obj).deletionTimestamp);
const condition = (o: Obj, type: string) =>
  ((statusOf(o).conditions as Obj[] | undefined) ?? []).find((c) => c.type === type);
const revision = (o: Obj) =>
  (metaOf(o).annotations as Obj | undefined)?.['deployment.kubernetes.io/revision'];
const settled = (name: string) => {
  const d = get(name).obj;
  const st = statusOf(d);
  return (
    st.observedGeneration === metaOf(d).generation &&
    st.updatedReplicas === specOf(d).replicas &&
    st.availableReplicas === specOf(d).replicas &&
    st.replicas === specOf(d).replicas &&
    condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable'
  );
};
const setTemplateImage = (name: string, image: string) => {
  const d = structuredClone(get(name).obj);
  ((specOf(d).template as Obj).spec as { containers: Obj[] }).containers[0].image = image;
  dev.rest.update(deployments(), NS, name, d);
};

describe('Deployment and ReplicaSet controllers', { timeout: 120_000 }, () => {
  let kubelet: { stop(): void };
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
    createNamespace(dev, NS);
    kubelet = readyKubelet(dev, NS);
  });
  after(async () => {
    kubelet?.stop();
    await dev?.close();
  });

  it('creates a ReplicaSet named by pod-template-hash and its pods, and reports a complete rollout', async () => {
    const created = await devRequest(
      dev,
      'POST',
      `/apis/apps/v1/namespaces/${NS}/deployments`,
      deploymentBody('web', 3),
    );
    assert.equal(created.status, 201);
    await until(() => settled('web'), 'web to roll out');
    const [rs, ...more] = replicaSets('web');
    assert.equal(more.length, 0);
    const hash = (metaOf(rs.obj).labels as Obj)['pod-template-hash'];
    assert.match(String(hash), /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    assert.equal(rs.name, `web-${hash}`);
    assert.equal(revision(rs.obj), '1');
    assert.equal(revision(get('web').obj), '1');
    assert.deepEqual((specOf(rs.obj).selector as Obj).matchLabels, { app: 'web', 'pod-template-hash': hash });
    const pods = activePods(rs);
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.ok(p.name.startsWith(`${rs.name}-`));
      assert.equal(metaOf(p.obj).generateName, `${rs.name}-`);
      const [ref] = metaOf(p.obj).ownerReferences as Obj[];
      assert.deepEqual(
        { kind: ref.kind, name: ref.name, uid: ref.uid, controller: ref.controller },
        { kind: 'ReplicaSet', name: rs.name, uid: metaOf(rs.obj).uid, controller: true },
      );
      assert.equal((metaOf(p.obj).labels as Obj)['pod-template-hash'], hash);
    }
    const st = statusOf(rs.obj);
    const fresh = dev.store.get('apps/replicasets', NS, rs.name)?.obj as Obj;
    assert.deepEqual(
      ['replicas', 'readyReplicas', 'availableReplicas', 'fullyLabeledReplicas'].map(
        (f) => statusOf(fresh)[f],
      ),
      [3, 3, 3, 3],
      JSON.stringify(st),
    );
    assert.equal(condition(get('web').obj, 'Available')?.status, 'True');
  });

  it('replaces a deleted pod and scales down not-ready pods first', async () => {
    const [rs] = replicaSets('web');
    const [victim] = activePods(rs);
    dev.rest.delete(defOf(dev, '', 'pods'), NS, victim.name);
    await until(
      () => activePods(rs).length === 3 && !activePods(rs).some((p) => p.name === victim.name),
      'a replacement pod',
    );
    await until(() => settled('web'), 'web to settle');
    dev.rest.patch(deployments(), NS, 'web', 'merge', { spec: { replicas: 1 } });
    await until(() => settled('web') && activePods(rs).length === 1, 'scale to 1');
    dev.rest.patch(deployments(), NS, 'web', 'merge', { spec: { replicas: 3 } });
    await until(() => settled('web'), 'scale back to 3');
  });

  it('rolls out a new template within maxSurge and maxUnavailable, then keeps history for rollback', async () => {
    let maxPods = 0;
    let minReady = Number.POSITIVE_INFINITY;
    const unsubscribe = dev.store.subscribe((ev) => {
      if (ev.res !== '/pods' && ev.res !== 'apps/replicasets') return;
      const all = replicaSets('web');
      const total = all.reduce((n, rs) => n + activePods(rs).length, 0);
      maxPods = Math.max(maxPods, total);
      const ready = all.reduce(
        (n, rs) =>
          n +
          activePods(rs).filter(
            (p) => (statusOf(p.obj).conditions as Obj[] | undefined)?.[0]?.status === 'True',
          ).length,
        0,
      );
      minReady = Math.min(minReady, ready);
    });
    dev.rest.patch(deployments(), NS, 'web', 'merge', {
      spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
    });
    setTemplateImage('web', 'nginx:1.26');
    await until(() => settled('web') && replicaSets('web').length === 2, 'the rolling update');
    unsubscribe();
    assert.ok(maxPods <= 4, `never more than replicas + maxSurge pods (saw ${maxPods})`);
    assert.ok(minReady >= 3, `never fewer than replicas - maxUnavailable ready pods (saw ${minReady})`);
    const sets = replicaSets('web');
    const next = sets.find((rs) => revision(rs.obj) === '2') as Entry;
    const prev = sets.find((rs) => revision(rs.obj) === '1') as Entry;
    assert.ok(next && prev, 'revisions 1 and 2');
    assert.equal(specOf(prev.obj).replicas, 0);
    assert.equal(activePods(prev).length, 0);
    assert.equal(activePods(next).length, 3);
    assert.equal(revision(get('web').obj), '2');

    // kubectl rollout undo copies revision 1's template back: that ReplicaSet becomes revision 3.
    setTemplateImage('web', 'nginx:1.25');
    await until(() => settled('web') && revision(get('web').obj) === '3', 'the rollback');
    const back = dev.store.get('apps/replicasets', NS, prev.name)?.obj as Obj;
    assert.equal(revision(back), '3');
    assert.equal((metaOf(back).annotations as Obj)['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(replicaSets('web').length, 2, 'no third ReplicaSet for an old template');
  });

  it('Recreate removes every old pod before the new ReplicaSet scales up; revisionHistoryLimit prunes', async () => {
    dev.rest.create(
      deployments(),
      NS,
      deploymentBody('rec', 2, 'busybox:1', { strategy: { type: 'Recreate' }, revisionHistoryLimit: 1 }),
    );
    await until(() => settled('rec'), 'rec to roll out');
    let overlap = false;
    const unsubscribe = dev.store.subscribe((ev) => {
      if (ev.res !== '/pods') return;
      const withPods = replicaSets('rec').filter((rs) => activePods(rs).length > 0);
      if (withPods.length > 1) overlap = true;
    });
    for (const image of ['busybox:2', 'busybox:3']) {
      setTemplateImage('rec', image);
      await until(() => settled('rec') && revision(get('rec').obj) !== undefined, `rec on ${image}`);
    }
    unsubscribe();
    assert.equal(overlap, false, 'old and new pods never run together');
    await until(() => replicaSets('rec').length === 2, 'history pruned to one old ReplicaSet');
    assert.deepEqual(
      replicaSets('rec')
        .map((rs) => revision(rs.obj))
        .sort(),
      ['2', '3'],
    );
  });

  it('a paused Deployment creates no ReplicaSet for a new template, still scales, and resumes', async () => {
    dev.rest.patch(deployments(), NS, 'web', 'merge', { spec: { paused: true } });
    setTemplateImage('web', 'nginx:paused');
    dev.rest.patch(deployments(), NS, 'web', 'merge', { spec: { replicas: 2 } });
    await until(
      () =>
        condition(get('web').obj, 'Progressing')?.reason === 'DeploymentPaused' &&
        statusOf(get('web').obj).availableReplicas === 2,
      'paused and scaled',
    );
    assert.equal(replicaSets('web').length, 2);
    dev.rest.patch(deployments(), NS, 'web', 'merge', { spec: { paused: false } });
    await until(() => settled('web') && replicaSets('web').length === 3, 'resumed rollout');
  });

  it('a Deployment created again adopts the ReplicaSet and pods an orphaning delete left', async () => {
    dev.rest.create(deployments(), NS, deploymentBody('adopt', 2));
    await until(() => settled('adopt'), 'adopt to roll out');
    const [rs] = replicaSets('adopt');
    const pods = activePods(rs)
      .map((p) => p.name)
      .sort();
    dev.rest.delete(deployments(), NS, 'adopt', { propagationPolicy: 'Orphan' });
    await until(() => !dev.store.get('apps/deployments', NS, 'adopt'), 'the orphaning delete');
    assert.equal(
      metaOf((dev.store.get('apps/replicasets', NS, rs.name) as Entry).obj).ownerReferences,
      undefined,
    );
    dev.rest.create(deployments(), NS, deploymentBody('adopt', 2));
    await until(() => settled('adopt') && replicaSets('adopt').length === 1, 'the ReplicaSet adopted');
    assert.equal(replicaSets('adopt')[0].name, rs.name);
    assert.deepEqual(
      activePods(replicaSets('adopt')[0])
        .map((p) => p.name)
        .sort(),
      pods,
      'the same pods',
    );
  });

  it('a pod-template-hash collision bumps status.collisionCount and names the ReplicaSet by the next hash', async () => {
    dev.rest.create(deployments(), NS, deploymentBody('coll', 1, 'nginx', { paused: true }));
    const hash = podTemplateHash(specOf(get('coll').obj).template, 0);
    dev.rest.create(defOf(dev, 'apps', 'replicasets'), NS, {
      ...deploymentBody(`coll-${hash}`, 0, 'other'),
      metadata: { name: `coll-${hash}`, labels: { app: 'someone-else' } },
    });
    dev.rest.patch(deployments(), NS, 'coll', 'merge', { spec: { paused: false } });
    await until(() => settled('coll'), 'coll to roll out despite the collision');
    assert.equal(statusOf(get('coll').obj).collisionCount, 1);
    const [rs] = replicaSets('coll');
    assert.equal(rs.name, `coll-${podTemplateHash(specOf(get('coll').obj).template, 1)}`);
  });

  it('a selector that does not match the template labels is a 422 Status, and nothing is created', async () => {
    const body = deploymentBody('mismatch', 1);
    (body.spec as Obj).selector = { matchLabels: { app: 'other' } };
    const r = await devRequest(dev, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, body);
    assert.equal(r.status, 422, r.text);
    assert.equal((r.body as Obj).kind, 'Status');
    assert.equal(
      (((r.body as Obj).details as Obj).causes as Obj[])[0].field,
      'spec.template.metadata.labels',
    );
    assert.equal(dev.store.get('apps/deployments', NS, 'mismatch'), undefined);
  });

  it('reports ProgressDeadlineExceeded when pods never become available', async () => {
    kubelet.stop();
    dev.rest.create(deployments(), NS, deploymentBody('stuck', 1, 'nginx', { progressDeadlineSeconds: 1 }));
    await until(
      () => condition(get('stuck').obj, 'Progressing')?.reason === 'ProgressDeadlineExceeded',
      'the progress deadline',
    );
    const c = condition(get('stuck').obj, 'Progressing') as Obj;
    assert.equal(c.status, 'False');
    assert.match(String(c.message), /^ReplicaSet "stuck-\w+" has timed out progressing\.$/);
    assert.equal(condition(get('stuck').obj, 'Available')?.status, 'False');
    kubelet = readyKubelet(dev, NS);
    await until(() => settled('stuck'), 'stuck to complete once its pod is ready');
  });
});
