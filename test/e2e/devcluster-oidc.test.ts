// kapiserver passes its --devcluster-oidc-* flags to the dev cluster child it starts (kube-apiserver's --oidc-*), so
// kubectl with an ID token from the trusted issuer works against that dev cluster; bad flag combinations are refused
// at start-up, by kapiserver and by `kapiserver devcluster` alike.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { devClusterOf } from '../helpers/devcluster.ts';
import { hasKubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';
import { startOidcIssuer, type TestOidcIssuer } from '../helpers/oidc-issuer.ts';
import {
  type KapiserverProcess,
  killDevClusterOf,
  localFlags,
  runKapiserver,
  startKapiserverProcess,
} from '../helpers/process.ts';

describe('OIDC trust of the embedded dev cluster, configured through kapiserver', {
  timeout: 180_000,
}, () => {
  let issuer: TestOidcIssuer;
  let dataDir: string;
  let kapiserver: KapiserverProcess | undefined;
  before(async () => {
    issuer = await startOidcIssuer('kubernetes');
    dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-oidc-'));
  });
  after(async () => {
    if (kapiserver) {
      kapiserver.child.kill('SIGTERM');
      await kapiserver.exited;
    }
    killDevClusterOf(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    await issuer?.close();
  });

  it('refuses OIDC flags that cannot work', async () => {
    const dev = await runKapiserver(['devcluster', '--data-dir', dataDir, '--oidc-client-id', 'kubernetes']);
    assert.notEqual(dev.code, 0);
    assert.match(dev.stderr, /--oidc-issuer-url is required with --oidc-client-id/);
    const plain = await runKapiserver([
      'devcluster',
      '--oidc-issuer-url',
      'http://idp.example',
      '--oidc-client-id',
      'x',
    ]);
    assert.match(plain.stderr, /--oidc-issuer-url must be an https URL/);
    const api = await runKapiserver([...localFlags(dataDir), '--devcluster-oidc-issuer-url', issuer.url]);
    assert.notEqual(api.code, 0);
    assert.match(api.stderr, /--devcluster-oidc-client-id is required/);
  });

  it('kubectl with an ID token from the trusted issuer is that user in the dev cluster', {
    skip: !hasKubectl && NO_KUBECTL,
  }, async () => {
    kapiserver = await startKapiserverProcess([
      ...localFlags(dataDir),
      '--devcluster-oidc-issuer-url',
      issuer.url,
      '--devcluster-oidc-client-id',
      'kubernetes',
      '--devcluster-oidc-username-claim',
      'email',
      '--devcluster-oidc-ca-file',
      issuer.caFile,
    ]);
    const dev = devClusterOf(dataDir);
    const token = await issuer.sign({ sub: 'u-7', email: 'cy@example.com' });
    const who = await kubectlFor({ server: dev.url, caPem: dev.caPem, token }).run([
      'auth',
      'whoami',
      '-o',
      'json',
    ]);
    assert.equal(who.status, 0, who.stderr);
    assert.equal(JSON.parse(who.stdout).status.userInfo.username, 'cy@example.com');
    const forged = await issuer.sign({ email: 'cy@example.com', aud: 'other' });
    const refused = await kubectlFor({ server: dev.url, caPem: dev.caPem, token: forged }).run([
      'get',
      'pods',
    ]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /Unauthorized|must be logged in/);
  });
});
