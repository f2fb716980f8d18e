// The job-revision controller against a real kapiserver on the dev cluster: a Job's runs are recorded in its
// `revisions` annotation as KubeSphere's controller records them (the console's Run Records), a re-created Job that
// carries the annotation (the console's Rerun) adds the next run, and an annotation that is not KubeSphere's is left.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject, KubeRest } from '../../../src/apiserver/cluster/index.ts';
import { devRest, eventually } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

let stack: TestStack;
let rest: KubeRest;
const JOBS = '/apis/batch/v1/namespaces/default/jobs';

before(async () => {
  stack = await startTestStack();
  rest = devRest(stack);
});
after(async () => {
  await stack?.close();
});

type Job = KubeObject & {
  metadata: { name: string; uid: string; creationTimestamp: string; annotations?: Record<string, string> };
  status?: { completionTime?: string };
};

function job(name: string, annotations?: Record<string, string>) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, annotations },
    spec: {
      completions: 2,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] } },
    },
  };
}

/** The job once its annotation records `status` for its current uid. */
function recorded(name: string, status: string): Promise<Job> {
  return eventually(
    async () => {
      const j = await rest.get<Job>(`${JOBS}/${name}`);
      const revisions = j.metadata.annotations?.revisions;
      if (!revisions) return undefined;
      const runs = Object.values(JSON.parse(revisions)) as { uid: string; status: string }[];
      return runs.some((r) => r.uid === j.metadata.uid && r.status === status) ? j : undefined;
    },
    30_000,
    `${name} recorded ${status}`,
  );
}

test("a Job's run is recorded in its revisions annotation, as KubeSphere's job controller writes it", async () => {
  await rest.create(JOBS, job('twice'));
  const done = await recorded('twice', 'completed');
  assert.ok(done.status?.completionTime);
  assert.equal(
    done.metadata.annotations?.revisions,
    JSON.stringify({
      1: {
        status: 'completed',
        succeed: 2,
        desire: 2,
        uid: done.metadata.uid,
        'start-time': done.metadata.creationTimestamp,
        'completion-time': done.status?.completionTime,
      },
    }),
  );

  // The console's Rerun: the Job deleted and created again with its annotations; the new uid is run 2.
  await rest.delete(`${JOBS}/twice?propagationPolicy=Background`);
  await eventually(
    async () => !(await rest.list<Job>(JOBS)).items.some((j) => j.metadata.name === 'twice'),
    30_000,
    'the job gone',
  );
  await rest.create(JOBS, job('twice', { revisions: done.metadata.annotations?.revisions ?? '' }));
  const again = await recorded('twice', 'completed');
  const runs = JSON.parse(again.metadata.annotations?.revisions ?? '{}');
  assert.deepEqual(Object.keys(runs), ['1', '2']);
  assert.equal(runs[1].uid, done.metadata.uid);
  assert.equal(runs[2].uid, again.metadata.uid);
});

test('a revisions annotation that is not JSON is left as it is', async () => {
  await rest.create(JOBS, job('foreign', { revisions: 'not json' }));
  await eventually(
    async () =>
      (await rest.get<Job & { status?: { succeeded?: number } }>(`${JOBS}/foreign`)).status?.succeeded === 2,
    30_000,
    'the job to finish',
  );
  await rest.create(JOBS, job('witness'));
  await recorded('witness', 'completed'); // the controller has seen the later job, so the earlier one too
  const foreign = await rest.get<Job>(`${JOBS}/foreign`);
  assert.equal(foreign.metadata.annotations?.revisions, 'not json');
});
