// A plain pod update changes only what kube-apiserver's ValidatePodUpdate allows: with the real kubectl, a patch or
// an edit of another spec field is refused with kube's 422 message, and `kubectl set image` is accepted (the simulated
// kubelet restarts the container with the new image, the pod stays Running); in-process, activeDeadlineSeconds, tolerations, schedulingGates and
// terminationGracePeriodSeconds follow kube's rules, a body without the server's defaults changes nothing, and
// pods/binding and pods/status still write their parts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { demoNode } from '../../../src/devcluster/simulation/nodes.ts';
import type { Obj } from '../../../src/devcluster/store.ts';
import { StatusError } from '../../../src/k8s/status.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { hasKubectl, type Kubectl, kubectlFor, NO_KUBECTL, runKubectl } from '../../helpers/kubectl.ts';
import { createNamespace, defOf, statusOf, until } from '../../helpers/workloads.ts';

const NS = 'pod-updates';
const FORBIDDEN =
  'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

const podManifest = (name: string, spec: Obj = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], ...spec },
});

describe('pod updates as kube-apiserver validates them', { timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  const pods = () => defOf(dev, '', 'pods');
  const get = (name: string) => dev.rest.get(pods(), NS, name).obj;
  const create = (name: string, spec: Obj = {}) => dev.rest.create(pods(), NS, podManifest(name, spec));
  /** Updates the stored pod after `change`; the 422's message, or undefined when it was stored. */
  const update = (name: string, change: (spec: Obj) => void): string | undefined => {
    const next = structuredClone(get(name));
    change(next.spec as Obj);
    try {
      dev.rest.update(pods(), NS, name, next);
      return undefined;
    } catch (err) {
      assert.ok(err instanceof StatusError && err.code === 422, String(err));
      return err.message;
    }
  };

  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false, simulation: { podStartMs: 50, podRunMs: 200 } });
    dev.rest.create(defOf(dev, '', 'nodes'), '', demoNode(1, false));
    createNamespace(dev, NS);
    await until(() => dev.store.list('coordination.k8s.io/leases', 'kube-node-lease').length === 1, 'lease');
  });
  after(async () => {
    await dev?.close();
  });

  describe('with kubectl', { skip: !hasKubectl && NO_KUBECTL }, () => {
    let kubectl: Kubectl;
    const k = (...args: string[]) => kubectl.run([...args, '-n', NS]);
    const phase = () => statusOf(get('web')).phase;

    before(async () => {
      kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
      const created = await kubectl.run(['create', '-n', NS, '-f', '-'], JSON.stringify(podManifest('web')));
      assert.equal(created.status, 0, created.stderr);
      await until(() => phase() === 'Running', 'web running');
    });

    it('kubectl patch of another spec field is refused with kube message', async () => {
      const patched = await k('patch', 'pod', 'web', '-p', '{"spec":{"restartPolicy":"Never"}}');
      assert.notEqual(patched.status, 0);
      assert.ok(patched.stderr.includes(`The Pod "web" is invalid: ${FORBIDDEN}\n`), patched.stderr);
      assert.match(patched.stderr, /^- \trestartPolicy: "Always",$/m);
      assert.match(patched.stderr, /^\+ \trestartPolicy: "Never",$/m);
      assert.equal((get('web').spec as Obj).restartPolicy, 'Always');
      const added = await k(
        'patch',
        'pod',
        'web',
        '--type=json',
        '-p',
        '[{"op":"add","path":"/spec/containers/-","value":{"name":"side","image":"busybox"}}]',
      );
      assert.match(added.stderr, /spec\.containers: Forbidden: pod updates may not add or remove containers/);
    });

    it('kubectl edit of a container env is refused with kube message and nothing changes', async () => {
      const home = mkdtempSync(join(tmpdir(), 'pod-edit-'));
      // The editor adds an env var; kubectl reopens it with the server's refusal, which it keeps a copy of.
      const editor = join(home, 'editor.sh');
      writeFileSync(
        editor,
        [
          '#!/bin/sh',
          'if grep -q "was not valid" "$1"; then cp "$1" "$HOME/refused.yaml"; exit 0; fi',
          `sed -i 's/^  - image: nginx:1.25$/  - env:\\n    - name: MODE\\n      value: edited\\n    image: nginx:1.25/' "$1"`,
          '',
        ].join('\n'),
        { mode: 0o700 },
      );
      const edited = await runKubectl(['edit', 'pod', 'web', '-n', NS], {
        env: { ...process.env, HOME: home, KUBECONFIG: kubectl.kubeconfig, KUBE_EDITOR: editor },
      });
      assert.notEqual(edited.status, 0);
      assert.match(edited.stderr, /error: pods "web" is invalid/);
      const refused = readFileSync(join(home, 'refused.yaml'), 'utf8');
      assert.ok(refused.includes(`# * ${FORBIDDEN}\n`), refused);
      assert.match(refused, /^# \+ \tcontainers\[0\]\.env: \[\{"name":"MODE","value":"edited"\}\],$/m);
      assert.equal(((get('web').spec as Obj).containers as Obj[])[0].env, undefined);
      rmSync(home, { recursive: true, force: true });
    });

    it('kubectl set image is accepted; the kubelet restarts the container with it and the pod stays Running', async () => {
      const set = await k('set', 'image', 'pod/web', 'app=nginx:1.27');
      assert.equal(set.status, 0, set.stderr);
      assert.equal(((get('web').spec as Obj).containers as Obj[])[0].image, 'nginx:1.27');
      const running = () => (statusOf(get('web')).containerStatuses as Obj[])[0];
      await until(() => running().image === 'nginx:1.27', 'restarted with the new image');
      const shown = await k(
        'get',
        'pod',
        'web',
        '-o',
        'jsonpath={.status.phase} {.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].lastState.terminated.reason} {.status.containerStatuses[0].ready}',
      );
      assert.equal(shown.stdout, 'Running 1 Completed true');
      await dev.controllers.idle();
      const events = await k(
        'get',
        'events',
        '--field-selector',
        'involvedObject.name=web',
        '-o',
        'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}',
      );
      assert.match(events.stdout, /^Killing: Container app definition changed, will be restarted$/m);
      assert.match(events.stdout, /^Pulled: Container image "nginx:1\.27" already present on machine$/m);
      assert.match((await k('get', 'pod', 'web')).stdout, /^web\s+1\/1\s+Running\s+1 \(/m);
    });
  });

  it('activeDeadlineSeconds: set once, then only lowered, never removed', () => {
    create('deadline');
    assert.equal(
      update('deadline', (s) => {
        s.activeDeadlineSeconds = -1;
      }),
      'Pod "deadline" is invalid: spec.activeDeadlineSeconds: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    );
    assert.equal(
      update('deadline', (s) => {
        s.activeDeadlineSeconds = 600;
      }),
      undefined,
    );
    assert.equal(
      update('deadline', (s) => {
        s.activeDeadlineSeconds = 900;
      }),
      'Pod "deadline" is invalid: spec.activeDeadlineSeconds: Invalid value: 900: must be less than or equal to previous value',
    );
    assert.equal(
      update('deadline', (s) => {
        s.activeDeadlineSeconds = 300;
      }),
      undefined,
    );
    assert.equal(
      update('deadline', (s) => {
        delete s.activeDeadlineSeconds;
      }),
      'Pod "deadline" is invalid: spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value',
    );
    assert.equal((get('deadline').spec as Obj).activeDeadlineSeconds, 300);
  });

  it('tolerations: additions and tolerationSeconds changes only', () => {
    create('tolerant', { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] });
    const tolerations = (get('tolerant').spec as Obj).tolerations as Obj[];
    assert.deepEqual(
      tolerations.map((t) => t.key),
      ['gpu', 'node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'],
      "kube's DefaultTolerationSeconds adds what the pod does not tolerate",
    );
    assert.equal(
      update('tolerant', (s) => {
        (s.tolerations as Obj[]).push({ key: 'spot', operator: 'Exists' });
        (s.tolerations as Obj[])[1].tolerationSeconds = 60;
      }),
      undefined,
    );
    assert.equal(
      update('tolerant', (s) => {
        (s.tolerations as Obj[])[0].effect = 'NoExecute';
      }),
      'Pod "tolerant" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    );
    assert.equal(
      update('tolerant', (s) => {
        (s.tolerations as Obj[]).shift();
      }),
      'Pod "tolerant" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    );
  });

  it('schedulingGates: removals only; terminationGracePeriodSeconds: only a negative one set to 1', () => {
    create('gated', { schedulingGates: [{ name: 'example.com/a' }, { name: 'example.com/b' }] });
    assert.equal(
      update('gated', (s) => {
        s.schedulingGates = [{ name: 'example.com/b' }, { name: 'example.com/c' }];
      }),
      'Pod "gated" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate \'example.com/c\'',
    );
    assert.equal(
      update('gated', (s) => {
        s.schedulingGates = [{ name: 'example.com/b' }];
      }),
      undefined,
    );
    create('graceful', { terminationGracePeriodSeconds: -5 });
    const grace = (to: number) =>
      update('graceful', (s) => {
        s.terminationGracePeriodSeconds = to;
      });
    assert.match(String(grace(10)), /spec: Forbidden: pod updates may not change fields other than/);
    assert.equal(grace(1), undefined);
    assert.match(
      String(grace(-5)),
      /^- \tterminationGracePeriodSeconds: 1,\n\+ \tterminationGracePeriodSeconds: -5,$/m,
    );
  });

  it("a body without the server's defaults, or with equal quantities written otherwise, changes nothing", () => {
    create('sized', {
      containers: [{ name: 'app', image: 'nginx:1.25', resources: { limits: { cpu: '1', memory: '1Gi' } } }],
    });
    const stored = get('sized');
    const bare = {
      ...podManifest('sized', {
        nodeName: (stored.spec as Obj).nodeName,
        // Set by admission on create only: kube refuses a body that leaves it out.
        serviceAccountName: 'default',
        containers: [
          { name: 'app', image: 'nginx:1.26', resources: { limits: { cpu: '1000m', memory: '1024Mi' } } },
        ],
      }),
      metadata: stored.metadata,
    };
    const written = dev.rest.update(pods(), NS, 'sized', bare).obj.spec as Obj;
    assert.equal((written.containers as Obj[])[0].image, 'nginx:1.26');
    assert.equal(written.serviceAccount, 'default');
    assert.equal((written.tolerations as Obj[]).length, 2);
    assert.match(
      String(
        update('sized', (s) => {
          (s.containers as Obj[])[0].resources = { limits: { cpu: '2', memory: '1Gi' } };
        }),
      ),
      /^- \tcontainers\[0\]\.resources\.limits\.cpu: "1",\n\+ \tcontainers\[0\]\.resources\.limits\.cpu: "2",\n- \tcontainers\[0\]\.resources\.requests\.cpu: "1",\n\+ \tcontainers\[0\]\.resources\.requests\.cpu: "2",$/m,
    );
  });

  it('pods/binding sets the node and pods/status the status, as before', async () => {
    create('bound', { schedulerName: 'nobody' });
    dev.rest.update(
      pods(),
      NS,
      'bound',
      { ...get('bound'), spec: { ...(get('bound').spec as Obj), nodeName: 'node1' } },
      {},
      'binding',
    );
    assert.equal((get('bound').spec as Obj).nodeName, 'node1');
    await until(() => statusOf(get('bound')).phase === 'Running', 'bound running');
  });
});
