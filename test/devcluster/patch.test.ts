// JSON patch, merge patch and strategic merge patch, table-driven; includes the exact bodies kubectl sends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  MERGE_KEYS,
  type Obj,
  PATCH_SCHEMA,
} from '../../src/devcluster/patch/index.ts';
import { StatusError } from '../../src/k8s/status.ts';

const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };
const POD = { group: '', version: 'v1', kind: 'Pod' };
const SERVICE = { group: '', version: 'v1', kind: 'Service' };
const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };
const WIDGET = { group: 'example.com', version: 'v1', kind: 'Widget' };

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    return { code: err.code, reason: err.reason, message: err.message };
  }
  assert.fail('expected the call to throw');
}

describe('applyJsonPatch (RFC 6902)', () => {
  const doc = { a: { b: 'c' }, list: [1, 2, 3], 'x/y': 1, 'm~n': 2 };
  const cases: { name: string; ops: unknown[]; want: Obj }[] = [
    {
      name: 'add a field',
      ops: [{ op: 'add', path: '/a/d', value: 1 }],
      want: { ...doc, a: { b: 'c', d: 1 } },
    },
    {
      name: 'add replaces an existing field',
      ops: [{ op: 'add', path: '/a/b', value: 'z' }],
      want: { ...doc, a: { b: 'z' } },
    },
    {
      name: 'add into a list at an index',
      ops: [{ op: 'add', path: '/list/1', value: 9 }],
      want: { ...doc, list: [1, 9, 2, 3] },
    },
    {
      name: 'add at the end with -',
      ops: [{ op: 'add', path: '/list/-', value: 4 }],
      want: { ...doc, list: [1, 2, 3, 4] },
    },
    { name: 'remove a list item', ops: [{ op: 'remove', path: '/list/0' }], want: { ...doc, list: [2, 3] } },
    { name: 'remove a field', ops: [{ op: 'remove', path: '/a/b' }], want: { ...doc, a: {} } },
    {
      name: 'replace a value',
      ops: [{ op: 'replace', path: '/list/2', value: 30 }],
      want: { ...doc, list: [1, 2, 30] },
    },
    {
      name: '~1 escapes a slash and ~0 a tilde',
      ops: [
        { op: 'replace', path: '/x~1y', value: 10 },
        { op: 'replace', path: '/m~0n', value: 20 },
      ],
      want: { ...doc, 'x/y': 10, 'm~n': 20 },
    },
    {
      name: 'move a value',
      ops: [{ op: 'move', from: '/a/b', path: '/moved' }],
      want: { ...doc, a: {}, moved: 'c' },
    },
    {
      name: 'copy a value',
      ops: [{ op: 'copy', from: '/list', path: '/copy' }],
      want: { ...doc, copy: [1, 2, 3] },
    },
    {
      name: 'a passing test then a change',
      ops: [
        { op: 'test', path: '/a', value: { b: 'c' } },
        { op: 'add', path: '/t', value: true },
      ],
      want: { ...doc, t: true },
    },
    {
      name: 'kubectl patch --type=json on labels',
      ops: [{ op: 'add', path: '/metadata', value: { labels: { app: 'x' } } }],
      want: { ...doc, metadata: { labels: { app: 'x' } } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const input = structuredClone(doc);
      assert.deepEqual(applyJsonPatch(input, c.ops), c.want);
      assert.deepEqual(input, doc, 'the input is not mutated');
    });
  }

  const failures: { name: string; ops: unknown; code: number; reason: string }[] = [
    {
      name: 'a failed test is 422',
      ops: [{ op: 'test', path: '/a/b', value: 'nope' }],
      code: 422,
      reason: 'Invalid',
    },
    {
      name: 'remove of a missing key is 422',
      ops: [{ op: 'remove', path: '/nope' }],
      code: 422,
      reason: 'Invalid',
    },
    {
      name: 'replace of a missing key is 422',
      ops: [{ op: 'replace', path: '/nope', value: 1 }],
      code: 422,
      reason: 'Invalid',
    },
    {
      name: 'add under a missing parent is 422',
      ops: [{ op: 'add', path: '/no/such', value: 1 }],
      code: 422,
      reason: 'Invalid',
    },
    {
      name: 'an index past the end is 422',
      ops: [{ op: 'add', path: '/list/7', value: 1 }],
      code: 422,
      reason: 'Invalid',
    },
    { name: 'an unknown op is 422', ops: [{ op: 'frobnicate', path: '/a' }], code: 422, reason: 'Invalid' },
    {
      name: 'a path without a slash is 422',
      ops: [{ op: 'remove', path: 'a' }],
      code: 422,
      reason: 'Invalid',
    },
    { name: 'a body that is not a list is 400', ops: { op: 'add' }, code: 400, reason: 'BadRequest' },
    { name: 'an operation that is not an object is 400', ops: ['add'], code: 400, reason: 'BadRequest' },
    {
      name: 'more than 10000 operations is 413',
      ops: Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: { b: 'c' } })),
      code: 413,
      reason: 'RequestEntityTooLarge',
    },
  ];
  for (const c of failures) {
    it(c.name, () => {
      const s = statusOf(() => applyJsonPatch(structuredClone(doc), c.ops));
      assert.equal(s.code, c.code);
      assert.equal(s.reason, c.reason);
    });
  }

  it('a failed operation leaves no partial change behind', () => {
    const input = structuredClone(doc);
    statusOf(() =>
      applyJsonPatch(input, [
        { op: 'add', path: '/z', value: 1 },
        { op: 'test', path: '/z', value: 2 },
      ]),
    );
    assert.deepEqual(input, doc);
  });
});

