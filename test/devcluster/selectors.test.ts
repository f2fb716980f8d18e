import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  labelSelectorFromObject,
  matchFields,
  parseFieldSelector,
  parseLabelSelector,
} from '../../src/k8s/selectors.ts';
import { StatusError } from '../../src/k8s/status.ts';

const labels = { app: 'web', tier: 'frontend', 'example.com/team': 'a', empty: '' };

describe('label selectors', () => {
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['app notin (db, cache)', true],
    ['app notin (web)', false],
    ['missing notin (web)', true],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['app=web,tier=frontend', true],
    ['app=web,tier=backend', false],
    ['example.com/team=a', true],
    ['empty=', true],
    [' app = web , tier in (frontend) ', true],
  ];
  for (const [sel, want] of cases) {
    it(`"${sel}" -> ${want}`, () => assert.equal(parseLabelSelector(sel).matches(labels), want));
  }

  for (const bad of [
    'app=',
    'a b',
    'app in (x',
    'app in ()',
    '=x',
    'app=web,',
    'app=we b',
    '-bad=x',
    'a/b/c=x',
    'app===x',
  ]) {
    it(`rejects "${bad}" with 400`, () => {
      if (bad === 'app=') {
        // an empty value is legal
        assert.equal(parseLabelSelector(bad).matches({ app: '' }), true);
        return;
      }
      assert.throws(
        () => parseLabelSelector(bad),
        (err: unknown) => err instanceof StatusError && err.code === 400,
      );
    });
  }

  it('round-trips through toString', () => {
    const s = parseLabelSelector('a=b,c!=d,e in (x,y),f notin (z),g,!h');
    assert.equal(s.toString(), 'a=b,c!=d,e in (x,y),f notin (z),g,!h');
    assert.equal(s.requirements.length, 6);
  });

  it('converts LabelSelector objects', () => {
    const s = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['frontend', 'x'] },
        { key: 'gone', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(s.matches(labels), true);
    assert.equal(s.matches({ app: 'web', tier: 'y' }), false);
    assert.equal(labelSelectorFromObject({}).empty, true);
    assert.throws(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Near' }] }),
      StatusError,
    );
    assert.throws(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
      StatusError,
    );
  });
});

describe('field selectors', () => {
  it('parses =, ==, != and escapes', () => {
    assert.deepEqual(parseFieldSelector('metadata.name=a,spec.nodeName!=n1,status.phase==Running'), [
      { field: 'metadata.name', operator: 'Equals', value: 'a' },
      { field: 'spec.nodeName', operator: 'NotEquals', value: 'n1' },
      { field: 'status.phase', operator: 'Equals', value: 'Running' },
    ]);
    assert.deepEqual(parseFieldSelector('a=x\\,y'), [{ field: 'a', operator: 'Equals', value: 'x,y' }]);
    assert.deepEqual(parseFieldSelector(''), []);
  });
  it('matches', () => {
    const reqs = parseFieldSelector('metadata.name=a,status.phase!=Failed');
    assert.equal(matchFields(reqs, { 'metadata.name': 'a', 'status.phase': 'Running' }), true);
    assert.equal(matchFields(reqs, { 'metadata.name': 'b', 'status.phase': 'Running' }), false);
    assert.equal(matchFields(reqs, { 'metadata.name': 'a', 'status.phase': 'Failed' }), false);
  });
  it('rejects malformed input with 400', () => {
    for (const bad of ['name', 'a=b,c', '=x']) {
      assert.throws(
        () => parseFieldSelector(bad),
        (err: unknown) => err instanceof StatusError && err.code === 400,
        bad,
      );
    }
  });
});
