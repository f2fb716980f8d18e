// How resources.kubesphere.io/v1alpha3 presents a StorageClass, as KubeSphere does: with `kubesphere.io/pvc-count`,
// the number of claims of that class (named by spec.storageClassName or by the beta annotation), which the console's
// Storage Classes page shows. Answered from an index on the claims informer, not by walking every claim per class.
import type { Informer, KubeObject } from '../../cluster/index.ts';

export const PVC_COUNT_ANNOTATION = 'kubesphere.io/pvc-count';
const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const CLAIM_CLASS_INDEX = 'kapis:claimClass';

/** The classes a claim names (one, or two when the beta annotation differs from the spec). */
function classesOf(claim: KubeObject): string[] {
  const names = new Set<string>();
  const spec = claim.spec as { storageClassName?: unknown } | undefined;
  if (typeof spec?.storageClassName === 'string' && spec.storageClassName) names.add(spec.storageClassName);
  const beta = claim.metadata?.annotations?.[BETA_CLASS_ANNOTATION];
  if (typeof beta === 'string' && beta) names.add(beta);
  return [...names];
}

/** Indexes `claims` by the classes they name; returns what annotates a StorageClass with its claims' count. */
export function claimCounter(claims: Informer): (storageClass: KubeObject) => KubeObject {
  claims.addIndex(CLAIM_CLASS_INDEX, classesOf);
  return (sc) => {
    if (!sc.metadata) sc.metadata = {};
    const count = claims.keysByIndex(CLAIM_CLASS_INDEX, String(sc.metadata.name ?? '')).size;
    sc.metadata.annotations = { ...sc.metadata.annotations, [PVC_COUNT_ANNOTATION]: String(count) };
    return sc;
  };
}
