// The kubeconfig reader against what kubectl itself reads from the same files: `kubectl config view --raw --minify
// --flatten` picks the current context and inlines the certificate files (resolved against the kubeconfig's
// directory), so the reader must find the same cluster and user in the original file and in kubectl's view of it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  type ClusterAccess,
  parseKubeconfig,
  readKubeconfig,
} from '../../../src/apiserver/cluster/kubeconfig.ts';
import { hasKubectl, KUBECTL, NO_KUBECTL } from '../../helpers/kubectl.ts';

const root = mkdtempSync(join(tmpdir(), 'kapiserver-kubeconfig-'));
after(() => rmSync(root, { recursive: true, force: true }));

const dir = join(root, 'conf');
mkdirSync(dir);
writeFileSync(join(dir, 'ca.crt'), 'CA PEM\n');
writeFileSync(join(dir, 'client.crt'), 'CERT PEM\n');
writeFileSync(join(root, 'client.key'), 'KEY PEM\n');
writeFileSync(join(dir, 'token'), 'file-token\n');

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A kubeconfig with two clusters, three users and three contexts; `current` picks one. */
function kubeconfig(name: string, current: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters:
- name: files
  cluster: {server: "https://files.example:6443/", certificate-authority: ca.crt}
- name: inline
  cluster: {server: "https://inline.example", certificate-authority-data: ${b64('INLINE CA')}, insecure-skip-tls-verify: true}
users:
- name: certs
  user: {client-certificate: client.crt, client-key: ${join(root, 'client.key')}, tokenFile: token}
- name: basic
  user: {username: bob, password: secret}
- name: bearer
  user: {token: inline-token, client-certificate-data: ${b64('INLINE CERT')}, client-key-data: ${b64('INLINE KEY')}}
contexts:
- name: one
  context: {cluster: files, user: certs}
- name: two
  context: {cluster: inline, user: basic}
- name: three
  context: {cluster: files, user: bearer}
current-context: ${current}
`,
  );
  return path;
}

const cases: [string, ClusterAccess][] = [
  [
    'one',
    {
      server: 'https://files.example:6443/',
      ca: 'CA PEM\n',
      cert: 'CERT PEM\n',
      key: 'KEY PEM\n',
      insecureSkipVerify: false,
      token: undefined,
      tokenFile: join(dir, 'token'),
      username: undefined,
      password: undefined,
    },
  ],
  [
    'two',
    {
      server: 'https://inline.example',
      ca: 'INLINE CA',
      cert: undefined,
      key: undefined,
      insecureSkipVerify: true,
      token: undefined,
      tokenFile: undefined,
      username: 'bob',
      password: 'secret',
    },
  ],
  [
    'three',
    {
      server: 'https://files.example:6443/',
      ca: 'CA PEM\n',
      cert: 'INLINE CERT',
      key: 'INLINE KEY',
      insecureSkipVerify: false,
      token: 'inline-token',
      tokenFile: undefined,
      username: undefined,
      password: undefined,
    },
  ],
];

for (const [context, expected] of cases) {
  test(`context ${context}: the current context's cluster and user, relative paths from the kubeconfig's directory`, () => {
    assert.deepEqual(readKubeconfig(kubeconfig(`${context}.yaml`, context)), expected);
  });

  test(`context ${context}: the same as what kubectl reads from the file`, {
    skip: !hasKubectl && NO_KUBECTL,
  }, () => {
    const path = kubeconfig(`${context}-kubectl.yaml`, context);
    const view = execFileSync(
      KUBECTL,
      ['config', 'view', '--raw', '--minify', '--flatten', '--kubeconfig', path],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    // kubectl leaves tokenFile as written: relative to the kubeconfig's directory.
    assert.deepEqual(parseKubeconfig(view, dir), expected);
  });
}

test('a missing piece is named in the error, with the file', () => {
  const path = join(root, 'broken.yaml');
  const doc = (body: string) => {
    writeFileSync(path, body);
    return () => readKubeconfig(path);
  };
  assert.throws(doc('clusters: []\n'), { message: `kubeconfig ${path}: current-context is not set` });
  assert.throws(doc('current-context: x\n'), {
    message: `kubeconfig ${path}: context "x" is not defined under contexts`,
  });
  assert.throws(doc('current-context: x\ncontexts: [{name: x, context: {user: u}}]\n'), {
    message: `kubeconfig ${path}: context "x" names no cluster`,
  });
  assert.throws(doc('current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n'), {
    message: `kubeconfig ${path}: cluster "c" is not defined under clusters`,
  });
  assert.throws(
    doc(
      'current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {}}]\n',
    ),
    { message: `kubeconfig ${path}: cluster "c" has no server` },
  );
  assert.throws(
    doc(
      'current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: "https://c"}}]\n',
    ),
    { message: `kubeconfig ${path}: user "u" is not defined under users` },
  );
  assert.throws(() => readKubeconfig(join(root, 'absent.yaml')), /kubeconfig .*absent\.yaml: ENOENT/);
});

test('a context without a user: no credentials', () => {
  const access = parseKubeconfig(
    'current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\nclusters: [{name: c, cluster: {server: "http://c"}}]\n',
    root,
  );
  assert.equal(access.server, 'http://c');
  assert.equal(access.token, undefined);
  assert.equal(access.cert, undefined);
});