describe('applyMergePatch (RFC 7386)', () => {
  // The examples of RFC 7386 appendix A that apply to objects.
  const cases: [Obj, unknown, Obj][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  cases.forEach(([target, patch, want], i) => {
    it(`RFC 7386 example ${i + 1}`, () => assert.deepEqual(applyMergePatch(target, patch), want));
  });

  it('kubectl label sets and removes labels with a merge patch', () => {
    const cm = { metadata: { name: 'c', labels: { keep: '1', drop: 'x' } }, data: { k: 'v' } };
    const out = applyMergePatch(cm, { metadata: { labels: { drop: null, added: 'yes' } } });
    assert.deepEqual(out.metadata, { name: 'c', labels: { keep: '1', added: 'yes' } });
  });

  it('kubectl annotate --overwrite', () => {
    const cm = { metadata: { name: 'c', annotations: { a: 'old' } } };
    const out = applyMergePatch(cm, { metadata: { annotations: { a: 'new' } } });
    assert.deepEqual(out.metadata, { name: 'c', annotations: { a: 'new' } });
  });

  it('kubectl scale patches the scale subresource', () => {
    const scale = {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 1 },
      status: { replicas: 1 },
    };
    assert.deepEqual(applyMergePatch(scale, { spec: { replicas: 3 } }).spec, { replicas: 3 });
  });

  it('a patch that is not an object is 400', () => {
    assert.equal(statusOf(() => applyMergePatch({}, [1])).code, 400);
    assert.equal(statusOf(() => applyMergePatch({}, 'x')).code, 400);
  });
});

function deployment(containers: Obj[], extra: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers, restartPolicy: 'Always' },
      },
      ...extra,
    },
  };
}

const nginx = {
  name: 'nginx',
  image: 'nginx:1.25',
  imagePullPolicy: 'IfNotPresent',
  ports: [{ containerPort: 80, protocol: 'TCP' }],
  env: [
    { name: 'A', value: '1' },
    { name: 'B', value: '2' },
  ],
  resources: {},
  terminationMessagePath: '/dev/termination-log',
};

const containersOf = (o: Obj) =>
  ((o.spec as Obj).template as { spec: { containers: Obj[] } }).spec.containers;

