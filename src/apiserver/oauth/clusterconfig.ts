// Watches the ClusterConfiguration `kubesphere-system/ks-installer` and applies its `spec.authentication` live:
// clients (secrets), token lifetimes, lockout, login history, single-login, issuer. jwtSecret changes need a restart
// (tokens already issued would all become invalid at once); they are logged, not applied.
import type { Logger } from 'pino';
import { applyClusterConfiguration, CLUSTER_CONFIGURATION } from '../../config/clusterconfiguration.ts';
import type { KubeSphereConfig } from '../../config/index.ts';
import { type KubeObject, type KubeRest, type ListWatch, listWatch } from '../crds/index.ts';

const { group, version, plural, namespace, name } = CLUSTER_CONFIGURATION;
const PATH = `/apis/${group}/${version}/namespaces/${namespace}/${plural}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;

/**
 * `base` is the configuration without the ClusterConfiguration (defaults < file); `apply` receives the effective
 * configuration after every change (and the base again when the object is deleted).
 */
export function watchClusterConfiguration(
  rest: KubeRest,
  base: KubeSphereConfig,
  apply: (config: KubeSphereConfig) => void,
  logger: Logger,
): ListWatch {
  let lastRv = '';
  const handle = (obj: KubeObject | undefined) => {
    if (obj && obj.metadata.resourceVersion === lastRv) return;
    lastRv = obj?.metadata.resourceVersion ?? '';
    const result = applyClusterConfiguration(base, obj);
    if (!result.ok) {
      logger.warn(
        { object: `${namespace}/${name}`, error: result.error },
        'ignoring invalid ClusterConfiguration authentication section; keeping the previous settings',
      );
      return;
    }
    if (result.config.authentication.jwtSecret !== base.authentication.jwtSecret) {
      logger.warn('ClusterConfiguration changes jwtSecret: restart kapiserver to apply it');
      result.config.authentication.jwtSecret = base.authentication.jwtSecret;
    }
    apply(result.config);
    logger.info(
      { object: `${namespace}/${name}`, present: Boolean(obj) },
      'applied ClusterConfiguration authentication',
    );
  };
  return listWatch<KubeObject>(
    rest,
    PATH,
    {
      onSync: (items) => handle(items.find((o) => o.metadata.name === name)),
      onEvent: (type, obj) => {
        if (obj.metadata.name !== name) return;
        handle(type === 'DELETED' ? undefined : obj);
      },
    },
    logger,
  );
}
