// Machine clients: the cluster's service-account tokens as bearer tokens, checked with the orchestrator's TokenReview
// (seen here through a recording spy in front of the dev cluster). RBAC decides what the account may do; kapiserver's
// own tokens, valid or not, and anything claiming to be one, are never sent for review; reviews are cached and
// coalesced; an orchestrator that does not answer is a 503, never a 401; the option turns the whole thing off.
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { ClusterConnection, type KubeRest } from '../../../src/apiserver/cluster/index.ts';
import { InvalidTokenError } from '../../../src/apiserver/oauth/jwt.ts';
import {
  MAX_REVIEWS_IN_FLIGHT,
  ServiceAccountTokens,
  TokenReviewUnavailableError,
} from '../../../src/apiserver/oauth/serviceaccount-tokens.ts';
import { type DevCluster, startDevCluster } from '../../../src/devcluster/index.ts';
import { FakeClock } from '../../helpers/clock.ts';
import { bearer, devRest, eventually, login, postToken } from '../../helpers/oauth.ts';
import { type Spy, startSpy } from '../../helpers/spy.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const NS = 'monitoring';
const OIDC_CLIENT = 'kubectl-oidc';
let dir: string;
let dev: DevCluster;
let spy: Spy;
let stack: TestStack;
let rest: KubeRest;
const logLines: string[] = [];

const reviewsSeen = () =>
  spy.seen.filter((s) => s.url.startsWith('/apis/authentication.k8s.io/v1/tokenreviews')).length;
const get = (path: string, token: string) => fetch(`${stack.url}${path}`, { headers: bearer(token) });

let issued = 0;
/** A new token of the account each time (two issued in one second would otherwise be the same text). */
async function serviceAccountToken(name: string): Promise<string> {
  issued++;
  const r = await rest.create<{ status: { token: string } }>(
    `/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 + issued },
    },
  );
  return r.status.token;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-sa-'));
  dev = await startDevCluster({ dataDir: join(dir, 'dev'), port: 0 });
  spy = await startSpy(dev, join(dir, 'spy'));
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  stack = await startTestStack({
    dev,
    clusterKubeconfigPath: spy.kubeconfigPath,
    logger,
    configDocument: {
      authentication: {
        oauthOptions: {
          clients: [
            { name: 'kubesphere', secret: 'kubesphere' },
            { name: OIDC_CLIENT, secret: '', redirectURIs: ['http://localhost:8000'] },
          ],
        },
      },
    },
  });
  rest = devRest(stack);
  await rest.create('/api/v1/namespaces', { metadata: { name: NS } });
  for (const name of ['scraper', 'nobody']) {
    await rest.create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name } });
  }
  await rest.create(`${RBAC}/clusterroles`, {
    metadata: { name: 'metrics-reader' },
    rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
  });
  await rest.create(`${RBAC}/clusterrolebindings`, {
    metadata: { name: 'scraper-metrics' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: NS }],
  });
});

after(async () => {
  await stack?.close();
  await spy?.stop().catch(() => {});
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a service account bound to /metrics scrapes it; one without the binding is refused 403', async () => {
  const scraper = await serviceAccountToken('scraper');
  // The binding reaches kapiserver's RBAC cache through its watch.
  await eventually(async () => (await get('/metrics', scraper)).status === 200, 20_000, 'binding');
  const res = await get('/metrics', scraper);
  assert.match(await res.text(), /^# HELP /m);
  const refused = await get('/metrics', await serviceAccountToken('nobody'));
  assert.equal(refused.status, 403);
  const status = (await refused.json()) as { message: string };
  assert.match(status.message, /system:serviceaccount:monitoring:nobody/);
});

test('the account is the user the review names: its groups, so Group bindings count too', async () => {
  const token = await serviceAccountToken('nobody');
  await rest.create(`${RBAC}/namespaces/${NS}/roles`, {
    metadata: { name: 'cm-reader', namespace: NS },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
  });
  await rest.create(`${RBAC}/namespaces/${NS}/rolebindings`, {
    metadata: { name: 'all-accounts-read-cm', namespace: NS },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
    subjects: [{ kind: 'Group', name: `system:serviceaccounts:${NS}` }],
  });
  const path = `/api/v1/namespaces/${NS}/configmaps`;
  await eventually(async () => (await get(path, token)).status === 200, 20_000, 'group binding');
  assert.equal((await get('/api/v1/namespaces/default/configmaps', token)).status, 403);
});

test("kapiserver's own tokens are never sent for review, valid, revoked or forged", async () => {
  const before = reviewsSeen();
  const tokens = await login(stack);
  assert.equal((await get('/metrics', tokens.access_token)).status, 200);
  // A refresh token is refused as kapiserver's, not reviewed.
  assert.equal((await get('/metrics', tokens.refresh_token)).status, 401);
  await fetch(`${stack.url}/oauth/logout`, { headers: bearer(tokens.access_token) });
  assert.equal((await get('/metrics', tokens.access_token)).status, 401);
  // Signed with another key but claiming kapiserver's issuer (what a stolen-then-tampered token looks like).
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const forge = (claims: Record<string, unknown>) => {
    const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iat: now, exp: now + 600, ...claims })}`;
    return `${head}.${createHmac('sha256', 'another key').update(head).digest('base64url')}`;
  };
  const issuer = stack.config.authentication.oauthOptions.issuer;
  for (const forged of [
    forge({ iss: issuer, sub: 'admin' }),
    forge({ iss: 'elsewhere', username: 'admin', token_type: 'access_token' }),
  ]) {
    const res = await get('/metrics', forged);
    assert.equal(res.status, 401);
  }
  // kapiserver's ID token (RS256, whatever issuer it names) is kapiserver's too.
  const idToken = await idTokenOf((await login(stack)).access_token);
  assert.equal((await get('/metrics', idToken)).status, 401);
  assert.equal(reviewsSeen(), before, 'no TokenReview was sent');
});

