// Watches the ClusterConfiguration `kubesphere-system/ks-installer` (through the shared cluster cache) and applies its
// `spec.authentication` live: clients (secrets), token lifetimes, lockout, login history, single-login, issuer.
// jwtSecret changes need a restart (tokens already issued would all become invalid at once); they are logged, not
// applied.
import type { Logger } from 'pino';
import { applyClusterConfiguration, CLUSTER_CONFIGURATION } from '../../config/clusterconfiguration.ts';
import type { KubeSphereConfig } from '../../config/index.ts';
import type { ClusterCache, KubeObject } from '../cluster/index.ts';

const { group, version, plural, namespace, name } = CLUSTER_CONFIGURATION;

export interface ClusterConfigurationWatch {
  /** Resolves true once the configuration in force reflects the orchestrator (false after `timeoutMs`). */
  synced(timeoutMs: number): Promise<boolean>;
  close(): void;
}

/**
 * `base` is the configuration without the ClusterConfiguration (defaults < file); `apply` receives the effective
 * configuration after every change (and the base again when the object is absent or deleted).
 */
export function watchClusterConfiguration(
  cache: ClusterCache,
  base: KubeSphereConfig,
  apply: (config: KubeSphereConfig) => void,
  logger: Logger,
): ClusterConfigurationWatch {
  const informer = cache.informer({ group, version, resource: plural });
  let lastRv = '';
  const handle = (obj: KubeObject | undefined) => {
    if (obj && obj.metadata?.resourceVersion === lastRv) return;
    lastRv = obj?.metadata?.resourceVersion ?? '';
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
  const isInstaller = (obj: KubeObject) =>
    obj.metadata?.namespace === namespace && obj.metadata?.name === name;
  const unsubscribe = informer.addEventHandler({
    onAdd: (obj) => isInstaller(obj) && handle(obj),
    onUpdate: (obj) => isInstaller(obj) && handle(obj),
    onDelete: (obj) => isInstaller(obj) && handle(undefined),
  });
  return {
    async synced(timeoutMs) {
      if (!(await informer.waitForSync(timeoutMs))) return false;
      // No object at all: the base configuration is the one in force.
      if (!informer.get(namespace, name)) handle(undefined);
      return true;
    },
    close: unsubscribe,
  };
}
