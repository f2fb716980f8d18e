// Table output: kubectl's columns per kind, wide-only columns, CRD printer columns, row objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humanDuration, toTable } from '../../src/devcluster/table/index.ts';

type Obj = Record<string, unknown>;

const NOW = Date.parse('2025-03-10T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const meta = (name: string, ageMs: number, extra: Obj = {}) => ({
  name,
  namespace: 'default',
  uid: `uid-${name}`,
  resourceVersion: '7',
  creationTimestamp: ago(ageMs),
  ...extra,
});

function kind(group: string, k: string, version = 'v1', namespaced = true) {
  return { group, version, kind: k, namespaced };
}

interface Case {
  name: string;
  kind: ReturnType<typeof kind>;
  obj: Obj;
  /** Column names, uppercased as kubectl prints them; `*` marks a priority-1 (wide) column. */
  columns: string[];
  cells: unknown[];
}

const cases: Case[] = [
  {
    name: 'Namespace',
    kind: kind('', 'Namespace', 'v1', false),
    obj: { metadata: meta('kube-system', 2 * DAY), status: { phase: 'Active' } },
    columns: ['NAME', 'STATUS', 'AGE'],
    cells: ['kube-system', 'Active', '2d'],
  },
  {
    name: 'Node (control plane, cordoned)',
    kind: kind('', 'Node', 'v1', false),
    obj: {
      metadata: meta('node1', 3 * HOUR + 2 * MIN, {
        labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/worker': '', x: 'y' },
      }),
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
        addresses: [
          { type: 'InternalIP', address: '10.0.0.11' },
          { type: 'Hostname', address: 'node1' },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.32.2',
          osImage: 'Ubuntu 22.04.4 LTS',
          kernelVersion: '5.15.0-105-generic',
          containerRuntimeVersion: 'containerd://1.7.13',
        },
      },
    },
    columns: [
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      '*INTERNAL-IP',
      '*EXTERNAL-IP',
      '*OS-IMAGE',
      '*KERNEL-VERSION',
      '*CONTAINER-RUNTIME',
    ],
    cells: [
      'node1',
      'Ready,SchedulingDisabled',
      'control-plane,worker',
      '3h2m',
      'v1.32.2',
      '10.0.0.11',
      '<none>',
      'Ubuntu 22.04.4 LTS',
      '5.15.0-105-generic',
      'containerd://1.7.13',
    ],
  },
  {
    name: 'Node (not ready, no roles, no info)',
    kind: kind('', 'Node', 'v1', false),
    obj: { metadata: meta('node2', 5 * MIN), status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
    columns: [
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      '*INTERNAL-IP',
      '*EXTERNAL-IP',
      '*OS-IMAGE',
      '*KERNEL-VERSION',
      '*CONTAINER-RUNTIME',
    ],
    cells: [
      'node2',
      'NotReady',
      '<none>',
      '5m',
      '',
      '<none>',
      '<none>',
      '<unknown>',
      '<unknown>',
      '<unknown>',
    ],
  },
  {
    name: 'Pod (running, restarted)',
    kind: kind('', 'Pod'),
    obj: {
      metadata: meta('web-1', 45 * 1000),
      spec: { nodeName: 'node1', containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.244.0.5' }],
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [
          {
            name: 'a',
            ready: true,
            restartCount: 2,
            state: { running: {} },
            lastState: { terminated: { finishedAt: ago(10 * MIN) } },
          },
          { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    },
    columns: [
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      '*IP',
      '*NODE',
      '*NOMINATED NODE',
      '*READINESS GATES',
    ],
    cells: [
      'web-1',
      '1/2',
      'CrashLoopBackOff',
      '3 (10m ago)',
      '45s',
      '10.244.0.5',
      'node1',
      '<none>',
      '<none>',
    ],
  },
  {
    name: 'Pod (pending, no status yet)',
    kind: kind('', 'Pod'),
    obj: {
      metadata: meta('p', 3 * MIN + 5000),
      spec: { containers: [{ name: 'a' }] },
      status: { phase: 'Pending' },
    },
    columns: [
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      '*IP',
      '*NODE',
      '*NOMINATED NODE',
      '*READINESS GATES',
    ],
    cells: ['p', '0/1', 'Pending', '0', '3m5s', '<none>', '<none>', '<none>', '<none>'],
  },
  {
    name: 'Pod (init container running)',
    kind: kind('', 'Pod'),
    obj: {
      metadata: meta('p', MIN),
      spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'i1', state: { terminated: { exitCode: 0 } } },
          { name: 'i2', state: { running: {} } },
        ],
      },
    },
    columns: [
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      '*IP',
      '*NODE',
      '*NOMINATED NODE',
      '*READINESS GATES',
    ],
    cells: ['p', '0/1', 'Init:1/2', '0', '60s', '<none>', '<none>', '<none>', '<none>'],
  },
  {
    name: 'Pod (terminating)',
    kind: kind('', 'Pod'),
    obj: {
      metadata: meta('p', DAY, { deletionTimestamp: ago(0) }),
      spec: { containers: [{ name: 'a' }], readinessGates: [{ conditionType: 'x/ok' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'x/ok', status: 'True' }],
        containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: { running: {} } }],
      },
    },
    columns: [
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      '*IP',
      '*NODE',
      '*NOMINATED NODE',
      '*READINESS GATES',
    ],
    cells: ['p', '1/1', 'Terminating', '0', '24h', '<none>', '<none>', '<none>', '1/1'],
  },
  {
    name: 'Service (ClusterIP)',
    kind: kind('', 'Service'),
    obj: {
      metadata: meta('web', 10 * MIN),
      spec: {
        type: 'ClusterIP',
        clusterIP: '10.96.0.10',
        clusterIPs: ['10.96.0.10'],
        selector: { tier: 'front', app: 'web' },
        ports: [
          { port: 80, protocol: 'TCP' },
          { port: 53, protocol: 'UDP' },
        ],
      },
    },
    columns: ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', '*SELECTOR'],
    cells: ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP,53/UDP', '10m', 'app=web,tier=front'],
  },
  {
    name: 'Service (LoadBalancer pending, NodePort)',
    kind: kind('', 'Service'),
    obj: {
      metadata: meta('lb', 2 * HOUR),
      spec: { type: 'LoadBalancer', clusterIPs: ['10.96.1.1'], ports: [{ port: 443, nodePort: 30443 }] },
    },
    columns: ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', '*SELECTOR'],
    cells: ['lb', 'LoadBalancer', '10.96.1.1', '<pending>', '443:30443/TCP', '120m', '<none>'],
  },
  {
    name: 'ConfigMap',
    kind: kind('', 'ConfigMap'),
    obj: { metadata: meta('cm', 9 * DAY), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } },
    columns: ['NAME', 'DATA', 'AGE'],
    cells: ['cm', 3, '9d'],
  },
  {
    name: 'Secret',
    kind: kind('', 'Secret'),
    obj: { metadata: meta('s', 3 * 365 * DAY), type: 'Opaque', data: { password: 'cGFzcw==' } },
    columns: ['NAME', 'TYPE', 'DATA', 'AGE'],
    cells: ['s', 'Opaque', 1, '3y'],
  },
  {
    name: 'ServiceAccount',
    kind: kind('', 'ServiceAccount'),
    obj: { metadata: meta('default', 7 * HOUR + 30 * MIN) },
    columns: ['NAME', 'SECRETS', 'AGE'],
    cells: ['default', 0, '7h30m'],
  },
  {
    name: 'Event',
    kind: kind('', 'Event'),
    obj: {
      metadata: meta('web.17f', HOUR),
      type: 'Normal',
      reason: 'Scheduled',
      message: 'Successfully assigned default/web to node1 \n',
      involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{a}' },
      source: { component: 'default-scheduler' },
      firstTimestamp: ago(30 * MIN),
      lastTimestamp: ago(2 * MIN),
      count: 4,
    },
    columns: [
      'LAST SEEN',
      'TYPE',
      'REASON',
      'OBJECT',
      '*SUBOBJECT',
      '*SOURCE',
      'MESSAGE',
      '*FIRST SEEN',
      '*COUNT',
      '*NAME',
    ],
    cells: [
      '2m',
      'Normal',
      'Scheduled',
      'pod/web',
      'spec.containers{a}',
      'default-scheduler',
      'Successfully assigned default/web to node1',
      '30m',
      4,
      'web.17f',
    ],
  },
  {
    name: 'PersistentVolumeClaim (bound)',
    kind: kind('', 'PersistentVolumeClaim'),
    obj: {
      metadata: meta('data', DAY),
      spec: { volumeName: 'pv-1', storageClassName: 'local', volumeMode: 'Filesystem' },
      status: {
        phase: 'Bound',
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce'],
      },
    },
    columns: [
      'NAME',
      'STATUS',
      'VOLUME',
      'CAPACITY',
      'ACCESS MODES',
      'STORAGECLASS',
      'VOLUMEATTRIBUTESCLASS',
      'AGE',
      '*VOLUMEMODE',
    ],
    cells: ['data', 'Bound', 'pv-1', '1Gi', 'RWO,RWX', 'local', '<unset>', '24h', 'Filesystem'],
  },
  {
    name: 'Deployment',
    kind: kind('apps', 'Deployment'),
    obj: {
      metadata: meta('web', 5 * MIN),
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }],
        },
        template: {
          spec: {
            containers: [
              { name: 'nginx', image: 'nginx:1.25' },
              { name: 'log', image: 'busybox' },
            ],
          },
        },
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    },
    columns: ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', '*CONTAINERS', '*IMAGES', '*SELECTOR'],
    cells: ['web', '2/3', 3, 2, '5m', 'nginx,log', 'nginx:1.25,busybox', 'app=web,env in (dev,prod)'],
  },
  {
    name: 'Deployment without status',
    kind: kind('apps', 'Deployment'),
    obj: {
      metadata: meta('new', 0),
      spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [] } } },
    },
    columns: ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', '*CONTAINERS', '*IMAGES', '*SELECTOR'],
    cells: ['new', '0/1', 0, 0, '0s', '', '', 'a=b'],
  },
  {
    name: 'ReplicaSet',
    kind: kind('apps', 'ReplicaSet'),
    obj: {
      metadata: meta('web-5d8f', HOUR),
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { spec: { containers: [{ name: 'n', image: 'i' }] } },
      },
      status: { replicas: 2, readyReplicas: 1 },
    },
    columns: ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', '*CONTAINERS', '*IMAGES', '*SELECTOR'],
    cells: ['web-5d8f', 2, 2, 1, '60m', 'n', 'i', 'app=web'],
  },
  {
    name: 'StatefulSet',
    kind: kind('apps', 'StatefulSet'),
    obj: {
      metadata: meta('db', HOUR),
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'pg', image: 'postgres:16' }] } } },
      status: { readyReplicas: 3 },
    },
    columns: ['NAME', 'READY', 'AGE', '*CONTAINERS', '*IMAGES'],
    cells: ['db', '3/3', '60m', 'pg', 'postgres:16'],
  },
  {
    name: 'DaemonSet',
    kind: kind('apps', 'DaemonSet'),
    obj: {
      metadata: meta('agent', DAY),
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'a', image: 'a:1' }] },
        },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    },
    columns: [
      'NAME',
      'DESIRED',
      'CURRENT',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'NODE SELECTOR',
      'AGE',
      '*CONTAINERS',
      '*IMAGES',
      '*SELECTOR',
    ],
    cells: ['agent', 3, 3, 2, 3, 2, 'kubernetes.io/os=linux', '24h', 'a', 'a:1', 'app=agent'],
  },
  {
    name: 'Job (complete)',
    kind: kind('batch', 'Job'),
    obj: {
      metadata: meta('pi', 2 * HOUR),
      spec: {
        completions: 1,
        selector: { matchLabels: { 'batch.kubernetes.io/job-name': 'pi' } },
        template: { spec: { containers: [{ name: 'pi', image: 'perl' }] } },
      },
      status: {
        succeeded: 1,
        startTime: ago(2 * HOUR),
        completionTime: ago(2 * HOUR - 37 * 1000),
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    },
    columns: ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', '*CONTAINERS', '*IMAGES', '*SELECTOR'],
    cells: ['pi', 'Complete', '1/1', '37s', '120m', 'pi', 'perl', 'batch.kubernetes.io/job-name=pi'],
  },
  {
    name: 'CronJob',
    kind: kind('batch', 'CronJob'),
    obj: {
      metadata: meta('hello', 3 * DAY),
      spec: {
        schedule: '*/5 * * * *',
        suspend: false,
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'h', image: 'busybox' }] } } } },
      },
      status: { active: [{ name: 'hello-1' }], lastScheduleTime: ago(4 * MIN) },
    },
    columns: [
      'NAME',
      'SCHEDULE',
      'TIMEZONE',
      'SUSPEND',
      'ACTIVE',
      'LAST SCHEDULE',
      'AGE',
      '*CONTAINERS',
      '*IMAGES',
      '*SELECTOR',
    ],
    cells: ['hello', '*/5 * * * *', '<none>', 'False', 1, '4m', '3d', 'h', 'busybox', '<none>'],
  },
  {
    name: 'Role (API server default table)',
    kind: kind('rbac.authorization.k8s.io', 'Role'),
    obj: { metadata: meta('reader', HOUR, { creationTimestamp: '2025-03-10T11:00:00Z' }) },
    columns: ['NAME', 'CREATED AT'],
    cells: ['reader', '2025-03-10T11:00:00Z'],
  },
  {
    name: 'ClusterRole',
    kind: kind('rbac.authorization.k8s.io', 'ClusterRole', 'v1', false),
    obj: { metadata: meta('admin', HOUR, { creationTimestamp: '2025-03-09T08:07:06Z' }) },
    columns: ['NAME', 'CREATED AT'],
    cells: ['admin', '2025-03-09T08:07:06Z'],
  },
  {
    name: 'RoleBinding',
    kind: kind('rbac.authorization.k8s.io', 'RoleBinding'),
    obj: {
      metadata: meta('rb', 30 * MIN),
      roleRef: { kind: 'ClusterRole', name: 'view', apiGroup: 'rbac.authorization.k8s.io' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
      ],
    },
    columns: ['NAME', 'ROLE', 'AGE', '*USERS', '*GROUPS', '*SERVICEACCOUNTS'],
    cells: ['rb', 'ClusterRole/view', '30m', 'alice, bob', 'devs', 'ci/builder'],
  },
  {
    name: 'ClusterRoleBinding',
    kind: kind('rbac.authorization.k8s.io', 'ClusterRoleBinding', 'v1', false),
    obj: { metadata: meta('crb', 30 * MIN), roleRef: { kind: 'ClusterRole', name: 'cluster-admin' } },
    columns: ['NAME', 'ROLE', 'AGE', '*USERS', '*GROUPS', '*SERVICEACCOUNTS'],
    cells: ['crb', 'ClusterRole/cluster-admin', '30m', '', '', ''],
  },
  {
    name: 'Lease',
    kind: kind('coordination.k8s.io', 'Lease'),
    obj: { metadata: meta('kube-scheduler', DAY), spec: { holderIdentity: 'node1_abc' } },
    columns: ['NAME', 'HOLDER', 'AGE'],
    cells: ['kube-scheduler', 'node1_abc', '24h'],
  },
  {
    name: 'CustomResourceDefinition',
    kind: kind('apiextensions.k8s.io', 'CustomResourceDefinition', 'v1', false),
    obj: { metadata: meta('widgets.example.com', HOUR, { creationTimestamp: '2025-03-10T11:00:00Z' }) },
    columns: ['NAME', 'CREATED AT'],
    cells: ['widgets.example.com', '2025-03-10T11:00:00Z'],
  },
  {
    name: 'a custom resource without printer columns',
    kind: kind('example.com', 'Widget'),
    obj: { metadata: meta('w1', 90 * 1000) },
    columns: ['NAME', 'AGE'],
    cells: ['w1', '90s'],
  },
];

