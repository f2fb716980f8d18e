// KubeSphere's installer CR (`installer.kubesphere.io/v1alpha1` ClusterConfiguration `ks-installer` in
// `kubesphere-system`): its `spec.authentication` has the shape of kubesphere.yaml's `authentication` section and
// overrides the file. Pure: the watch lives with its user (the OAuth unit).
import { overlay } from './load.ts';
import type { KubeSphereConfig } from './schema.ts';
import { ConfigError } from './validate.ts';

export const CLUSTER_CONFIGURATION = {
  group: 'installer.kubesphere.io',
  version: 'v1alpha1',
  plural: 'clusterconfigurations',
  namespace: 'kubesphere-system',
  name: 'ks-installer',
} as const;

export type ClusterConfigurationResult =
  | { ok: true; config: KubeSphereConfig }
  | { ok: false; error: string };

/**
 * The configuration `base` (defaults < file) with the object's `spec.authentication` applied. An object without
 * that section yields `base`; an invalid section yields an error naming the first bad field.
 */
export function applyClusterConfiguration(base: KubeSphereConfig, obj: unknown): ClusterConfigurationResult {
  const spec = (obj as { spec?: { authentication?: unknown } } | undefined)?.spec;
  const auth = spec?.authentication;
  if (auth === undefined || auth === null) return { ok: true, config: base };
  if (typeof auth !== 'object' || Array.isArray(auth)) {
    return { ok: false, error: 'field spec.authentication: expected an object' };
  }
  try {
    return { ok: true, config: overlay(base, { authentication: auth }, 'spec.') };
  } catch (err) {
    if (err instanceof ConfigError) return { ok: false, error: err.message };
    throw err;
  }
}
