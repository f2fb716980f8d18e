// The dev cluster's simulated machines with the real kubectl: a fresh start shows Running demo pods; the scheduler
// leaves a pod no node can hold Pending with kube-scheduler's FailedScheduling event and places a nodeSelector pod
// on its node; the simulated kubelet's log lines come back through `kubectl logs`; `kubectl exec` gets a clear
// refusal; a Service's Endpoints and EndpointSlice list its ready pods; deleting a pod is graceful and prompt;
// `kubectl drain` evicts a node's pods.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL } from '../helpers/kubectl.ts';

if (!hasKubectl) console.log(`# skipping dev cluster node tests: ${NO_KUBECTL}`);

let dev: TestDevCluster;
let kubectl: Kubectl;

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl.run(args);
  assert.equal(r.status, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const lines = (s: string) => s.split('\n').filter(Boolean);

describe('simulated nodes, scheduler and kubelets', {
  skip: !hasKubectl && NO_KUBECTL,
  timeout: 300_000,
}, () => {
  before(async () => {
    dev = await startTestDevCluster({ simulation: { podRunMs: 1000 } });
    kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
  });
  after(async () => {
    await dev?.close();
  });

  it('a fresh start shows Running demo and system pods made by the controllers, on Ready nodes with leases', async () => {
    const nodes = await ok(
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
    );
    assert.deepEqual(lines(nodes), ['node1 True', 'node2 True', 'node3 True']);
    const leases = await ok('get', 'leases', '-n', 'kube-node-lease', '-o', 'name');
    assert.equal(lines(leases).length, 3);
    const running = await eventually(async () => {
      const out = await ok(
        'get',
        'pods',
        '-A',
        '--field-selector=status.phase=Running',
        '-o',
        'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.ownerReferences[0].kind}{"\\n"}{end}',
      );
      const ls = lines(out);
      return ls.includes('demo/ReplicaSet') &&
        ls.includes('demo/StatefulSet') &&
        ls.includes('kube-system/DaemonSet')
        ? ls
        : undefined;
    }, 'Running demo pods');
    assert.ok(running.filter((l) => l === 'kube-system/DaemonSet').length === 3, 'kube-proxy on every node');
    await eventually(
      async () =>
        /Complete/.test(
          await ok('get', 'job', 'hello', '-n', 'demo', '-o', 'jsonpath={.status.conditions[*].type}'),
        ),
      'the demo Job to complete',
    );
  });

  it('a pod requesting more than any node has stays Pending with a FailedScheduling event', async () => {
    await ok(
      'run',
      'huge',
      '--image=nginx',
      '--overrides={"spec":{"containers":[{"name":"huge","image":"nginx","resources":{"requests":{"cpu":"64"}}}]}}',
    );
    const message = await eventually(async () => {
      const out = await ok(
        'get',
        'events',
        '--field-selector=involvedObject.name=huge,reason=FailedScheduling',
        '-o',
        'jsonpath={.items[0].message}',
      );
      return out || undefined;
    }, 'FailedScheduling');
    assert.match(
      message,
      /^0\/3 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 2 Insufficient cpu\./,
    );
    const pod = JSON.parse(await ok('get', 'pod', 'huge', '-o', 'json'));
    assert.equal(pod.status.phase, 'Pending');
    assert.equal(pod.spec.nodeName, undefined);
    const cond = pod.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled');
    assert.equal(cond.status, 'False');
    assert.equal(cond.reason, 'Unschedulable');
  });

  it('a pod waiting for room is scheduled once a node can hold it', async () => {
    await ok('run', 'later', '--image=nginx', '--overrides={"spec":{"nodeSelector":{"disk":"ssd"}}}');
    await eventually(
      async () =>
        (await ok(
          'get',
          'events',
          '--field-selector=involvedObject.name=later,reason=FailedScheduling',
          '-o',
          'name',
        )) !== '',
      'FailedScheduling',
    );
    await ok('label', 'node', 'node3', 'disk=ssd');
    const node = await eventually(
      async () => (await ok('get', 'pod', 'later', '-o', 'jsonpath={.spec.nodeName}')) || undefined,
      'binding',
    );
    assert.equal(node, 'node3');
  });

  it('a nodeSelector pod lands on its node, runs with an IP from that node, and has the kubelet events', async () => {
    await ok(
      'run',
      'pinned',
      '--image=nginx:1.27',
      '--overrides={"spec":{"nodeSelector":{"kubernetes.io/hostname":"node2"}}}',
    );
    await ok('wait', '--for=condition=Ready', 'pod/pinned', '--timeout=60s');
    const pod = JSON.parse(await ok('get', 'pod', 'pinned', '-o', 'json'));
    assert.equal(pod.spec.nodeName, 'node2');
    assert.equal(pod.status.phase, 'Running');
    assert.equal(pod.status.hostIP, '192.168.49.12');
    assert.match(pod.status.podIP, /^10\.244\.2\.\d+$/);
    assert.equal(pod.status.containerStatuses[0].ready, true);
    assert.ok(pod.status.containerStatuses[0].state.running.startedAt);
    const reasons = lines(
      await ok(
        'get',
        'events',
        '--field-selector=involvedObject.name=pinned',
        '-o',
        'jsonpath={range .items[*]}{.reason}{"\\n"}{end}',
      ),
    );
    for (const r of ['Scheduled', 'Pulled', 'Created', 'Started'])
      assert.ok(reasons.includes(r), `${r} in ${reasons}`);
  });

  it('kubectl logs returns the simulated lines; exec answers that no process runs', async () => {
    const log = await ok('logs', 'pinned');
    assert.match(log, /simulated container "pinned" \(image nginx:1\.27\) started on node node2/);
    const stamped = await ok('logs', 'pinned', '--timestamps', '--tail=1');
    assert.equal(lines(stamped).length, 1);
    assert.match(stamped, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \[kapiserver dev cluster\]/);
    const previous = await kubectl.run(['logs', 'pinned', '--previous']);
    assert.notEqual(previous.status, 0);
    assert.match(previous.stderr, /previous terminated container "pinned" in pod "pinned" not found/);

    const exec = await kubectl.run(['exec', 'pinned', '--', 'ls']);
    assert.notEqual(exec.status, 0);
    assert.match(exec.stderr, /runs no processes/);
  });

  it('kubectl logs -f of a Job-like pod ends when its container finishes', async () => {
    await ok('run', 'once', '--image=busybox', '--restart=Never', '--', 'echo', 'hi');
    await ok('wait', '--for=condition=Ready', 'pod/once', '--timeout=60s');
    const followed = await ok('logs', '-f', 'once');
    assert.match(followed, /the container would run: echo hi/);
    assert.match(followed, /simulated run finished: exit code 0/);
    assert.equal(await ok('get', 'pod', 'once', '-o', 'jsonpath={.status.phase}'), 'Succeeded');
  });

  it('endpoints of a service list its ready pods; deleting a pod is graceful and prompt', async () => {
    await ok('create', 'deployment', 'echo', '--image=nginx', '--replicas=2', '--port=80');
    await ok('expose', 'deployment', 'echo', '--port=8080', '--target-port=80');
    await ok('rollout', 'status', 'deployment/echo', '--timeout=60s');
    const ips = lines(
      await ok(
        'get',
        'pods',
        '-l',
        'app=echo',
        '-o',
        'jsonpath={range .items[*]}{.status.podIP}{"\\n"}{end}',
      ),
    ).sort();
    const endpoints = await eventually(async () => {
      const out = lines(
        await ok(
          'get',
          'endpoints',
          'echo',
          '-o',
          'jsonpath={range .subsets[*].addresses[*]}{.ip}{"\\n"}{end}',
        ),
      ).sort();
      return out.length === 2 ? out : undefined;
    }, 'two endpoints');
    assert.deepEqual(endpoints, ips);
    assert.equal(await ok('get', 'endpoints', 'echo', '-o', 'jsonpath={.subsets[0].ports[0].port}'), '80');
    const slice = JSON.parse(
      await ok('get', 'endpointslices', '-l', 'kubernetes.io/service-name=echo', '-o', 'json'),
    );
    assert.equal(slice.items.length, 1);
    assert.deepEqual(
      slice.items[0].endpoints.map((e: { addresses: string[] }) => e.addresses[0]).sort(),
      ips,
    );
    const svc = JSON.parse(await ok('get', 'service', 'echo', '-o', 'json'));
    assert.match(svc.spec.clusterIP, /^10\.9[6-9]\./);

    const victim = lines(await ok('get', 'pods', '-l', 'app=echo', '-o', 'name'))[0];
    const del = await kubectl.run(['delete', victim, '--timeout=30s']);
    assert.equal(del.status, 0, del.stderr);
    const events = await ok(
      'get',
      'events',
      `--field-selector=involvedObject.name=${victim.split('/')[1]},reason=Killing`,
      '-o',
      'name',
    );
    assert.equal(lines(events).length, 1);
    await ok('rollout', 'status', 'deployment/echo', '--timeout=60s');
    await eventually(async () => {
      const out = lines(
        await ok(
          'get',
          'endpoints',
          'echo',
          '-o',
          'jsonpath={range .subsets[*].addresses[*]}{.targetRef.name}{"\\n"}{end}',
        ),
      );
      return out.length === 2 && !out.includes(victim.split('/')[1]);
    }, 'endpoints without the deleted pod');
  });

  it('kubectl drain cordons a node and evicts its pods, which the controllers place elsewhere', async () => {
    const drained = await kubectl.run(['drain', 'node3', '--ignore-daemonsets', '--force', '--timeout=60s']);
    assert.equal(drained.status, 0, drained.stderr);
    assert.equal(await ok('get', 'node', 'node3', '-o', 'jsonpath={.spec.unschedulable}'), 'true');
    await ok('rollout', 'status', 'deployment/echo', '--timeout=60s');
    const nodes = lines(
      await ok(
        'get',
        'pods',
        '-l',
        'app=echo',
        '-o',
        'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}',
      ),
    );
    assert.equal(nodes.length, 2);
    assert.ok(!nodes.includes('node3'), nodes.join());
    await ok('uncordon', 'node3');
  });
});
