// The namespace quota KubeSphere's console shows: the tightest ResourceQuota of each key with its usage, and what is
// left in the key's own units.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tightestQuota } from '../../../../../src/apiserver/kapis/resources/v1alpha2/quotas.ts';

test('the tightest hard limit of each key wins, with the usage its quota reports', () => {
  const q = tightestQuota([
    { hard: { 'limits.cpu': '4', 'count/pods': '10' }, used: { 'limits.cpu': '1500m', 'count/pods': '3' } },
    {
      hard: { 'limits.cpu': '2', 'requests.memory': '1Gi' },
      used: { 'limits.cpu': '500m', 'requests.memory': '256Mi' },
    },
  ]);
  assert.deepEqual(q.hard, { 'limits.cpu': '2', 'count/pods': '10', 'requests.memory': '1Gi' });
  assert.deepEqual(q.used, { 'limits.cpu': '500m', 'count/pods': '3', 'requests.memory': '256Mi' });
  assert.deepEqual(q.left, { 'limits.cpu': '1500m', 'count/pods': '7', 'requests.memory': '768Mi' });
});

test('left is floored at zero; a key without usage counts as unused; no quota, nothing', () => {
  const q = tightestQuota([
    { hard: { 'requests.storage': '1Gi', services: '2' }, used: { 'requests.storage': '2Gi' } },
  ]);
  assert.deepEqual(q.left, { 'requests.storage': '0', services: '2' });
  assert.equal(q.used.services, '0');
  assert.deepEqual(tightestQuota([]), { hard: {}, used: {}, left: {} });
});
