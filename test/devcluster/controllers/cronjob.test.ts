// CronJob controller on a dev cluster whose controllers read a clock the test moves: Jobs at scheduled times,
// suspend, Forbid and Replace, history limits, status; an invalid schedule is a 422 at create.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Entry, Obj } from '../../../src/devcluster/store.ts';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { createNamespace, defOf, metaOf, ownedBy, statusOf, until } from '../../helpers/workloads.ts';

let dev: TestDevCluster;
let clock = Date.now();
const NS = 'cron';
const cron = (name: string) => dev.store.get('batch/cronjobs', NS, name) as Entry;
const jobsOf = (name: string) =>
  ownedBy(dev, 'batch/jobs', NS, cron(name))
    .map((j) => j.name)
    .sort();
/** Moves the clock to the next 5-minute boundary (plus a second) and lets the controllers look. */
async function nextFiveMinutes(): Promise<number> {
  clock = (Math.floor(clock / 300_000) + 1) * 300_000 + 1000;
  dev.controllers.resync();
  await dev.controllers.idle();
  return Math.floor((clock - 1000) / 60_000);
}
const createCron = (name: string, spec: Obj) =>
  dev.rest.create(defOf(dev, 'batch', 'cronjobs'), NS, {
    metadata: { name },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } } },
      ...spec,
    },
  });
const complete = (jobName: string) => {
  const j = dev.store.get('batch/jobs', NS, jobName) as Entry;
  dev.rest.update(
    defOf(dev, 'batch', 'jobs'),
    NS,
    jobName,
    {
      ...j.obj,
      status: {
        ...statusOf(j.obj),
        completionTime: new Date(clock).toISOString().replace(/\.\d+Z$/, 'Z'),
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    },
    {},
    'status',
  );
};

describe('CronJob controller', { timeout: 60_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false, now: () => clock });
    createNamespace(dev, NS);
  });
  after(async () => {
    await dev?.close();
  });

  it('an invalid schedule or time zone is a 422 naming the field', async () => {
    const body = (schedule: string, timeZone?: string) => ({
      metadata: { name: 'bad' },
      spec: {
        schedule,
        ...(timeZone ? { timeZone } : {}),
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'm', image: 'x' }] } } } },
      },
    });
    const path = `/apis/batch/v1/namespaces/${NS}/cronjobs`;
    for (const [schedule, tz, field] of [
      ['every minute', undefined, 'spec.schedule'],
      ['0 * * *', undefined, 'spec.schedule'],
      ['0 * * * *', 'Nowhere/Land', 'spec.timeZone'],
    ] as const) {
      const r = await devRequest(dev, 'POST', path, body(schedule, tz));
      assert.equal(r.status, 422, r.text);
      const causes = ((r.body as Obj).details as { causes: Obj[] }).causes;
      assert.equal(causes[0].field, field);
    }
  });

  it('creates a Job per scheduled time, named by its minute, and records lastScheduleTime', async () => {
    createCron('tick', { concurrencyPolicy: 'Allow', successfulJobsHistoryLimit: 1 });
    await dev.controllers.idle();
    assert.deepEqual(jobsOf('tick'), [], 'nothing before the first scheduled time');
    const m1 = await nextFiveMinutes();
    await until(() => jobsOf('tick').length === 1, 'the first job');
    assert.deepEqual(jobsOf('tick'), [`tick-${m1}`]);
    const job = dev.store.get('batch/jobs', NS, `tick-${m1}`) as Entry;
    assert.equal(
      (metaOf(job.obj).annotations as Obj)['batch.kubernetes.io/cronjob-scheduled-timestamp'],
      new Date(m1 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    );
    assert.equal(
      statusOf(cron('tick').obj).lastScheduleTime,
      new Date(m1 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    );
    assert.equal((statusOf(cron('tick').obj).active as Obj[])[0].name, `tick-${m1}`);
    complete(`tick-${m1}`);
    const m2 = await nextFiveMinutes();
    await until(() => jobsOf('tick').includes(`tick-${m2}`), 'the second job');
    complete(`tick-${m2}`);
    await until(() => jobsOf('tick').join() === `tick-${m2}`, 'history pruned to one successful job');
    await until(
      () =>
        statusOf(cron('tick').obj).lastSuccessfulTime !== undefined &&
        statusOf(cron('tick').obj).active === undefined,
      'status',
    );
  });

  it('suspend starts nothing; Forbid skips while a Job runs; Replace replaces it', async () => {
    createCron('paused', { suspend: true });
    createCron('forbid', { concurrencyPolicy: 'Forbid' });
    createCron('replace', { concurrencyPolicy: 'Replace' });
    const m1 = await nextFiveMinutes();
    await until(() => jobsOf('forbid').length === 1 && jobsOf('replace').length === 1, 'first runs');
    assert.deepEqual(jobsOf('paused'), []);
    const m2 = await nextFiveMinutes();
    await until(() => jobsOf('replace').join() === `replace-${m2}`, 'the running job replaced');
    assert.deepEqual(jobsOf('forbid'), [`forbid-${m1}`], 'Forbid waits for the running job');
  });
});
