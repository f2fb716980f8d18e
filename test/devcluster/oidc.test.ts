// OIDC trust in the dev cluster (kube-apiserver's --oidc-* flags) against a tiny HTTPS issuer made by the test:
// kubectl with an ID token (as a bearer token, and as the `oidc` auth provider's id-token) authenticates as the
// token's user under RBAC; tokens with a wrong signature, audience, issuer or expiry are 401; the JWKS is fetched
// lazily, cached, and fetched again for an unknown kid.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OidcAuthenticator } from '../../src/devcluster/oidc.ts';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, kubectlFor, kubectlWith, NO_KUBECTL } from '../helpers/kubectl.ts';
import { startOidcIssuer, type TestOidcIssuer } from '../helpers/oidc-issuer.ts';

const CLIENT_ID = 'kubernetes';

describe('OidcAuthenticator', () => {
  let issuer: TestOidcIssuer;
  before(async () => {
    issuer = await startOidcIssuer(CLIENT_ID);
  });
  after(() => issuer?.close());

  const authenticator = (extra: Partial<ConstructorParameters<typeof OidcAuthenticator>[0]> = {}) =>
    new OidcAuthenticator({ issuerUrl: issuer.url, clientId: CLIENT_ID, caFile: issuer.caFile, ...extra });

  it('maps claims as kube-apiserver: sub prefixed with the issuer, email unprefixed, prefixes and groups', async () => {
    const token = await issuer.sign({ sub: 'u-42', email: 'ann@example.com', groups: ['devs', 'ops'] });
    assert.deepEqual(await authenticator().authenticate(token), {
      name: `${issuer.url}#u-42`,
      groups: ['system:authenticated'],
    });
    assert.deepEqual(
      await authenticator({
        usernameClaim: 'email',
        groupsClaim: 'groups',
        groupsPrefix: 'oidc:',
      }).authenticate(token),
      { name: 'ann@example.com', groups: ['oidc:devs', 'oidc:ops', 'system:authenticated'] },
    );
    assert.equal((await authenticator({ usernamePrefix: 'corp:' }).authenticate(token))?.name, 'corp:u-42');
    assert.equal((await authenticator({ usernamePrefix: '-' }).authenticate(token))?.name, 'u-42');
    const unverified = await issuer.sign({ sub: 'x', email: 'eve@example.com', email_verified: false });
    assert.equal(await authenticator({ usernameClaim: 'email' }).authenticate(unverified), undefined);
  });

  it('refuses bad tokens and fetches discovery and keys lazily, once, and again for an unknown kid', async () => {
    const before = { ...issuer.fetches };
    const auth = authenticator();
    assert.deepEqual(issuer.fetches, before, 'nothing is fetched before a token arrives');
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      await issuer.sign({ sub: 'a', aud: 'someone-else' }),
      await issuer.sign({ sub: 'a', exp: now - 3600, iat: now - 7200 }),
      await issuer.sign({ sub: 'a' }, { key: await issuer.foreignKey() }),
      await issuer.sign({ sub: 'a', iss: 'https://elsewhere.example' }),
      await issuer.sign({ sub: 'a' }, { kid: 'never-published' }),
      'not-a-jwt',
    ];
    for (const t of bad) assert.equal(await auth.authenticate(t), undefined);
    assert.ok(await auth.authenticate(await issuer.sign({ sub: 'a' })));
    assert.equal(issuer.fetches.discovery - before.discovery, 1);
    assert.equal(
      issuer.fetches.jwks - before.jwks,
      1,
      'the JWKS is cached (an unknown kid right after a fetch waits)',
    );
    // A key rotated in after the cooldown is picked up by fetching again.
    let clock = Date.now();
    const later = new OidcAuthenticator(
      { issuerUrl: issuer.url, clientId: CLIENT_ID, caFile: issuer.caFile },
      undefined,
      () => clock,
    );
    assert.ok(await later.authenticate(await issuer.sign({ sub: 'a' })));
    await issuer.rotate();
    const early = issuer.fetches.jwks;
    assert.equal(await later.authenticate(await issuer.sign({ sub: 'b' })), undefined, 'within the cooldown');
    assert.equal(issuer.fetches.jwks, early);
    clock += 10_000;
    const jwks = issuer.fetches.jwks;
    assert.equal((await later.authenticate(await issuer.sign({ sub: 'b' })))?.name, `${issuer.url}#b`);
    assert.equal(issuer.fetches.jwks, jwks + 1);
  });

  it('refuses options kube-apiserver refuses', () => {
    assert.throws(() => new OidcAuthenticator({ issuerUrl: 'http://idp.example', clientId: 'x' }), /https/);
    assert.throws(
      () => new OidcAuthenticator({ issuerUrl: 'https://idp.example', clientId: '' }),
      /client-id/,
    );
  });
});

