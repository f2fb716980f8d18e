// Job controller over a real dev cluster: parallelism and completions, the generated selector, Complete with
// completionTime, Failed past backoffLimit or activeDeadlineSeconds; the test plays the kubelet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Entry, Obj } from '../../../src/devcluster/store.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import {
  createNamespace,
  defOf,
  metaOf,
  ownedBy,
  setPodPhase,
  statusOf,
  until,
} from '../../helpers/workloads.ts';

let dev: TestDevCluster;
const NS = 'jobs';
const job = (name: string) => dev.store.get('batch/jobs', NS, name) as Entry;
const podsOf = (name: string) => ownedBy(dev, '/pods', NS, job(name));
const running = (name: string) => podsOf(name).filter((p) => statusOf(p.obj).phase === 'Pending');
const condition = (name: string, type: string) =>
  ((statusOf(job(name).obj).conditions as Obj[] | undefined) ?? []).find((c) => c.type === type);
const createJob = (name: string, spec: Obj) =>
  dev.rest.create(defOf(dev, 'batch', 'jobs'), NS, {
    metadata: { name },
    spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox' }] } }, ...spec },
  });

describe('Job controller', { timeout: 60_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
    createNamespace(dev, NS);
  });
  after(async () => {
    await dev?.close();
  });

  it('runs parallelism pods at a time until completions succeeded, then is Complete', async () => {
    createJob('pi', { completions: 3, parallelism: 2 });
    const labels = (metaOf(job('pi').obj).uid as string) && ((job('pi').obj.spec as Obj).selector as Obj);
    assert.deepEqual(labels, {
      matchLabels: { 'batch.kubernetes.io/controller-uid': metaOf(job('pi').obj).uid },
    });
    let maxActive = 0;
    for (let done = 0; done < 3; ) {
      await until(
        () => running('pi').length === Math.min(2, 3 - done),
        `${Math.min(2, 3 - done)} active pods`,
      );
      maxActive = Math.max(maxActive, running('pi').length);
      const [p] = running('pi');
      assert.equal((metaOf(p.obj).labels as Obj)['job-name'], 'pi');
      setPodPhase(dev, p, 'Succeeded');
      done++;
    }
    await until(() => condition('pi', 'Complete')?.status === 'True', 'Complete');
    const st = statusOf(job('pi').obj);
    assert.equal(maxActive, 2);
    assert.equal(st.succeeded, 3);
    assert.equal(st.active, undefined);
    assert.ok(st.completionTime && st.startTime);
    assert.equal(podsOf('pi').length, 3, 'no pod beyond completions');
  });

  it('fails past backoffLimit and removes its running pods', async () => {
    createJob('flaky', { backoffLimit: 1, parallelism: 2, completions: 5 });
    for (let i = 0; i < 2; i++) {
      await until(() => running('flaky').length > 0, 'a pod to fail');
      setPodPhase(dev, running('flaky')[0], 'Failed');
    }
    await until(
      () => condition('flaky', 'Failed')?.reason === 'BackoffLimitExceeded',
      'BackoffLimitExceeded',
    );
    await until(() => running('flaky').length === 0, 'active pods removed');
    assert.equal(statusOf(job('flaky').obj).failed, 2);
  });

  it('fails once activeDeadlineSeconds pass', async () => {
    createJob('slow', { activeDeadlineSeconds: 1 });
    await until(() => condition('slow', 'Failed')?.reason === 'DeadlineExceeded', 'DeadlineExceeded');
    assert.equal(running('slow').length, 0);
  });
});
