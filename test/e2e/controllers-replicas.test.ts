// The controllers under their Lease with several replicas on one dev cluster: two kapiservers (sharing a Redis token
// store when redis-server is installed) elect one leader, only the leader writes (each replica reaches the cluster
// through its own recording hop, test/helpers/spy.ts; the user controller included), and the other takes over when the
// leader stops. A replica killed with SIGKILL in the middle of creating workspaces leaves nothing half-created once a
// new one has taken over.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { ClusterConnection, isNotFound, KubeRest } from '../../src/apiserver/cluster/index.ts';
import { type DevCluster, startDevCluster } from '../../src/devcluster/index.ts';
import { eventually } from '../helpers/oauth.ts';
import { localFlags, startKapiserverProcess } from '../helpers/process.ts';
import { redisUnavailableReason, startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { type Spy, startSpy } from '../helpers/spy.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

const TEMPLATES = '/apis/tenant.kubesphere.io/v1alpha2/workspacetemplates';
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kubesphere-system/leases/kapiserver-controllers';
let dir: string;
let dev: DevCluster;
let rest: KubeRest;
let redis: TestRedis | undefined;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-replicas-'));
  dev = await startDevCluster({ dataDir: join(dir, 'dev'), port: 0, logger: pino({ level: 'silent' }) });
  rest = new KubeRest(ClusterConnection.fromFile(dev.kubeconfigPath));
  if (!redisUnavailableReason()) redis = await startRedis();
});
after(async () => {
  await redis?.stop();
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

const template = (name: string) => ({
  apiVersion: 'tenant.kubesphere.io/v1alpha2',
  kind: 'WorkspaceTemplate',
  metadata: { name },
  spec: { template: { spec: { manager: 'admin' } }, placement: {} },
});

const exists = async (path: string) => {
  try {
    await rest.get(path);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
};

/** A workspace is whole: its Workspace, the four initial roles and the manager's binding. */
async function whole(ws: string): Promise<boolean> {
  const paths = [
    `/apis/tenant.kubesphere.io/v1alpha1/workspaces/${ws}`,
    ...['admin', 'regular', 'viewer', 'self-provisioner'].map(
      (r) => `/apis/iam.kubesphere.io/v1alpha2/workspaceroles/${ws}-${r}`,
    ),
    `/apis/iam.kubesphere.io/v1alpha2/workspacerolebindings/${ws}-admin`,
  ];
  for (const p of paths) if (!(await exists(p))) return false;
  return true;
}

/** Controller writes a replica sent: anything but reads, Lease renewals, login records and its own start-up. */
const controllerWrites = (spy: Spy) =>
  spy.seen.filter(
    (s) =>
      s.method !== 'GET' &&
      /^\/apis\/(tenant\.kubesphere\.io|iam\.kubesphere\.io\/v1alpha2\/workspacerole)/.test(s.url),
  ).length;

test('two replicas elect one leader; only it writes; the other takes over when it stops', async () => {
  const doc = {
    ...(redis ? { redis: { host: '127.0.0.1', port: redis.port } } : {}),
    authentication: { adminPassword: 'Shared-Adm1n-Password' },
  };
  const spies = [await startSpy(dev, join(dir, 'spy-a')), await startSpy(dev, join(dir, 'spy-b'))];
  const stacks: TestStack[] = [];
  try {
    for (const spy of spies)
      stacks.push(
        await startTestStack({ configDocument: doc, dev, clusterKubeconfigPath: spy.kubeconfigPath }),
      );
    // Start-up writes (built-in objects, created by each replica when missing) are over once system-workspace is
    // whole; from then on only controllers write.
    await eventually(() => whole('system-workspace'), 20_000, 'system-workspace whole');
    const before = spies.map(controllerWrites);
    await rest.create(TEMPLATES, template('replicas-one'));
    await eventually(() => whole('replicas-one'), 20_000, 'replicas-one whole');
    const writes = spies.map((s, i) => controllerWrites(s) - before[i]);
    const leader = writes.findIndex((n) => n > 0);
    assert.ok(leader >= 0, 'a leader wrote');
    assert.equal(writes[1 - leader], 0, `the other replica wrote nothing (writes: ${writes})`);
    const renewals = spies.map(
      (s) => s.seen.filter((x) => x.method === 'PUT' && x.url.startsWith(LEASE)).length,
    );
    assert.equal(renewals[1 - leader], 0, 'only the leader renews the Lease');

    // The user controller too: a plaintext password is hashed by the leader alone.
    const userPath = '/apis/iam.kubesphere.io/v1alpha2/users/replicas-user';
    await rest.create('/apis/iam.kubesphere.io/v1alpha2/users', {
      apiVersion: 'iam.kubesphere.io/v1alpha2',
      kind: 'User',
      metadata: { name: 'replicas-user' },
      spec: { email: 'replicas-user@example.com', password: 'Plain-Passw0rd' },
    });
    await eventually(
      async () => (await rest.get<{ spec: { password: string } }>(userPath)).spec.password.startsWith('$2'),
      20_000,
      'the password hashed',
    );
    const userWrites = spies.map(
      (s) => s.seen.filter((x) => x.method !== 'GET' && x.url.startsWith(userPath)).length,
    );
    assert.ok(userWrites[leader] > 0, 'the leader hashed the password');
    assert.equal(userWrites[1 - leader], 0, 'the other replica wrote no user');

    // The leader stops (and hands the Lease back): the other one acquires it and does the work.
    await stacks.splice(leader, 1)[0].close();
    await rest.create(TEMPLATES, template('replicas-two'));
    await eventually(() => whole('replicas-two'), 20_000, 'replicas-two whole after the takeover');
    assert.ok(controllerWrites(spies[1 - leader]) - before[1 - leader] > 0, 'the new leader wrote');
  } finally {
    for (const s of stacks) await s.close();
    for (const s of spies) await s.stop();
  }
});

test('a replica killed in the middle leaves nothing half-created once another takes over', async () => {
  // As a replica that died between steps would leave it: a template with the finalizer and its Workspace, no roles.
  await rest.create(TEMPLATES, {
    ...template('half-made'),
    metadata: { name: 'half-made', finalizers: ['finalizers.workspacetemplate.kubesphere.io'] },
  });
  await rest.create('/apis/tenant.kubesphere.io/v1alpha1/workspaces', {
    apiVersion: 'tenant.kubesphere.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name: 'half-made' },
    spec: { manager: 'admin' },
  });
  const start = (name: string) =>
    startKapiserverProcess(localFlags(join(dir, name), dev.kubeconfigPath), {
      KAPISERVER_ADMIN_PASSWORD: 'Shared-Adm1n-Password',
    });
  const first = await start('kill-a');
  const names = Array.from({ length: 5 }, (_, i) => `killed-${i}`);
  try {
    for (const n of names) await rest.create(TEMPLATES, template(n));
    // Killed as soon as it has begun: some workspaces are done, some half-done, some untouched.
    await eventually(
      () => exists('/apis/tenant.kubesphere.io/v1alpha1/workspaces/killed-0'),
      20_000,
      'work started',
    );
  } finally {
    first.child.kill('SIGKILL');
    await first.exited;
  }
  const second = await start('kill-b');
  try {
    // The new replica waits out the dead holder's Lease (15 s), then converges every workspace.
    for (const n of ['half-made', ...names]) await eventually(() => whole(n), 40_000, `${n} whole`);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
});
