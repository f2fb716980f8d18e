// pods/resize as kube-apiserver v1.33 serves it: with the real kubectl (`--subresource resize`), cpu and memory change
// in place and nothing else the patch says; in-process, kube's ValidatePodResize refusals (QoS class, removals,
// memory limits, other resources, init containers) and the sidecar exception.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Obj } from '../../../src/devcluster/store.ts';
import { StatusError } from '../../../src/k8s/status.ts';
import { startTestDevCluster, type TestDevCluster } from '../../helpers/devcluster.ts';
import { hasKubectl, kubectlFor, NO_KUBECTL } from '../../helpers/kubectl.ts';
import { createNamespace, defOf } from '../../helpers/workloads.ts';

const NS = 'resizes';
const pod = (name: string, resources: Obj, spec: Obj = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25', resources }], ...spec },
});

describe('pods/resize', { timeout: 120_000 }, () => {
  let dev: TestDevCluster;
  const pods = () => defOf(dev, '', 'pods');
  const get = (name: string) => dev.rest.get(pods(), NS, name).obj;
  const containerOf = (name: string, key = 'containers') => ((get(name).spec as Obj)[key] as Obj[])[0];
  /** Resizes the stored pod after `change`; the 422's message, or undefined when it was stored. */
  const resize = (name: string, change: (spec: Obj) => void): string | undefined => {
    const next = structuredClone(get(name));
    change(next.spec as Obj);
    try {
      dev.rest.update(pods(), NS, name, next, {}, 'resize');
      return undefined;
    } catch (err) {
      assert.ok(err instanceof StatusError && err.code === 422, String(err));
      return err.message;
    }
  };
  const setResources =
    (resources: Obj, key = 'containers') =>
    (spec: Obj) => {
      (spec[key] as Obj[])[0].resources = resources;
    };

  before(async () => {
    dev = await startTestDevCluster({ seedDemoData: false });
    createNamespace(dev, NS);
  });
  after(async () => {
    await dev?.close();
  });

  it('kubectl patch --subresource resize changes cpu and memory in place, and nothing else', {
    skip: !hasKubectl && NO_KUBECTL,
  }, async () => {
    const kubectl = kubectlFor({ server: dev.url, caPem: dev.caPem, token: dev.token });
    const k = (input: string | undefined, ...args: string[]) => kubectl.run([...args, '-n', NS], input);
    const body = pod('web', { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } });
    assert.equal((await k(JSON.stringify(body), 'create', '-f', '-')).status, 0);
    const patchResize = (patch: Obj) =>
      k(undefined, 'patch', 'pod', 'web', '--subresource', 'resize', '-p', JSON.stringify(patch));
    const resized = await patchResize({
      metadata: { labels: { app: 'changed' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '250m' } } }] },
    });
    assert.equal(resized.status, 0, resized.stderr);
    const shown = await k(
      undefined,
      'get',
      'pod',
      'web',
      '-o',
      'jsonpath={.spec.containers[0].resources.requests.cpu} {.spec.containers[0].image} {.metadata.labels.app}',
    );
    assert.equal(shown.stdout, '250m nginx:1.25 web');
    const lowered = await patchResize({
      spec: { containers: [{ name: 'app', resources: { limits: { memory: '96Mi' } } }] },
    });
    assert.match(
      lowered.stderr,
      /The Pod "web" is invalid: spec\.containers\[0\]\.resources\.limits\[memory\]: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer/,
    );
    const discovery = JSON.parse((await kubectl.run(['get', '--raw', '/api/v1'])).stdout) as {
      resources: Obj[];
    };
    assert.deepEqual(
      discovery.resources.find((r) => r.name === 'pods/resize'),
      {
        name: 'pods/resize',
        singularName: '',
        namespaced: true,
        kind: 'Pod',
        verbs: ['get', 'patch', 'update'],
      },
    );
  });

  it('keeps the QoS class, removes nothing and resizes only cpu and memory', () => {
    dev.rest.create(pods(), NS, pod('guaranteed', { limits: { cpu: '500m', memory: '128Mi' } }));
    assert.equal(
      resize(
        'guaranteed',
        setResources({
          requests: { cpu: '250m', memory: '128Mi' },
          limits: { cpu: '500m', memory: '128Mi' },
        }),
      ),
      'Pod "guaranteed" is invalid: spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing',
    );
    assert.equal(resize('guaranteed', setResources({ limits: { cpu: '1', memory: '256Mi' } })), undefined);
    assert.deepEqual(containerOf('guaranteed').resources, {
      limits: { cpu: '1', memory: '256Mi' },
      requests: { cpu: '1', memory: '256Mi' },
    });
    dev.rest.create(pods(), NS, pod('burstable', { requests: { cpu: '100m', 'ephemeral-storage': '1Gi' } }));
    assert.equal(
      resize('burstable', setResources({ requests: { cpu: '100m' } })),
      'Pod "burstable" is invalid: [spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed, spec: Forbidden: only cpu and memory resources are mutable]',
    );
    assert.equal(
      resize('burstable', setResources({ requests: { cpu: '100m', 'ephemeral-storage': '2Gi' } })),
      'Pod "burstable" is invalid: spec: Forbidden: only cpu and memory resources are mutable',
    );
    assert.equal(
      resize(
        'burstable',
        setResources({ requests: { cpu: '100m', 'ephemeral-storage': '1Gi' }, limits: { memory: '1Gi' } }),
      ),
      'Pod "burstable" is invalid: spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be added unless resizePolicy is RestartContainer',
    );
    assert.equal(
      resize('burstable', (spec) => {
        (spec.containers as Obj[])[0].resizePolicy = [
          { resourceName: 'cpu', restartPolicy: 'RestartContainer' },
        ];
      }),
      'Pod "burstable" is invalid: spec: Forbidden: only cpu and memory resources are mutable',
    );
    // A container restarted for memory changes may get a memory limit.
    const restarting = pod('restarting', { requests: { cpu: '100m', memory: '64Mi' } });
    (restarting.spec.containers[0] as Obj).resizePolicy = [
      { resourceName: 'memory', restartPolicy: 'RestartContainer' },
    ];
    dev.rest.create(pods(), NS, restarting);
    assert.equal(
      resize(
        'restarting',
        setResources({ requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } }),
      ),
      undefined,
    );
  });

  it('init containers: resources fixed, except for sidecars (restartPolicy Always)', () => {
    const init = (name: string, restartPolicy?: string) =>
      pod(
        name,
        { requests: { cpu: '100m' } },
        {
          initContainers: [
            { name: 'init', image: 'busybox', restartPolicy, resources: { requests: { cpu: '100m' } } },
          ],
        },
      );
    dev.rest.create(pods(), NS, init('with-init'));
    assert.equal(
      resize('with-init', setResources({ requests: { cpu: '300m' } }, 'initContainers')),
      'Pod "with-init" is invalid: spec: Forbidden: resources for non-sidecar init containers are immutable',
    );
    dev.rest.create(pods(), NS, init('with-sidecar', 'Always'));
    assert.equal(
      resize('with-sidecar', setResources({ requests: { cpu: '300m' } }, 'initContainers')),
      undefined,
    );
    assert.deepEqual(containerOf('with-sidecar', 'initContainers').resources, { requests: { cpu: '300m' } });
  });
});
