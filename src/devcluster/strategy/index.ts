// The strategy of each resource, looked up by group and resource; custom resources get one from their CRD version.
import { type ResourceDef, storageKey } from '../resources.ts';
import { configMapStrategy, secretStrategy } from './config.ts';
import { crdStrategy } from './crd.ts';
import { customResourceStrategy } from './custom-resource.ts';
import { namespaceStrategy } from './namespace.ts';
import { podStrategy } from './pod.ts';
import { limitRangeStrategy, resourceQuotaStrategy } from './quota.ts';
import { bindingStrategy } from './rbac.ts';
import { serviceStrategy } from './service.ts';
import { persistentVolumeClaimStrategy, storageClassStrategy } from './storage.ts';
import { defaultStrategy, type ResourceStrategy } from './strategy.ts';
import {
  cronJobStrategy,
  daemonSetStrategy,
  deploymentStrategy,
  jobStrategy,
  replicaSetStrategy,
  statefulSetStrategy,
} from './workloads.ts';

export type { ResourceStrategy, StrategyContext } from './strategy.ts';

const BUILTIN: Record<string, ResourceStrategy> = {
  '/namespaces': namespaceStrategy,
  '/pods': podStrategy,
  '/services': serviceStrategy,
  '/configmaps': configMapStrategy,
  '/secrets': secretStrategy,
  '/persistentvolumeclaims': persistentVolumeClaimStrategy,
  '/resourcequotas': resourceQuotaStrategy,
  '/limitranges': limitRangeStrategy,
  'apps/deployments': deploymentStrategy,
  'apps/replicasets': replicaSetStrategy,
  'apps/statefulsets': statefulSetStrategy,
  'apps/daemonsets': daemonSetStrategy,
  'batch/jobs': jobStrategy,
  'batch/cronjobs': cronJobStrategy,
  'rbac.authorization.k8s.io/rolebindings': bindingStrategy,
  'rbac.authorization.k8s.io/clusterrolebindings': bindingStrategy,
  'apiextensions.k8s.io/customresourcedefinitions': crdStrategy,
  'storage.k8s.io/storageclasses': storageClassStrategy,
};

const customResourceStrategies = new WeakMap<ResourceDef, ResourceStrategy>();

export function strategyFor(d: ResourceDef): ResourceStrategy {
  if (d.crd) {
    const known = customResourceStrategies.get(d);
    if (known) return known;
    const made = customResourceStrategy(d);
    customResourceStrategies.set(d, made);
    return made;
  }
  const key = storageKey(d);
  return Object.hasOwn(BUILTIN, key) ? BUILTIN[key] : defaultStrategy;
}