/** An OpenID Connect ID token kapiserver issues (authorization code flow with PKCE, the session's bearer token). */
async function idTokenOf(accessToken: string): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = await fetch(
    `${stack.url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: OIDC_CLIENT,
      scope: 'openid',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })}`,
    { redirect: 'manual', headers: bearer(accessToken) },
  );
  assert.equal(authorize.status, 302);
  const code = new URL(authorize.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const t = await postToken(stack.url, {
    grant_type: 'authorization_code',
    code,
    client_id: OIDC_CLIENT,
    code_verifier: verifier,
  });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  return t.body.id_token as string;
}

test('garbage and expired tokens are 401 without a review; a foreign JWT is reviewed once, then cached', async () => {
  let before = reviewsSeen();
  for (const token of ['garbage', 'a.b', `${'x'.repeat(9000)}.y.z`]) {
    const res = await get('/metrics', token);
    assert.equal(res.status, 401);
    assert.ok(!(await res.text()).includes(token.slice(0, 40)), 'the token is not in the answer');
  }
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const expired = `${b64({ alg: 'RS256' })}.${b64({ iss: 'k8s', exp: 1000 })}.c2ln`;
  assert.equal((await get('/metrics', expired)).status, 401);
  assert.equal(reviewsSeen(), before, 'nothing to review');

  const unknown = `${b64({ alg: 'RS256' })}.${b64({ iss: 'k8s', sub: 'x' })}.c2ln`;
  const first = await get('/metrics', unknown);
  assert.equal(first.status, 401);
  assert.equal(((await first.json()) as { message: string }).message, 'Unauthorized: token is not valid');
  assert.equal((await get('/metrics', unknown)).status, 401);
  assert.equal(reviewsSeen(), before + 1, 'a refusal is cached');

  before = reviewsSeen();
  const token = await serviceAccountToken('scraper');
  const answers = await Promise.all(Array.from({ length: 8 }, () => get('/metrics', token)));
  assert.deepEqual(
    answers.map((r) => r.status),
    Array(8).fill(200),
  );
  assert.equal((await get('/metrics', token)).status, 200);
  assert.equal(reviewsSeen(), before + 1, 'concurrent requests share one review; later ones use its result');
});

