// Route schemas validate: a /kapis body of the wrong shape is a 400 Status whose details.causes name each field, and
// the handler never runs; list queries stay with query.ts (KubeSphere's parsing rules).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import pino from 'pino';
import Type from 'typebox';
import { installErrorHandlers } from '../../../src/apiserver/errors.ts';
import { Member } from '../../../src/apiserver/kapis/iam/schemas.ts';
import { registerKapisRoute } from '../../../src/apiserver/kapis/route.ts';
import { ListQueryString } from '../../../src/apiserver/kapis/schemas.ts';
import { causesOf, fieldPath } from '../../../src/apiserver/validation.ts';

async function app() {
  const a = Fastify({ logger: false });
  installErrorHandlers(a, pino({ level: 'silent' }));
  let calls = 0;
  registerKapisRoute(a, {
    method: 'POST',
    path: '/iam.kubesphere.io/v1alpha2/clustermembers',
    schema: { body: Type.Array(Member), querystring: ListQueryString },
    handler: async (request) => {
      calls++;
      return request.body;
    },
  });
  await a.ready();
  return { a, calls: () => calls };
}

test('a body of the wrong type is a 400 Status naming each field in details.causes', async () => {
  const { a, calls } = await app();
  for (const prefix of ['/kapis', '/kapi']) {
    const r = await a.inject({
      method: 'POST',
      url: `${prefix}/iam.kubesphere.io/v1alpha2/clustermembers`,
      payload: [{ username: 7, roleRef: 'viewer' }, { username: 'rita' }],
    });
    assert.equal(r.statusCode, 400);
    const s = r.json();
    assert.equal(s.kind, 'Status');
    assert.equal(s.reason, 'BadRequest');
    assert.deepEqual(s.details.causes, [
      { field: '[0].username', reason: 'FieldValueTypeInvalid', message: 'must be string' },
      { field: '[1].roleRef', reason: 'FieldValueRequired', message: 'Required value' },
    ]);
    assert.match(s.message, /\[0\]\.username/);
  }
  const notList = await a.inject({
    method: 'POST',
    url: '/kapis/iam.kubesphere.io/v1alpha2/clustermembers',
    payload: { username: 'rita', roleRef: 'viewer' },
  });
  assert.equal(notList.statusCode, 400);
  assert.deepEqual(notList.json().details.causes, [
    { field: 'body', reason: 'FieldValueTypeInvalid', message: 'must be array' },
  ]);
  assert.equal(calls(), 0, 'the handler never saw an invalid body');
  await a.close();
});

test('list queries reach the handler as sent (query.ts applies KubeSphere rules)', async () => {
  const { a, calls } = await app();
  const r = await a.inject({
    method: 'POST',
    url: '/kapis/iam.kubesphere.io/v1alpha2/clustermembers?ascending=T&page=2&page=3&foo=a&foo=b',
    payload: [{ username: 'rita', roleRef: 'viewer' }],
  });
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(calls(), 1);
  await a.close();
});

test('causes: Kubernetes field paths, one cause per field, no value echoed', () => {
  assert.equal(fieldPath('/rules/0/verbs'), 'rules[0].verbs');
  assert.equal(fieldPath('/metadata/annotations/a~1b'), 'metadata.annotations.a/b');
  assert.equal(fieldPath(''), '');
  const causes = causesOf(
    [
      { keyword: 'type', instancePath: '/labels/a', schemaPath: '#', params: {}, message: 'must be string' },
      {
        keyword: 'additionalProperties',
        instancePath: '/labels',
        schemaPath: '#',
        params: {},
        message: 'must not have additional properties',
      },
      {
        keyword: 'minItems',
        instancePath: '/verbs',
        schemaPath: '#',
        params: {},
        message: 'must have 1 items',
      },
    ],
    'body',
  );
  assert.deepEqual(causes, [
    { field: 'labels.a', reason: 'FieldValueTypeInvalid', message: 'must be string' },
    { field: 'verbs', reason: 'FieldValueInvalid', message: 'must have 1 items' },
  ]);
});
