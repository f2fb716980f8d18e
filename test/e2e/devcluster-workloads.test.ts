// Workloads on the dev cluster with the real kubectl and @kubernetes/client-node: the controllers, the scheduler and
// the simulated kubelets together take a Deployment to Running pods (`rollout status` completes), scale, update,
// roll back, delete with and without cascading; a Job completes; a DaemonSet runs one pod per node.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADD, CoreV1Api, KubeConfig, makeInformer, UPDATE, type V1Pod } from '@kubernetes/client-node';
import { startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

if (!hasKubectl) console.log(`# skipping dev cluster workload tests: ${NO_KUBECTL}`);

let dev: TestDevCluster;
let kubectl: Kubectl;

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl.run(args);
  assert.equal(r.status, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const lines = (s: string) => s.split('\n').filter(Boolean);

describe('workloads on the dev cluster', { skip: !hasKubectl && NO_KUBECTL, timeout: 600_000 }, () => {
  before(async () => {
    dev = await startTestDevCluster();
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
  });
  after(async () => {
    await dev?.close();
  });

  it('create deployment --replicas=3, then rollout status completes with three Running pods', async () => {
    await ok('create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=3');
    const status = await ok('rollout', 'status', 'deployment/web', '--timeout=90s');
    assert.match(status, /deployment "web" successfully rolled out/);
    const phases = await ok(
      'get',
      'pods',
      '-l',
      'app=web',
      '-o',
      'jsonpath={range .items[*]}{.status.phase}{"\\n"}{end}',
    );
    assert.deepEqual(lines(phases), ['Running', 'Running', 'Running']);
  });

  it('scale, set image, rollout history and undo behave', async () => {
    await ok('scale', 'deployment/web', '--replicas=5');
    await ok('rollout', 'status', 'deployment/web', '--timeout=90s');
    assert.equal(lines(await ok('get', 'pods', '-l', 'app=web', '-o', 'name')).length, 5);

    await ok('set', 'image', 'deployment/web', 'nginx=nginx:1.26');
    assert.match(await ok('rollout', 'status', 'deployment/web', '--timeout=90s'), /successfully rolled out/);
    const images = await ok(
      'get',
      'pods',
      '-l',
      'app=web',
      '-o',
      'jsonpath={.items[*].spec.containers[0].image}',
    );
    assert.deepEqual([...new Set(images.split(' '))], ['nginx:1.26']);
    const history = await ok('rollout', 'history', 'deployment/web');
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);

    await ok('rollout', 'undo', 'deployment/web');
    await ok('rollout', 'status', 'deployment/web', '--timeout=90s');
    const image = await ok(
      'get',
      'deployment/web',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
    );
    assert.equal(image, 'nginx:1.25');
    assert.match(await ok('rollout', 'history', 'deployment/web'), /\n2\s+<none>\n3\s+<none>/);

    const missing = await kubectl.run(['rollout', 'undo', 'deployment/web', '--to-revision=99']);
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /unable to find specified revision 99 in history/);
  });

  it('delete deployment removes its ReplicaSets and pods; --cascade=orphan keeps them', async () => {
    await ok('delete', 'deployment', 'web');
    await eventually(
      async () => (await ok('get', 'replicasets,pods', '-l', 'app=web', '-o', 'name')).trim() === '',
      'web ReplicaSets and pods to go',
    );

    await ok('create', 'deployment', 'keep', '--image=nginx', '--replicas=2');
    await ok('rollout', 'status', 'deployment/keep', '--timeout=90s');
    await ok('delete', 'deployment', 'keep', '--cascade=orphan');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(lines(await ok('get', 'pods', '-l', 'app=keep', '-o', 'name')).length, 2);
    const owners = await ok(
      'get',
      'replicasets',
      '-l',
      'app=keep',
      '-o',
      'jsonpath={.items[*].metadata.ownerReferences}',
    );
    assert.equal(owners, '', 'the orphaned ReplicaSet has no owner');
  });

  it('a Job completes', async () => {
    await ok('create', 'job', 'once', '--image=busybox', '--', 'echo', 'done');
    await ok('wait', '--for=condition=complete', 'job/once', '--timeout=90s');
    assert.equal(await ok('get', 'job/once', '-o', 'jsonpath={.status.succeeded}'), '1');
  });

  it('a DaemonSet has one pod per node', async () => {
    const nodes = lines(
      await ok('get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'),
    ).sort();
    assert.ok(nodes.length > 0, 'the dev cluster has nodes');
    const manifest = JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: {
            tolerations: [{ operator: 'Exists' }],
            containers: [{ name: 'agent', image: 'fluent/fluent-bit:2' }],
          },
        },
      },
    });
    const r = await kubectl.run(['apply', '-f', '-'], manifest);
    assert.equal(r.status, 0, r.stderr);
    await ok('rollout', 'status', 'daemonset/agent', '--timeout=90s');
    const placed = lines(
      await ok(
        'get',
        'pods',
        '-l',
        'app=agent',
        '-o',
        'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}',
      ),
    ).sort();
    assert.deepEqual(placed, nodes);
  });

  it('client-node informers see pods go from Pending to Running', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(dev.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const phases = new Map<string, string[]>();
    const record = (p: V1Pod) => {
      const name = p.metadata?.name ?? '';
      if (!name.startsWith('seen-')) return;
      const seen = phases.get(name) ?? [];
      const phase = p.status?.phase ?? '';
      if (seen[seen.length - 1] !== phase) seen.push(phase);
      phases.set(name, seen);
    };
    const informer = makeInformer(kc, '/api/v1/namespaces/default/pods', () =>
      core.listNamespacedPod({ namespace: 'default' }),
    );
    informer.on(ADD, record);
    informer.on(UPDATE, record);
    await informer.start();
    try {
      await ok('create', 'deployment', 'seen', '--image=nginx', '--replicas=2');
      await eventually(
        async () => [...phases.values()].filter((p) => p.includes('Running')).length === 2,
        'two pods Running in the informer',
      );
      for (const seen of phases.values()) assert.equal(seen[0], 'Pending', `first seen Pending: ${seen}`);
    } finally {
      await informer.stop();
    }
  });
});