test('a service account is no KubeSphere User: user-centric routes refuse it, nothing is granted or crashes', async () => {
  const token = await serviceAccountToken('scraper');
  const name = `system:serviceaccount:${NS}:scraper`;
  const kubeconfig = await get(`/kapis/resources.kubesphere.io/v1alpha2/users/${name}/kubeconfig`, token);
  assert.equal(kubeconfig.status, 404, 'no User of that name, so no kubeconfig');
  const user = await get(`/kapis/iam.kubesphere.io/v1alpha2/users/${name}`, token);
  assert.equal(user.status, 404);
  const users = await get('/kapis/iam.kubesphere.io/v1alpha2/users', token);
  assert.equal(users.status, 403);
  // Logout revokes nothing of anyone's and leaves the account's token working (it is the cluster's to revoke).
  assert.equal((await get('/oauth/logout', token)).status, 200);
  assert.equal((await get('/metrics', token)).status, 200);
  const info = await get('/oauth/userinfo', token);
  assert.deepEqual(await info.json(), { sub: name, name, preferred_username: name });
});

test('turned off, a service-account token is a 401 and never reviewed', async () => {
  const config = stack.api.context.config;
  const on = config.current();
  const token = await serviceAccountToken('scraper');
  const before = reviewsSeen();
  config.set({ ...on, authentication: { ...on.authentication, serviceAccountTokens: false } });
  try {
    assert.equal((await get('/metrics', token)).status, 401);
    assert.equal(reviewsSeen(), before);
  } finally {
    config.set(on);
  }
  assert.equal((await get('/metrics', token)).status, 200);
});

test('cached results expire: an answer after 10 s, a refusal after 3 s, a deleted account is refused then', async () => {
  const clock = new FakeClock();
  const reviewer = new ServiceAccountTokens(ClusterConnection.fromFile(spy.kubeconfigPath), clock);
  await rest.create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'ephemeral' } });
  const token = await serviceAccountToken('ephemeral');
  const before = reviewsSeen();
  assert.equal((await reviewer.authenticate(token)).name, `system:serviceaccount:${NS}:ephemeral`);
  await rest.delete(`/api/v1/namespaces/${NS}/serviceaccounts/ephemeral`);
  clock.advance(9_000);
  assert.equal((await reviewer.authenticate(token)).name, `system:serviceaccount:${NS}:ephemeral`, 'cached');
  assert.equal(reviewsSeen(), before + 1);
  clock.advance(1_001);
  await assert.rejects(reviewer.authenticate(token), InvalidTokenError);
  assert.equal(reviewsSeen(), before + 2, 'reviewed again after 10 s');
  clock.advance(2_900);
  await assert.rejects(reviewer.authenticate(token), InvalidTokenError);
  assert.equal(reviewsSeen(), before + 2, 'the refusal is cached');
  clock.advance(200);
  await assert.rejects(reviewer.authenticate(token), InvalidTokenError);
  assert.equal(reviewsSeen(), before + 3, 'reviewed again after 3 s');
});

test('the orchestrator not answering is a 503 with Retry-After, not a 401; the token is not logged', async () => {
  const token = await serviceAccountToken('scraper');
  await spy.stop();
  try {
    const res = await get('/metrics', token);
    assert.equal(res.status, 503);
    assert.ok(res.headers.get('retry-after'));
    assert.ok(!(await res.text()).includes(token));
    assert.ok(logLines.some((l) => l.includes('TokenReview: the orchestrator did not answer')));
  } finally {
    await spy.start();
  }
  assert.equal((await get('/metrics', token)).status, 200, 'a failure is not cached');
  const signature = token.split('.')[2];
  assert.ok(!logLines.some((l) => l.includes(signature)), 'no service-account token in any log line');
});

test('reviews in flight are bounded: past the bound a token is refused at once as unavailable, never queued', async () => {
  // An orchestrator that accepts connections and never answers.
  const server = createServer(() => {});
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const kubeconfig = join(dir, 'silent.kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`,
  );
  const reviewer = new ServiceAccountTokens(ClusterConnection.fromFile(kubeconfig));
  const jwt = (i: number) =>
    ['{"alg":"RS256"}', `{"sub":"x${i}"}`, 'sig'].map((p) => Buffer.from(p).toString('base64url')).join('.');
  const pending = Array.from({ length: MAX_REVIEWS_IN_FLIGHT }, (_, i) => reviewer.authenticate(jwt(i)));
  for (const p of pending) p.catch(() => {});
  await assert.rejects(reviewer.authenticate(jwt(MAX_REVIEWS_IN_FLIGHT)), (err) => {
    assert.ok(err instanceof TokenReviewUnavailableError);
    assert.match(err.message, /too many reviews in flight/);
    return true;
  });
  server.closeAllConnections();
  server.close();
  await Promise.allSettled(pending);
});
