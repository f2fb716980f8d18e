// kapiserver's ID token works as a Kubernetes OIDC credential: a kapiserver process whose issuer is its own HTTPS
// address starts its dev cluster trusting that issuer (--devcluster-oidc-*, as kube-apiserver's --oidc-*); an ID token
// from the code flow is then accepted by kubectl against the dev cluster, found through discovery and /oauth/keys.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { devClusterOf } from '../helpers/devcluster.ts';
import { hasKubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';
import { bearer, postToken } from '../helpers/oauth.ts';
import { freePort } from '../helpers/ports.ts';
import { type KapiserverProcess, killDevClusterOf, startKapiserverProcess } from '../helpers/process.ts';

const CLIENT = 'kubectl-oidc';
const CALLBACK = 'http://127.0.0.1:8000/callback';
const PASSWORD = `Adm1n-${randomBytes(6).toString('hex')}`;

let dataDir: string;
let kapiserver: KapiserverProcess | undefined;
let issuer = '';
before(async () => {
  if (!hasKubectl) return;
  dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-oidc-kubectl-'));
  const securePort = await freePort();
  issuer = `https://127.0.0.1:${securePort}/oauth`;
  const config = join(dataDir, 'kubesphere.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      authentication: {
        oauthOptions: {
          issuer,
          clients: [
            { name: 'kubesphere', secret: 'kubesphere' },
            { name: CLIENT, secret: '', redirectURIs: [CALLBACK] },
          ],
        },
      },
    }),
  );
  kapiserver = await startKapiserverProcess(
    [
      '--data-dir',
      dataDir,
      '--bind-address',
      '127.0.0.1',
      '--port',
      '0',
      '--secure-port',
      String(securePort),
      '--devcluster-port',
      '0',
      '--config',
      config,
      '--devcluster-oidc-issuer-url',
      issuer,
      '--devcluster-oidc-client-id',
      CLIENT,
      '--devcluster-oidc-username-claim',
      'preferred_username',
      '--devcluster-oidc-username-prefix',
      'ks:',
      // kapiserver's serving certificate comes from the data directory's local CA.
      '--devcluster-oidc-ca-file',
      join(dataDir, 'pki', 'ca.crt'),
    ],
    { KAPISERVER_ADMIN_PASSWORD: PASSWORD },
  );
});
after(async () => {
  if (kapiserver) {
    kapiserver.child.kill('SIGTERM');
    await kapiserver.exited;
  }
  if (dataDir) {
    killDevClusterOf(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("kubectl with kapiserver's ID token is that user in a cluster trusting kapiserver's issuer", {
  skip: !hasKubectl && NO_KUBECTL,
}, async () => {
  const url = `http://127.0.0.1:${kapiserver!.port}`;
  const login = await postToken(url, {
    grant_type: 'password',
    username: 'admin',
    password: PASSWORD,
    client_id: 'kubesphere',
    client_secret: 'kubesphere',
  });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  const verifier = randomBytes(32).toString('base64url');
  const authorize = await fetch(
    `${url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT,
      scope: 'openid',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })}`,
    { redirect: 'manual', headers: bearer(login.body.access_token as string) },
  );
  assert.equal(authorize.status, 302);
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const t = await postToken(url, {
    grant_type: 'authorization_code',
    code,
    client_id: CLIENT,
    code_verifier: verifier,
  });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  const idToken = t.body.id_token as string;

  const dev = devClusterOf(dataDir);
  const who = await kubectlFor({ server: dev.url, caPem: dev.caPem, token: idToken }).run([
    'auth',
    'whoami',
    '-o',
    'json',
  ]);
  assert.equal(who.status, 0, who.stderr);
  assert.equal(JSON.parse(who.stdout).status.userInfo.username, 'ks:admin');

  // kapiserver's access token is not an ID token of that issuer: the cluster refuses it.
  const access = await kubectlFor({
    server: dev.url,
    caPem: dev.caPem,
    token: login.body.access_token as string,
  }).run(['auth', 'whoami']);
  assert.notEqual(access.status, 0);
});