const shown = (t: Obj) =>
  (t.columnDefinitions as { name: string; priority: number }[]).map(
    (c) => `${c.priority > 0 ? '*' : ''}${c.name.toUpperCase()}`,
  );

describe('toTable per kind', () => {
  for (const c of cases) {
    it(c.name, () => {
      const t = toTable(c.kind, [c.obj], { now: NOW });
      assert.equal(t.kind, 'Table');
      assert.equal(t.apiVersion, 'meta.k8s.io/v1');
      assert.deepEqual(shown(t), c.columns);
      const rows = t.rows as { cells: unknown[] }[];
      assert.equal(rows.length, 1);
      assert.deepEqual(rows[0].cells, c.cells);
      assert.equal(rows[0].cells.length, c.columns.length, 'every column has a cell, wide ones included');
      for (const def of t.columnDefinitions as Obj[]) {
        assert.deepEqual(Object.keys(def).sort(), ['description', 'format', 'name', 'priority', 'type']);
      }
    });
  }
});

describe('toTable rows and metadata', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta('p', MIN, { labels: { app: 'x' } }),
    spec: { containers: [{ name: 'a' }] },
    status: { phase: 'Succeeded' },
  };

  it('carries PartialObjectMetadata by default', () => {
    const t = toTable(kind('', 'Pod'), [pod], {
      now: NOW,
      listMeta: { resourceVersion: '42', continue: 'abc' },
    });
    assert.deepEqual(t.metadata, { resourceVersion: '42', continue: 'abc' });
    const row = (t.rows as Obj[])[0];
    assert.deepEqual(row.object, {
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: pod.metadata,
    });
    assert.deepEqual(row.conditions, [
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ]);
  });

  it('carries the full object for includeObject=Object and nothing for None', () => {
    assert.deepEqual(
      (toTable(kind('', 'Pod'), [pod], { includeObject: 'Object' }).rows as Obj[])[0].object,
      pod,
    );
    assert.ok(!('object' in (toTable(kind('', 'Pod'), [pod], { includeObject: 'None' }).rows as Obj[])[0]));
  });

  it('answers v1beta1 when asked', () => {
    const t = toTable(kind('', 'Pod'), [pod], { tableVersion: 'v1beta1' });
    assert.equal(t.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(((t.rows as Obj[])[0].object as Obj).apiVersion, 'meta.k8s.io/v1beta1');
  });

  it('an empty list has the columns and no rows', () => {
    const t = toTable(kind('', 'ConfigMap'), [], { listMeta: { resourceVersion: '9' } });
    assert.deepEqual(t.rows, []);
    assert.equal((t.columnDefinitions as unknown[]).length, 3);
  });

  it('a missing creationTimestamp ages as <unknown>', () => {
    const t = toTable(kind('', 'ConfigMap'), [{ metadata: { name: 'x' } }], { now: NOW });
    assert.deepEqual((t.rows as { cells: unknown[] }[])[0].cells, ['x', 0, '<unknown>']);
  });
});

