// KubeSphere's installer CR (`installer.kubesphere.io/v1alpha1` ClusterConfiguration `ks-installer` in
// `kubesphere-system`): its `spec.authentication` has the shape of kubesphere.yaml's `authentication` section and
// overrides the file. Pure: the watch lives with its user (the OAuth unit).
import { Value } from 'typebox/value';
import { applyAuthentication } from './load.ts';
import { AuthenticationSchema } from './schema.ts';
import type { KubeSphereConfig } from './types.ts';

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
  const first = Value.Errors(AuthenticationSchema, auth)[0];
  if (first) {
    const field = first.instancePath
      .replace(/^\//, '')
      .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
      .replaceAll('/', '.');
    return { ok: false, error: `field spec.authentication${field ? `.${field}` : ''}: ${first.message}` };
  }
  return { ok: true, config: applyAuthentication(base, auth as Record<string, unknown>) };
}
