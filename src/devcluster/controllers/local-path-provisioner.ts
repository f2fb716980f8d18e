// The dev cluster's volume provisioner (`devcluster.kapiserver.io/local-path`), shaped as kind's local-path
// provisioner shows its volumes: a `hostPath` directory (type DirectoryOrCreate) under one node's disk, pinned to
// that node by required node affinity on kubernetes.io/hostname, the node the scheduler selected (kind shows
// hostPath, not `local`, because its provisioner's default volume type is hostPath). A claim of an Immediate class
// has no node yet: its volume has no node affinity (every simulated node can reach it). Nothing is written to disk.
import { formatQuantity } from '../../k8s/quantity.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { requestOf } from './volume-match.ts';

/** Our own provisioner name (kind's is rancher.io/local-path; we never claim another vendor's). */
export const LOCAL_PATH_PROVISIONER = 'devcluster.kapiserver.io/local-path';
export const PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
const BASE_PATH = '/var/lib/devcluster/local-path';

/** The claim's reference as a volume's claimRef carries it. */
export function claimRefOf(claim: Obj): Obj {
  const meta = claim.metadata as Obj;
  return {
    kind: 'PersistentVolumeClaim',
    namespace: meta.namespace,
    name: meta.name,
    uid: meta.uid,
    apiVersion: 'v1',
    resourceVersion: meta.resourceVersion,
  };
}

/** The volume provisioned for `claim` of StorageClass `sc`, on `node` when its binding waited for a consumer. */
export function provisionedVolume(claim: Obj, sc: Obj, node: string | undefined): Obj {
  const meta = claim.metadata as Obj;
  const spec = isObj(claim.spec) ? claim.spec : {};
  const name = `pvc-${String(meta.uid)}`;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [PROVISIONED_BY]: LOCAL_PATH_PROVISIONER } },
    spec: {
      capacity: { storage: formatQuantity(requestOf(claim)) },
      accessModes: spec.accessModes,
      volumeMode: spec.volumeMode ?? 'Filesystem',
      storageClassName: (sc.metadata as Obj).name,
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
      ...(Array.isArray(sc.mountOptions) ? { mountOptions: sc.mountOptions } : {}),
      hostPath: {
        path: `${BASE_PATH}/${name}_${String(meta.namespace)}_${String(meta.name)}`,
        type: 'DirectoryOrCreate',
      },
      ...(node
        ? {
            nodeAffinity: {
              required: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
                ],
              },
            },
          }
        : {}),
      claimRef: claimRefOf(claim),
    },
    status: { phase: 'Bound' },
  };
}
