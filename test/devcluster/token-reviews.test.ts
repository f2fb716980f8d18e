// TokenReview in the dev cluster authenticates its token as a request's bearer token would be: a service-account
// token (from `kubectl create token`, as kapiserver's machine clients present them) is its account with the
// ServiceAccount's uid and groups; the administrator's token is kubernetes-admin; anything else, or the token of a
// deleted account, is not authenticated. The answer never carries the token back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

const REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';

interface Review {
  spec: { token?: string };
  status: { authenticated?: boolean; user?: { username: string; uid?: string; groups: string[] } };
}

describe('token reviews in the dev cluster', { skip: !hasKubectl && NO_KUBECTL, timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  let admin: Kubectl;

  const review = async (token: string): Promise<Review> => {
    const r = await devRequest(dev, 'POST', REVIEWS, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token },
    });
    assert.equal(r.status, 201, r.text);
    assert.ok(!r.text.includes(token), 'the answer does not echo the token');
    return r.body as Review;
  };
  const createToken = async (name: string) => {
    const r = await admin.run(['create', 'token', name, '-n', 'default']);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };

  before(async () => {
    dev = await startTestDevCluster();
    admin = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
    for (const name of ['scraper', 'doomed']) {
      const r = await admin.run(['create', 'serviceaccount', name, '-n', 'default']);
      assert.equal(r.status, 0, r.stderr);
    }
  });
  after(() => dev?.close());

  it("a service-account token is its account, with the ServiceAccount's uid and groups", async () => {
    const token = await createToken('scraper');
    const sa = await devRequest(dev, 'GET', '/api/v1/namespaces/default/serviceaccounts/scraper');
    const uid = (sa.body as { metadata: { uid: string } }).metadata.uid;
    const { status } = await review(token);
    assert.equal(status.authenticated, true);
    assert.deepEqual(status.user, {
      username: 'system:serviceaccount:default:scraper',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
  });

  it("the administrator's token is kubernetes-admin in system:masters", async () => {
    const { status } = await review(dev.token);
    assert.equal(status.user?.username, 'kubernetes-admin');
    assert.ok(status.user?.groups.includes('system:masters'));
  });

  it('garbage, a forged signature and a deleted account are not authenticated', async () => {
    const token = await createToken('doomed');
    const [head, payload] = token.split('.');
    for (const t of ['not-a-token', `${head}.${payload}.${'A'.repeat(43)}`]) {
      const { status } = await review(t);
      assert.deepEqual(status, { authenticated: false });
    }
    assert.equal((await review(token)).status.authenticated, true);
    assert.equal((await admin.run(['delete', 'serviceaccount', 'doomed', '-n', 'default'])).status, 0);
    assert.deepEqual((await review(token)).status, { authenticated: false });
  });

  it('a service account may not review tokens without RBAC granting it', async () => {
    const token = await createToken('scraper');
    const r = await devRequest({ ...dev, token }, 'POST', REVIEWS, { spec: { token } });
    assert.equal(r.status, 403, r.text);
  });
});
