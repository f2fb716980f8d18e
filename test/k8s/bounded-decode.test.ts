// Bounded body decoding: hostile YAML and JSON are refused at their first error or past the nesting limit, with short
// messages that never quote the body; ordinary documents decode as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeJson,
  decodeYaml,
  jsonNestsDeeperThan,
  MAX_BODY_DEPTH,
  MAX_YAML_CHARS,
  valueNestsDeeperThan,
} from '../../src/k8s/bounded-decode.ts';
import { StatusError } from '../../src/k8s/status.ts';

async function refusal(p: Promise<unknown> | (() => unknown)): Promise<StatusError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return err;
  }
  assert.fail('expected a refusal');
}

test('YAML documents decode as yaml does (block, flow, block scalars, JSON as YAML)', async () => {
  const doc =
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, labels: {a: "1"}}\ndata:\n  b: |\n    two\n  c: null\n';
  assert.deepEqual(await decodeYaml(doc), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', labels: { a: '1' } },
    data: { b: 'two\n', c: null },
  });
  assert.deepEqual(await decodeYaml('{"a": [1, 2, {"b": true}]}'), { a: [1, 2, { b: true }] });
  assert.deepEqual(await decodeYaml('{a: b}'), { a: 'b' }); // flow YAML that is not JSON
  assert.deepEqual(await decodeYaml('a: 1\na: 2\n'), { a: 2 }); // last key wins, as JSON.parse
  assert.equal(await decodeYaml(''), null);
});

test('invalid YAML is refused at the first error, whatever its size', async () => {
  const hostile = "{'r':['a\\'b']}".repeat(16_000);
  const e = await refusal(decodeYaml(hostile));
  assert.equal(e.code, 400);
  assert.ok(e.message.length < 300, e.message);
  const composerErrors = `[${'a: b: c, '.repeat(20_000)}]`;
  assert.equal((await refusal(decodeYaml(composerErrors))).code, 400);
  assert.equal((await refusal(decodeYaml('a: 1\n---\nb: 2\n'))).code, 400); // one document per body
});

test('YAML that is not JSON is capped; JSON sent as YAML is not', async () => {
  const big = `items:\n${'- {name: n, value: v}\n'.repeat(Math.ceil(MAX_YAML_CHARS / 22) + 1)}`;
  assert.equal((await refusal(decodeYaml(big))).code, 413);
  const json = JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ name: `n${i}` })) });
  assert.ok(json.length > MAX_YAML_CHARS);
  assert.equal(((await decodeYaml(json)) as { items: unknown[] }).items.length, 20_000);
});

test('nesting past the limit is refused in JSON, flow YAML and block YAML', async () => {
  const n = 100_000;
  for (const text of [`${'['.repeat(n)}${']'.repeat(n)}`, `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`]) {
    assert.match((await refusal(() => decodeJson(text))).message, /nesting is deeper than 1000 levels/);
    assert.match((await refusal(decodeYaml(text))).message, /nesting is deeper than 1000 levels/);
  }
  for (const text of [`a: ${'['.repeat(n)}`, `${'- '.repeat(n)}x`, `${'{a: '.repeat(n)}`]) {
    assert.match((await refusal(decodeYaml(text))).message, /nesting is deeper than 1000 levels/);
  }
  const ok = `${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`;
  assert.equal(jsonNestsDeeperThan(ok, MAX_BODY_DEPTH), false);
  assert.ok(Array.isArray(decodeJson(ok)));
  assert.equal(jsonNestsDeeperThan('{"a":"[[[[[\\"[[["}', 2), false); // brackets in strings do not count
});

test('parsed values are measured without recursion', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(valueNestsDeeperThan(deep, MAX_BODY_DEPTH), true);
  assert.equal(valueNestsDeeperThan({ a: [{ b: 1 }] }, 3), false);
  assert.equal(valueNestsDeeperThan({ a: [{ b: {} }] }, 3), true);
});

test('error messages never quote the body', async () => {
  const e = await refusal(() => decodeJson('{"password": hunter2-secret}'));
  assert.doesNotMatch(e.message, /hunter2/);
  const y = await refusal(decodeYaml('password: [hunter2-secret\n'));
  assert.doesNotMatch(y.message, /hunter2/);
});

test('alias expansion is bounded (billion laughs)', async () => {
  const refs = (name: string) => `[${Array(9).fill(`*${name}`).join(',')}]`;
  const laughs = `a: &a [x,x,x,x,x,x,x,x,x]\nb: &b ${refs('a')}\nc: &c ${refs('b')}\nd: &d ${refs('c')}\ne: ${refs('d')}\n`;
  assert.equal((await refusal(decodeYaml(laughs))).code, 400);
});
