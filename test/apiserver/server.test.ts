// The API server's shell without an orchestrator: Status errors, not-found, health and readiness.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Readiness } from '../../src/apiserver/readiness.ts';
import { buildApiServer } from '../../src/apiserver/server.ts';
import { defaultConfig } from '../../src/config/index.ts';
import { TEST_USER, testServerContext } from '../helpers/server-context.ts';

const readiness = new Readiness();
let ready = false;
readiness.register('test-check', () => ready);
// A known user, allowed everything: requests reach routing (the authorizer has no RBAC objects to read here).
const config = defaultConfig();
config.authorization.mode = 'AlwaysAllow';
const { ctx, token, close } = testServerContext({
  config,
  readiness,
  user: TEST_USER,
});
const auth = { authorization: `Bearer ${token}` };
const server = await buildApiServer(ctx);
after(async () => {
  await server.close();
  await close();
});

test('unknown paths answer a Kubernetes Status 404', async () => {
  const res = await server.app.inject({ method: 'GET', url: '/kapis/nothing.here/v1/things', headers: auth });
  assert.equal(res.statusCode, 404);
  const body = res.json();
  assert.equal(body.kind, 'Status');
  assert.equal(body.apiVersion, 'v1');
  assert.equal(body.status, 'Failure');
  assert.equal(body.reason, 'NotFound');
  assert.equal(body.code, 404);
});

test('a path with broken percent-encoding is a 400 Status, not a crash', async () => {
  const res = await server.app.inject({ method: 'GET', url: '/api/v1/namespaces/%E0%A4%A/pods' });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().reason, 'BadRequest');
});

test('/healthz and /livez answer ok; /readyz follows the registered checks', async () => {
  assert.equal((await server.app.inject('/healthz')).body, 'ok');
  assert.equal((await server.app.inject('/livez')).body, 'ok');
  const notReady = await server.app.inject('/readyz');
  assert.equal(notReady.statusCode, 503);
  assert.match(notReady.body, /\[-\]test-check failed/);
  ready = true;
  const readyRes = await server.app.inject('/readyz?verbose');
  assert.equal(readyRes.statusCode, 200);
  assert.match(readyRes.body, /\[\+\]test-check ok/);
});

test('/version and /kapis/version carry the KubeSphere version document', async () => {
  for (const url of ['/version', '/kapis/version']) {
    const body = (await server.app.inject(url)).json();
    for (const k of [
      'gitVersion',
      'gitMajor',
      'gitMinor',
      'gitCommit',
      'gitTreeState',
      'buildDate',
      'goVersion',
      'compiler',
      'platform',
    ]) {
      assert.equal(typeof body[k], 'string', `${url} ${k}`);
    }
  }
});
