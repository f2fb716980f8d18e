// kube-scheduler's adaptive percentageOfNodesToScore: how many feasible nodes a search looks for before it picks.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { feasibleNodesToFind } from '../../../src/devcluster/simulation/scheduler.ts';

it('looks at every node of a small cluster and at an adaptive share of a large one', () => {
  assert.deepEqual(
    [3, 99, 100, 250, 1000, 5000, 100_000].map(feasibleNodesToFind),
    [3, 99, 100, 120, 420, 500, 5000],
  );
});