describe('CRD additionalPrinterColumns', () => {
  const widget = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: meta('w1', 3 * HOUR, { labels: { 'app.kubernetes.io/name': 'shop' } }),
    spec: { size: 3, color: 'red', ratio: 0.5, enabled: true, tags: ['a', 'b'] },
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(20 * MIN) }] },
  };
  const columns = [
    { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
    { name: 'Color', type: 'string', jsonPath: '.spec.color', description: 'paint' },
    { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio', priority: 1 },
    { name: 'On', type: 'boolean', jsonPath: '.spec.enabled' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[0].status' },
    { name: 'App', type: 'string', jsonPath: ".metadata.labels['app\\.kubernetes\\.io/name']" },
    { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
    { name: 'Missing', type: 'string', jsonPath: '.spec.nope' },
  ];

  it('NAME first, then the columns with typed cells, then AGE when no date column is given', () => {
    const t = toTable(kind('example.com', 'Widget'), [widget], { crdColumns: columns, now: NOW });
    assert.deepEqual(shown(t), [
      'NAME',
      'SIZE',
      'COLOR',
      '*RATIO',
      'ON',
      'READY',
      'APP',
      'TAGS',
      'MISSING',
      'AGE',
    ]);
    assert.deepEqual((t.rows as { cells: unknown[] }[])[0].cells, [
      'w1',
      3,
      'red',
      0.5,
      true,
      'True',
      'shop',
      '["a","b"]',
      null,
      '3h',
    ]);
    const color = (t.columnDefinitions as Obj[]).find((c) => c.name === 'Color');
    assert.equal(color?.description, 'paint');
  });

  it('a date column is aged and replaces the default AGE', () => {
    const t = toTable(kind('example.com', 'Widget'), [widget], {
      now: NOW,
      crdColumns: [
        { name: 'Since', type: 'date', jsonPath: '.status.conditions[0].lastTransitionTime' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    });
    assert.deepEqual(shown(t), ['NAME', 'SINCE', 'AGE']);
    assert.deepEqual((t.rows as { cells: unknown[] }[])[0].cells, ['w1', '20m', '3h']);
  });

  it('reads printerColumns from the kind (v1beta1 JSONPath spelling too)', () => {
    const t = toTable(
      {
        ...kind('example.com', 'Widget'),
        crd: { printerColumns: [{ name: 'Size', type: 'integer', JSONPath: '.spec.size' }] },
      },
      [widget],
      { now: NOW },
    );
    assert.deepEqual(shown(t), ['NAME', 'SIZE', 'AGE']);
    assert.deepEqual((t.rows as { cells: unknown[] }[])[0].cells, ['w1', 3, '3h']);
  });
});

describe('humanDuration (k8s.io/apimachinery/pkg/util/duration)', () => {
  const s = 1000;
  const table: [number, string][] = [
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [2 * MIN, '2m'],
    [5 * MIN + 3 * s, '5m3s'],
    [10 * MIN + 30 * s, '10m'],
    [179 * MIN, '179m'],
    [3 * HOUR, '3h'],
    [3 * HOUR + 2 * MIN, '3h2m'],
    [8 * HOUR + 59 * MIN, '8h'],
    [47 * HOUR, '47h'],
    [2 * DAY, '2d'],
    [2 * DAY + 5 * HOUR, '2d5h'],
    [8 * DAY, '8d'],
    [400 * DAY, '400d'],
    [2 * 365 * DAY, '2y'],
    [3 * 365 * DAY + 10 * DAY, '3y10d'],
    [9 * 365 * DAY, '9y'],
  ];
  for (const [ms, want] of table) it(`${ms}ms -> ${want}`, () => assert.equal(humanDuration(ms), want));
});