if (!hasKubectl) console.log(`# skipping dev cluster OIDC kubectl tests: ${NO_KUBECTL}`);

describe('kubectl with an OIDC ID token against the dev cluster', {
  skip: !hasKubectl && NO_KUBECTL,
  timeout: 120_000,
}, () => {
  let issuer: TestOidcIssuer;
  let dev: TestDevCluster;
  before(async () => {
    issuer = await startOidcIssuer(CLIENT_ID);
    dev = await startTestDevCluster({
      oidc: {
        issuerUrl: issuer.url,
        clientId: CLIENT_ID,
        usernameClaim: 'email',
        groupsClaim: 'groups',
        groupsPrefix: 'oidc:',
        caFile: issuer.caFile,
      },
    });
  });
  after(async () => {
    await dev?.close();
    await issuer?.close();
  });

  it('a token user is who the token says, and RBAC decides what it may do', async () => {
    const token = await issuer.sign({
      sub: 'u-1',
      email: 'ann@example.com',
      email_verified: true,
      groups: ['devs'],
    });
    const kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token });
    const who = await kubectl.run(['auth', 'whoami', '-o', 'json']);
    assert.equal(who.status, 0, who.stderr);
    assert.deepEqual(JSON.parse(who.stdout).status.userInfo, {
      username: 'ann@example.com',
      groups: ['oidc:devs', 'system:authenticated'],
    });
    const refused = await kubectl.run(['get', 'configmaps', '-n', 'default']);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /User "ann@example\.com" cannot list resource "configmaps"/);
    const binding = await devRequest(
      dev,
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
      {
        metadata: { name: 'devs-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'oidc:devs' }],
      },
    );
    assert.equal(binding.status, 201, binding.text);
    const view = await devRequest(dev, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/view');
    if (view.status === 404) {
      const role = await devRequest(dev, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        metadata: { name: 'view' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      });
      assert.equal(role.status, 201, role.text);
    }
    const allowed = await kubectl.run(['get', 'configmaps', '-n', 'default']);
    assert.equal(allowed.status, 0, allowed.stderr);
  });

  it('the oidc auth provider of a kubeconfig (id-token) works too', async () => {
    const idToken = await issuer.sign({ sub: 'u-2', email: 'bo@example.com', groups: 'ops' });
    const ca = Buffer.from(dev.caPem).toString('base64');
    const kubectl = kubectlWith(
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: t, cluster: {server: "${dev.url}", certificate-authority-data: ${ca}}}]`,
        'users:',
        '- name: t',
        '  user:',
        '    auth-provider:',
        '      name: oidc',
        '      config:',
        `        idp-issuer-url: ${issuer.url}`,
        `        client-id: ${CLIENT_ID}`,
        `        id-token: ${idToken}`,
        'contexts: [{name: t, context: {cluster: t, user: t}}]',
        'current-context: t',
        '',
      ].join('\n'),
    );
    const who = await kubectl.run(['auth', 'whoami', '-o', 'json']);
    assert.equal(who.status, 0, who.stderr);
    assert.equal(JSON.parse(who.stdout).status.userInfo.username, 'bo@example.com');
    assert.deepEqual(JSON.parse(who.stdout).status.userInfo.groups, ['oidc:ops', 'system:authenticated']);
  });

  it('a token for another audience, expired or forged is 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const token of [
      await issuer.sign({ email: 'ann@example.com', aud: 'other-client' }),
      await issuer.sign({ email: 'ann@example.com', exp: now - 60, iat: now - 700 }),
      await issuer.sign({ email: 'ann@example.com' }, { key: await issuer.foreignKey() }),
    ]) {
      const r = await devRequest({ ...dev, token }, 'GET', '/api/v1/namespaces');
      assert.equal(r.status, 401, r.text);
      assert.equal((r.body as { reason: string }).reason, 'Unauthorized');
    }
  });
});
