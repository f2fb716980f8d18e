// Query parameters of the monitoring routes: KubeSphere's meanings, and a 400 Status naming the parameter for what
// KubeSphere would pass on to Prometheus or run unchecked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_POINTS, parseMetricsQuery } from '../../../../src/apiserver/kapis/monitoring/params.ts';
import { isStatusError } from '../../../../src/k8s/status.ts';

const NOW = 1_700_000_000;

function rejects(search: string, parameter: string) {
  assert.throws(
    () => parseMetricsQuery(search, NOW),
    (err: unknown) =>
      isStatusError(err) &&
      err.code === 400 &&
      err.message.includes(parameter) &&
      err.details?.causes?.[0]?.field === parameter,
    `${search} -> 400 naming ${parameter}`,
  );
}

test('no parameters: an instant query now, every metric, every resource, no ranking', () => {
  const q = parseMetricsQuery('', NOW);
  assert.deepEqual(q.window, { kind: 'instant', time: NOW });
  assert.equal(q.resourcesFilter, '.*');
  assert.ok(q.metricsFilter.test('cluster_cpu_usage'));
  assert.equal(q.sort, undefined);
});

test('start and end make a range query; step defaults to 10m and takes Go durations', () => {
  assert.deepEqual(parseMetricsQuery('start=1000&end=7000', NOW).window, {
    kind: 'range',
    start: 1000,
    end: 7000,
    step: 600,
  });
  assert.equal(
    (parseMetricsQuery('start=1000&end=7000&step=1m30s', NOW).window as { step: number }).step,
    90,
  );
  // The console sends `times` too; it is ignored. A range beats `time`, as in KubeSphere.
  assert.equal(parseMetricsQuery('start=1&end=2&step=60s&times=20&time=5', NOW).window.kind, 'range');
});

test('metrics_filter is an unanchored regex, as Go’s MatchString: the console’s `a|b$` form selects both', () => {
  const q = parseMetricsQuery(`metrics_filter=${encodeURIComponent('node_cpu_usage|node_load1$')}`, NOW);
  assert.ok(q.metricsFilter.test('node_cpu_usage'));
  assert.ok(q.metricsFilter.test('node_load1'));
  assert.ok(!q.metricsFilter.test('node_load15'));
});

test('a pattern that would backtrack exponentially is run in linear time', () => {
  const q = parseMetricsQuery(`metrics_filter=${encodeURIComponent('^(a+)+$')}`, NOW);
  assert.ok(q.metricsFilter.flags.includes('l'), 'compiled for the linear-time engine');
  // A backtracking engine would not return from this call (2^5000 paths); the linear one answers at once.
  assert.equal(q.metricsFilter.test(`${'a'.repeat(5000)}b`), false);
});

test('bad metrics_filter: not a regex, or one needing backtracking (backreference, lookahead) -> 400', () => {
  rejects('metrics_filter=(', 'metrics_filter');
  rejects(`metrics_filter=${encodeURIComponent('(a)\\1')}`, 'metrics_filter');
  rejects(`metrics_filter=${encodeURIComponent('a(?=b)')}`, 'metrics_filter');
  rejects(`metrics_filter=${'a'.repeat(5000)}`, 'metrics_filter');
});

test('bad times: non-numeric, fractional, end before start, only one of start and end -> 400', () => {
  rejects('time=abc', 'time');
  rejects('time=1.5', 'time');
  rejects('start=abc&end=10', 'start');
  rejects('start=10&end=x', 'end');
  rejects('start=20&end=10', 'end');
  rejects('start=10', 'end');
  rejects('end=10', 'start');
});

test('bad steps: zero, negative, no unit, too fine for the range (over Prometheus’ 11,000 points) -> 400', () => {
  rejects('start=0&end=100&step=0', 'step');
  rejects('start=0&end=100&step=0s', 'step');
  rejects('start=0&end=100&step=-1m', 'step');
  rejects('start=0&end=100&step=60', 'step');
  rejects(`start=0&end=${MAX_POINTS}&step=1s`, 'step');
  // Exactly 11,000 points is what Prometheus still answers.
  assert.equal(parseMetricsQuery(`start=0&end=${MAX_POINTS - 1}&step=1s`, NOW).window.kind, 'range');
});

test('sorting: asc or desc (anything else), page and limit default to 1 and 5 and must be positive', () => {
  assert.deepEqual(parseMetricsQuery('sort_metric=node_cpu_usage', NOW).sort, {
    metric: 'node_cpu_usage',
    ascending: false,
    page: 1,
    limit: 5,
  });
  assert.equal(parseMetricsQuery('sort_metric=m&sort_type=asc', NOW).sort?.ascending, true);
  rejects('sort_metric=m&page=0', 'page');
  rejects('sort_metric=m&limit=-1', 'limit');
  rejects('sort_metric=m&limit=x', 'limit');
});

test('filters with a control character are refused; namespaced_resources_filter takes namespace/pod pairs only', () => {
  rejects(`resources_filter=${encodeURIComponent('a\nb')}`, 'resources_filter');
  assert.deepEqual(parseMetricsQuery('namespaced_resources_filter=a/p1|b/p2$', NOW).namespacedResources, [
    { namespace: 'a', pod: 'p1' },
    { namespace: 'b', pod: 'p2' },
  ]);
  rejects('namespaced_resources_filter=p1', 'namespaced_resources_filter');
  rejects(`namespaced_resources_filter=${encodeURIComponent('a/.*')}`, 'namespaced_resources_filter');
});
