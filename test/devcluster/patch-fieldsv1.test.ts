// A create's managedFields are built in one walk (fieldsV1Of); they must equal what the general path builds from the
// field set with its containers (toFieldsV1 of fieldSetWithContainers' leaves and containers).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldSetWithContainers, fieldsV1Of, toFieldsV1 } from '../../src/devcluster/patch/fieldset.ts';
import { rootType } from '../../src/devcluster/patch/schema.ts';

type Obj = Record<string, unknown>;

const cases: { name: string; gvk: { group: string; version: string; kind: string }; obj: Obj }[] = [
  {
    name: 'a Deployment: associative lists of containers, ports and env, maps of labels, a pointer struct',
    gvk: { group: 'apps', version: 'v1', kind: 'Deployment' },
    obj: {
      metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, annotations: { 'a/b': 'c' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'app',
                image: 'nginx:1.27',
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                ],
                resources: { limits: { cpu: '1' }, requests: {} },
              },
              { name: 'side', image: 'busybox', args: ['sleep', '1d'] },
            ],
            tolerations: [{ key: 'k', operator: 'Exists' }],
          },
        },
      },
    },
  },
  {
    name: 'a Service: ports keyed by port and protocol, a set of finalizers',
    gvk: { group: '', version: 'v1', kind: 'Service' },
    obj: {
      metadata: { name: 'svc', finalizers: ['a', 'b'] },
      spec: {
        type: 'NodePort',
        selector: { app: 'web' },
        ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }],
      },
    },
  },
  {
    name: 'a ConfigMap: data as a map, an empty map',
    gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
    obj: { metadata: { name: 'cm', labels: {} }, data: { 'k.txt': 'v', other: '' } },
  },
  {
    name: 'a custom resource (no schema: every map is followed)',
    gvk: { group: 'iam.kubesphere.io', version: 'v1alpha2', kind: 'LoginRecord' },
    obj: {
      metadata: {
        generateName: 'admin-',
        labels: { 'iam.kubesphere.io/user-ref': 'admin' },
        ownerReferences: [
          { apiVersion: 'iam.kubesphere.io/v1alpha2', kind: 'User', name: 'admin', uid: 'u1' },
        ],
      },
      spec: {
        type: 'Token',
        provider: '',
        success: true,
        sourceIP: '10.0.0.1',
        userAgent: 'curl',
        reason: '',
      },
    },
  },
];

describe('managedFields of a create', () => {
  for (const c of cases)
    it(`one walk equals the general path: ${c.name}`, () => {
      const type = rootType(c.gvk);
      const { leaves, containers } = fieldSetWithContainers(c.obj, type);
      const general = toFieldsV1(new Set([...leaves, ...containers]));
      assert.ok(Object.keys(general).length > 0);
      assert.deepEqual(fieldsV1Of(c.obj, type), general);
      assert.deepEqual(JSON.stringify(fieldsV1Of(c.obj, type)), JSON.stringify(general), 'same key order');
    });

  it('an object that sets no field has no entry', () => {
    assert.equal(fieldsV1Of({}, rootType({ group: '', version: 'v1', kind: 'ConfigMap' })), undefined);
  });
});
