// First start: the admin user (random password printed once and kept 0600, or the configured/env one), its
// platform-admin binding, users created with kubectl getting hashed, login history pruned by age.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { devRest, eventually, login, postToken } from '../../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

const stacks: TestStack[] = [];
after(async () => {
  for (const s of stacks) await s.close();
});

test('without a configured password, admin gets a random one: printed once, written 0600, it logs in', async () => {
  let printed = '';
  // The console message goes to stderr: stdout carries only JSON log lines.
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    printed += chunk.toString();
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  let stack: TestStack;
  try {
    stack = await startTestStack({
      configDocument: { authentication: { adminPassword: '', loginHistoryRetentionPeriod: '1s' } },
    });
    stacks.push(stack);
  } finally {
    process.stderr.write = write;
  }
  const file = join(stack.dataDir, 'initial-admin-password');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const password = readFileSync(file, 'utf8').trim();
  assert.ok(password.length >= 20);
  assert.ok(printed.includes(password), 'the password is printed once on the console');
  assert.notEqual(password, 'P@88w0rd');
  const t = await login(stack, 'admin', password);
  assert.equal(t.token_type, 'Bearer');
  const rest = devRest(stack);
  const grb = await rest.get<{ roleRef: { name: string }; subjects: { name: string }[] }>(
    '/apis/iam.kubesphere.io/v1alpha2/globalrolebindings/admin',
  );
  assert.equal(grb.roleRef.name, 'platform-admin');
  assert.equal(grb.subjects[0].name, 'admin');

  // Login history older than loginHistoryRetentionPeriod (1s here) is pruned at the next record.
  const records = async () =>
    (
      await rest.list(
        '/apis/iam.kubesphere.io/v1alpha2/loginrecords?labelSelector=iam.kubesphere.io%2Fuser-ref%3Dadmin',
      )
    ).items;
  await eventually(async () => (await records()).length > 0, 15_000, 'a login record');
  const first = (await records()).map((r) => r.metadata?.name);
  await new Promise((r) => setTimeout(r, 2100));
  await login(stack, 'admin', password);
  await eventually(
    async () => {
      const names = (await records()).map((r) => r.metadata?.name);
      return names.length > 0 && names.every((n) => !first.includes(n));
    },
    15_000,
    'old records pruned',
  );
});

test('KAPISERVER_ADMIN_PASSWORD wins over the configuration file', async () => {
  process.env.KAPISERVER_ADMIN_PASSWORD = 'From-Env-Passw0rd';
  let stack: TestStack;
  try {
    stack = await startTestStack({
      configDocument: { authentication: { adminPassword: 'From-File-Passw0rd' } },
    });
    stacks.push(stack);
  } finally {
    delete process.env.KAPISERVER_ADMIN_PASSWORD;
  }
  await login(stack, 'admin', 'From-Env-Passw0rd');
  const r = await postToken(stack.url, {
    grant_type: 'password',
    username: 'admin',
    password: 'From-File-Passw0rd',
    client_id: 'kubesphere',
    client_secret: 'kubesphere',
  });
  assert.equal(r.status, 400);
});

test('a user applied with kubectl and a plaintext password is hashed, then logs in', async (t) => {
  if (spawnSync('/usr/bin/kubectl', ['version', '--client'], { encoding: 'utf8' }).error) {
    return t.skip('kubectl is not installed');
  }
  const stack = stacks[0];
  const manifest = join(stack.dataDir, 'user.yaml');
  writeFileSync(
    manifest,
    [
      'apiVersion: iam.kubesphere.io/v1alpha2',
      'kind: User',
      'metadata:',
      '  name: kubectl-user',
      'spec:',
      '  email: kubectl-user@example.com',
      '  password: Plain-Passw0rd',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, HOME: stack.dataDir, KUBECACHEDIR: join(stack.dataDir, 'kubecache') };
  // Asynchronously: the dev cluster serves from this very process, so a blocking spawn would starve it.
  const kubectl = (...args: string[]) =>
    promisify(execFile)('/usr/bin/kubectl', ['--kubeconfig', stack.dev.kubeconfigPath, ...args], {
      encoding: 'utf8',
      env,
    });
  const r = await kubectl('apply', '--validate=false', '-f', manifest);
  assert.match(r.stdout, /kubectl-user created/);
  await eventually(
    async () => {
      const g = await kubectl(
        'get',
        'users.iam.kubesphere.io',
        'kubectl-user',
        '-o',
        'jsonpath={.spec.password}',
      );
      return g.stdout.startsWith('$2b$10$');
    },
    20_000,
    'hashed password',
  );
  await eventually(
    async () => (await login(stack, 'kubectl-user', 'Plain-Passw0rd')).access_token,
    15_000,
    'login',
  );
});