describe('applyStrategicMergePatch', () => {
  it('kubectl apply a second time: $setElementOrder/containers and a changed image', () => {
    const live = deployment([nginx]);
    (live.metadata as Obj).annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': '{"old":true}\n',
    };
    // The body kubectl 1.32 sends for `kubectl apply -f` after the image changed in the manifest.
    const patch = JSON.parse(
      '{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\\"new\\":true}\\n"}},' +
        '"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],' +
        '"containers":[{"image":"nginx:1.26","name":"nginx"}]}}}}',
    );
    const out = applyStrategicMergePatch(live, patch, DEPLOYMENT);
    assert.deepEqual(containersOf(out), [{ ...nginx, image: 'nginx:1.26' }]);
    assert.deepEqual((out.metadata as Obj).annotations, {
      'kubectl.kubernetes.io/last-applied-configuration': '{"new":true}\n',
    });
    assert.equal((out.spec as Obj).replicas, 2, 'untouched fields stay');
    assert.ok(!JSON.stringify(out).includes('$setElementOrder'), 'no directive leaks into the object');
  });

  it('kubectl apply: a container removed ($patch: delete) and one added, in the given order', () => {
    const live = deployment([
      { name: 'a', image: 'a' },
      { name: 'b', image: 'b' },
    ]);
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }],
            containers: [
              { name: 'c', image: 'c' },
              { $patch: 'delete', name: 'a' },
            ],
          },
        },
      },
    };
    const out = applyStrategicMergePatch(live, patch, DEPLOYMENT);
    assert.deepEqual(containersOf(out), [
      { name: 'c', image: 'c' },
      { name: 'b', image: 'b' },
    ]);
  });

  it('kubectl apply: env var changed, one removed, order kept by $setElementOrder/env', () => {
    const live = deployment([nginx]);
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'nginx' }],
            containers: [
              {
                name: 'nginx',
                '$setElementOrder/env': [{ name: 'B' }, { name: 'C' }],
                env: [
                  { name: 'B', value: '20' },
                  { name: 'C', value: '3' },
                  { $patch: 'delete', name: 'A' },
                ],
              },
            ],
          },
        },
      },
    };
    const out = applyStrategicMergePatch(live, patch, DEPLOYMENT);
    assert.deepEqual(containersOf(out)[0].env, [
      { name: 'B', value: '20' },
      { name: 'C', value: '3' },
    ]);
    assert.deepEqual(containersOf(out)[0].ports, nginx.ports);
  });

  it('containers merge by name inside CronJob job templates', () => {
    const live = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      spec: {
        schedule: '* * * * *',
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1', args: ['x'] }] } } },
        },
      },
    };
    const patch = {
      spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:2' }] } } } } },
    };
    const out = applyStrategicMergePatch(live, patch, { group: 'batch', version: 'v1', kind: 'CronJob' });
    assert.deepEqual(
      (out as { spec: { jobTemplate: { spec: { template: { spec: unknown } } } } }).spec.jobTemplate.spec
        .template.spec,
      {
        containers: [{ name: 'a', image: 'a:2', args: ['x'] }],
      },
    );
  });

  const podCases: { name: string; live: Obj; patch: Obj; want: Obj }[] = [
    {
      name: 'container ports merge by containerPort',
      live: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, name: 'http' }] }] } },
      patch: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 443, name: 'https' }] }] } },
      want: {
        spec: {
          containers: [
            {
              name: 'c',
              ports: [
                { containerPort: 443, name: 'https' },
                { containerPort: 80, name: 'http' },
              ],
            },
          ],
        },
      },
    },
    {
      name: 'volumes merge by name and volumeMounts by mountPath',
      live: {
        spec: {
          volumes: [{ name: 'v1', emptyDir: {} }],
          containers: [{ name: 'c', volumeMounts: [{ mountPath: '/a', name: 'v1' }] }],
        },
      },
      patch: {
        spec: {
          volumes: [{ name: 'v2', configMap: { name: 'cm' } }],
          containers: [{ name: 'c', volumeMounts: [{ mountPath: '/a', readOnly: true }] }],
        },
      },
      want: {
        spec: {
          volumes: [
            { name: 'v2', configMap: { name: 'cm' } },
            { name: 'v1', emptyDir: {} },
          ],
          containers: [{ name: 'c', volumeMounts: [{ mountPath: '/a', name: 'v1', readOnly: true }] }],
        },
      },
    },
    {
      name: '$retainKeys inside a volume clears the other volume source',
      live: { spec: { volumes: [{ name: 'v', emptyDir: {} }] } },
      patch: {
        spec: {
          '$setElementOrder/volumes': [{ name: 'v' }],
          volumes: [
            { $retainKeys: ['hostPath', 'name'], name: 'v', hostPath: { path: '/tmp' }, emptyDir: null },
          ],
        },
      },
      want: { spec: { volumes: [{ name: 'v', hostPath: { path: '/tmp' } }] } },
    },
    {
      name: 'imagePullSecrets merge by name',
      live: { spec: { imagePullSecrets: [{ name: 'a' }] } },
      patch: { spec: { imagePullSecrets: [{ name: 'b' }] } },
      want: { spec: { imagePullSecrets: [{ name: 'b' }, { name: 'a' }] } },
    },
    {
      name: 'tolerations have no merge key and are replaced',
      live: { spec: { tolerations: [{ key: 'a', operator: 'Exists' }] } },
      patch: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } },
      want: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } },
    },
    {
      name: 'args (no metadata) are replaced as a whole',
      live: { spec: { containers: [{ name: 'c', args: ['a', 'b'] }] } },
      patch: { spec: { containers: [{ name: 'c', args: ['z'] }] } },
      want: { spec: { containers: [{ name: 'c', args: ['z'] }] } },
    },
    {
      name: 'status conditions merge by type',
      live: {
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'PodScheduled', status: 'True' },
          ],
        },
      },
      patch: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      want: {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'PodScheduled', status: 'True' },
          ],
        },
      },
    },
    {
      name: 'finalizers merge as a set and $deleteFromPrimitiveList removes',
      live: { metadata: { finalizers: ['a', 'b'] } },
      patch: { metadata: { finalizers: ['c', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'] } },
      want: { metadata: { finalizers: ['c', 'a'] } },
    },
    {
      name: 'ownerReferences merge by uid',
      live: { metadata: { ownerReferences: [{ uid: '1', name: 'a' }] } },
      patch: { metadata: { ownerReferences: [{ uid: '2', name: 'b' }] } },
      want: {
        metadata: {
          ownerReferences: [
            { uid: '2', name: 'b' },
            { uid: '1', name: 'a' },
          ],
        },
      },
    },
    {
      name: 'null deletes a field',
      live: { spec: { nodeName: 'n1', hostname: 'h' } },
      patch: { spec: { nodeName: null } },
      want: { spec: { hostname: 'h' } },
    },
    {
      name: '$patch: replace on a map replaces it',
      live: { metadata: { labels: { a: '1', b: '2' } } },
      patch: { metadata: { labels: { $patch: 'replace', c: '3' } } },
      want: { metadata: { labels: { c: '3' } } },
    },
    {
      name: '$patch: delete on a map empties it',
      live: { spec: { securityContext: { runAsUser: 1 } } },
      patch: { spec: { securityContext: { $patch: 'delete' } } },
      want: { spec: { securityContext: {} } },
    },
    {
      name: '$patch: replace on a list replaces it',
      live: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
      patch: { spec: { containers: [{ name: 'z', image: 'z' }, { $patch: 'replace' }] } },
      want: { spec: { containers: [{ name: 'z', image: 'z' }] } },
    },
    {
      name: 'explicit $patch: merge behaves like a plain merge',
      live: { metadata: { labels: { a: '1' } } },
      patch: { metadata: { labels: { $patch: 'merge', b: '2' } } },
      want: { metadata: { labels: { a: '1', b: '2' } } },
    },
    {
      name: 'a new list gets its directives removed',
      live: { spec: {} },
      patch: { spec: { containers: [{ name: 'a' }, { name: 'gone', $patch: 'delete' }] } },
      want: { spec: { containers: [{ name: 'a' }] } },
    },
    {
      name: '$setElementOrder alone reorders the live list',
      live: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
      patch: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } },
      want: { spec: { containers: [{ name: 'b' }, { name: 'a' }] } },
    },
    {
      name: 'a server-only item keeps its place before patched items',
      live: { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
      patch: { spec: { containers: [{ name: 'c', image: 'x' }] } },
      want: { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c', image: 'x' }] } },
    },
  ];
  for (const c of podCases) {
    it(c.name, () => assert.deepEqual(applyStrategicMergePatch(c.live, c.patch, POD), c.want));
  }

  it('Deployment strategy uses $retainKeys (kubectl switches RollingUpdate -> Recreate)', () => {
    const live = deployment([nginx]);
    const patch = { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } };
    const out = applyStrategicMergePatch(live, patch, DEPLOYMENT);
    assert.deepEqual((out.spec as Obj).strategy, { type: 'Recreate' });
  });

  it('Service ports merge by port', () => {
    const live = { spec: { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }], type: 'ClusterIP' } };
    const patch = { spec: { ports: [{ port: 80, targetPort: 9090 }] } };
    assert.deepEqual(applyStrategicMergePatch(live, patch, SERVICE), {
      spec: { ports: [{ port: 80, targetPort: 9090, protocol: 'TCP' }], type: 'ClusterIP' },
    });
  });

  it('ConfigMap data merges as a map', () => {
    const live = { data: { a: '1', b: '2' } };
    assert.deepEqual(applyStrategicMergePatch(live, { data: { b: null, c: '3' } }, CONFIGMAP), {
      data: { a: '1', c: '3' },
    });
  });

  it('unknown kinds: maps merge, lists are replaced, metadata lists still merge', () => {
    const live = { metadata: { finalizers: ['a'] }, spec: { items: [{ name: 'x' }], m: { a: 1 } } };
    const patch = { metadata: { finalizers: ['b'] }, spec: { items: [{ name: 'y' }], m: { b: 2 } } };
    assert.deepEqual(applyStrategicMergePatch(live, patch, WIDGET), {
      metadata: { finalizers: ['b', 'a'] },
      spec: { items: [{ name: 'y' }], m: { a: 1, b: 2 } },
    });
  });

  it('does not mutate its inputs', () => {
    const live = deployment([nginx]);
    const before = structuredClone(live);
    const patch = { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'x' }] } } } };
    const patchBefore = structuredClone(patch);
    applyStrategicMergePatch(live, patch, DEPLOYMENT);
    assert.deepEqual(live, before);
    assert.deepEqual(patch, patchBefore);
  });

  const errors: { name: string; live: Obj; patch: unknown; code: number }[] = [
    { name: 'a patch that is not an object', live: {}, patch: [1], code: 400 },
    {
      name: 'a merge-list item without its merge key',
      live: { spec: { containers: [{ name: 'a' }] } },
      patch: { spec: { containers: [{ image: 'x' }] } },
      code: 400,
    },
    {
      name: '$setElementOrder that contradicts the patch order',
      live: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
      patch: {
        spec: {
          '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }],
          containers: [{ name: 'b' }, { name: 'a' }],
        },
      },
      code: 400,
    },
    {
      name: '$retainKeys that omits a patched key',
      live: { spec: { volumes: [{ name: 'v', emptyDir: {} }] } },
      patch: { spec: { volumes: [{ name: 'v', $retainKeys: ['name'], hostPath: { path: '/' } }] } },
      code: 400,
    },
    {
      name: 'an unknown $patch directive',
      live: { metadata: { labels: {} } },
      patch: { metadata: { labels: { $patch: 'explode' } } },
      code: 400,
    },
    {
      name: 'a list of lists',
      live: { metadata: { finalizers: [['a']] } },
      patch: { metadata: { finalizers: [['b']] } },
      code: 422,
    },
  ];
  for (const c of errors) {
    it(`rejects ${c.name} with ${c.code}`, () => {
      assert.equal(statusOf(() => applyStrategicMergePatch(c.live, c.patch, POD)).code, c.code);
    });
  }
});

