// The canonical-path step and the one table of path policies (anonymous, authorization-exempt, unaudited).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkCanonicalPath,
  checkDecodablePath,
  isCanonicalPath,
} from '../../src/apiserver/canonical-path.ts';
import {
  areCredentialsOptional,
  isAnonymousPath,
  isAudited,
  isAuthorizationExempt,
} from '../../src/apiserver/path-policy.ts';
import { StatusError } from '../../src/k8s/status.ts';

const NON_CANONICAL = [
  '/api/../kapis/iam.kubesphere.io/v1alpha2/users',
  '/api/v1/./nodes',
  '/api/v1/..',
  '//api/v1/nodes',
  '/api//v1/nodes',
  '/apis/%2e%2e/api/v1/nodes',
  '/api/v1/nodes%2f..',
  '/api/v1/nodes%2F..',
  '/api/v1/nodes%5cx',
  '/api/v1/nodes\\x',
];

test('the canonical-path step refuses dot segments, empty segments, encoded slashes and dots, and bad UTF-8', () => {
  for (const path of NON_CANONICAL) {
    assert.equal(isCanonicalPath(path), false, path);
    assert.throws(
      () => checkCanonicalPath(path),
      (err: unknown) => err instanceof StatusError && err.code === 400 && /dot segments/.test(err.message),
      path,
    );
  }
  assert.throws(
    () => checkDecodablePath('/api/v1/namespaces/%E0%A4%A/pods'),
    (err: unknown) => err instanceof StatusError && err.code === 400 && /UTF-8/.test(err.message),
  );
  for (const path of [
    '/',
    '/api/v1/namespaces/a%20b/pods',
    '/api/v1/nodes/a.b',
    '/oauth/.well-known/x',
    '/..x',
  ]) {
    assert.doesNotThrow(() => checkCanonicalPath(path), path);
  }
});

// path -> [anonymous, authorization-exempt, audited]
const POLICIES: [string, boolean, boolean, boolean][] = [
  ['/oauth/token', true, true, true],
  ['/oauth/revoke', true, true, true],
  ['/oauth/keys', true, true, true],
  ['/oauth/.well-known/openid-configuration', true, true, true],
  ['/oauth/authorize', false, true, true],
  ['/oauth/userinfo', false, true, true],
  ['/oauth', false, false, true],
  ['/healthz', true, true, false],
  ['/livez', true, true, false],
  ['/readyz', true, true, false],
  ['/healthz/', false, false, true],
  ['/Healthz', false, false, true],
  ['/version', true, true, true],
  ['/version/', false, false, true],
  ['/kapis/version', true, true, true],
  ['/kapi/version', true, true, true],
  ['/kapis/config.kubesphere.io/v1alpha2/configs/oauth', true, true, true],
  ['/kapi/config.kubesphere.io/v1alpha2/configs/oauth', true, true, true],
  ['/kapis/config.kubesphere.io/v1alpha2/configs/configz', true, true, true],
  ['/kapis/config.kubesphere.io/v1alpha2/configs/gpu/kinds', false, true, true],
  ['/kapis/config.kubesphere.io/v1alpha2/configs/configz/', false, true, true],
  ['/kapis/config.kubesphere.io/v1alpha2/configs', false, true, true],
  ['/swagger-ui', true, false, true],
  ['/swagger-ui/index.html', true, false, true],
  ['/metrics', false, false, true],
  ['/api/v1/nodes', false, false, true],
  // A prefix never lends itself to a non-canonical spelling.
  ['/swagger-ui/../api/v1/secrets', false, false, true],
  ['/swagger-ui/%2e%2e/api/v1/secrets', false, false, true],
  ['/oauth/.well-known//x', false, false, true],
  ['/oauth/../api/v1/nodes', false, false, true],
  ['/oauth//api/v1/nodes', false, false, true],
  ['/kapis/config.kubesphere.io/../../api/v1/nodes', false, false, true],
  ['/kapis/config.kubesphere.io/%2e%2e/x', false, false, true],
];

test('logout checks credentials when sent and serves callers without any', () => {
  assert.equal(areCredentialsOptional('/oauth/logout'), true);
  assert.equal(isAnonymousPath('/oauth/logout'), false);
  for (const path of ['/oauth/logout/', '/oauth/userinfo', '/oauth/../oauth/logout', '/api/v1/nodes']) {
    assert.equal(areCredentialsOptional(path), false, path);
  }
});

test(`the path policy table over ${POLICIES.length} paths`, () => {
  for (const [path, anonymous, exempt, audited] of POLICIES) {
    assert.deepEqual(
      [isAnonymousPath(path), isAuthorizationExempt(path), isAudited(path)],
      [anonymous, exempt, audited],
      path,
    );
  }
});