describe('MERGE_KEYS / PATCH_SCHEMA', () => {
  it('lists the pod template lists of every workload kind', () => {
    for (const [kind, prefix] of [
      ['apps/v1/Deployment', 'spec.template.spec'],
      ['apps/v1/ReplicaSet', 'spec.template.spec'],
      ['apps/v1/StatefulSet', 'spec.template.spec'],
      ['apps/v1/DaemonSet', 'spec.template.spec'],
      ['batch/v1/Job', 'spec.template.spec'],
      ['batch/v1/CronJob', 'spec.jobTemplate.spec.template.spec'],
      ['/v1/Pod', 'spec'],
    ]) {
      const keys = MERGE_KEYS[kind];
      assert.ok(keys, kind);
      for (const list of [
        'containers',
        'initContainers',
        'ephemeralContainers',
        'volumes',
        'imagePullSecrets',
      ]) {
        assert.equal(keys[`${prefix}.${list}`]?.mergeKey, 'name', `${kind} ${prefix}.${list}`);
      }
      assert.equal(keys[`${prefix}.containers[].env`]?.mergeKey, 'name');
      assert.equal(keys[`${prefix}.containers[].ports`]?.mergeKey, 'containerPort');
      assert.equal(keys[`${prefix}.containers[].volumeMounts`]?.mergeKey, 'mountPath');
      assert.equal(keys[`${prefix}.tolerations`]?.listType, 'atomic');
      assert.equal(keys['metadata.finalizers']?.strategy, 'merge');
      assert.equal(keys['metadata.ownerReferences']?.mergeKey, 'uid');
    }
    assert.equal(MERGE_KEYS['/v1/Service']['spec.ports'].mergeKey, 'port');
    assert.equal(MERGE_KEYS['apps/v1/Deployment']['status.conditions'].mergeKey, 'type');
    assert.equal(MERGE_KEYS['apps/v1/Deployment']['spec.strategy'].strategy, 'retainKeys');
  });

  it('is keyed by Go-style type names for the OpenAPI documents', () => {
    assert.equal(PATCH_SCHEMA['io.k8s.api.core.v1.PodSpec'].containers.mergeKey, 'name');
    assert.equal(PATCH_SCHEMA['io.k8s.api.core.v1.Container'].env.strategy, 'merge');
  });
});
