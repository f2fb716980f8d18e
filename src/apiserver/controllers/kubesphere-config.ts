// The `kubesphere-config` ConfigMap in `kubesphere-system`, which KubeSphere's console reads (`multicluster.clusterRole`,
// `gateway.namespace` from its `kubesphere.yaml`): kapiserver creates it when missing, holding the configuration in
// force without any secret, and keeps it current as the configuration changes (the live ClusterConfiguration) or
// someone edits or deletes it.
//
// A kubesphere-config that kapiserver did not create (no managed-by label) is someone's input, e.g. the file the
// deploy manifests mount as kapiserver's --config, or ks-installer's: it is never rewritten (that would change the
// next start's configuration), only reported once when it holds secrets anyone who may read ConfigMaps there can see.
import type { Logger } from 'pino';
import { parse, stringify } from 'yaml';
import { isSecretKey, publicConfigDocument } from '../../config/redact.ts';
import { isNotFound, type KubeObject, type KubeRest } from '../cluster/index.ts';
import type { ConfigSource } from '../config-source.ts';
import type { Controller } from './runner.ts';

export const KUBESPHERE_CONFIG = {
  namespace: 'kubesphere-system',
  name: 'kubesphere-config',
  key: 'kubesphere.yaml',
};
const MANAGED_BY = 'app.kubernetes.io/managed-by';
const KAPISERVER = 'kapiserver';
/** Another look now and then: a deleted or edited ConfigMap comes back without a watch on every ConfigMap. */
const RESYNC_MS = 60_000;

const COLLECTION = `/api/v1/namespaces/${KUBESPHERE_CONFIG.namespace}/configmaps`;
const PATH = `${COLLECTION}/${KUBESPHERE_CONFIG.name}`;

/** The ConfigMap's `kubesphere.yaml`: the configuration in kubesphere.yaml's form, secrets removed. */
export function kubesphereYaml(source: ConfigSource): string {
  return stringify(publicConfigDocument(source.current()));
}

/** Paths of the non-empty secret-named keys of a kubesphere.yaml document (`authentication.jwtSecret`), never values. */
function secretPaths(doc: unknown, at = ''): string[] {
  if (Array.isArray(doc)) return doc.flatMap((v, i) => secretPaths(v, `${at}[${i}]`));
  if (!doc || typeof doc !== 'object') return [];
  return Object.entries(doc).flatMap(([k, v]) => {
    const path = at ? `${at}.${k}` : k;
    if (!isSecretKey(k)) return secretPaths(v, path);
    return v === '' || v === undefined || v === null ? [] : [path];
  });
}

/** The `kubesphere.yaml` of a ConfigMap, parsed; undefined when absent or not YAML. */
function documentOf(cm: KubeObject): unknown {
  try {
    return parse(String((cm as { data?: Record<string, string> }).data?.[KUBESPHERE_CONFIG.key] ?? ''));
  } catch {
    return undefined;
  }
}

export function kubeSphereConfigController(rest: KubeRest, source: ConfigSource, logger: Logger): Controller {
  let reported = false;

  function reportForeign(cm: KubeObject): void {
    if (reported) return;
    reported = true;
    const configMap = `${KUBESPHERE_CONFIG.namespace}/${KUBESPHERE_CONFIG.name}`;
    logger.info({ configMap }, 'kubesphere-config exists and is not managed by kapiserver; left as it is');
    const fields = secretPaths(documentOf(cm));
    if (fields.length > 0) {
      logger.warn(
        { configMap, fields },
        'kubesphere-config holds secrets that anyone who may read ConfigMaps in kubesphere-system can see; move them to a Secret or the environment',
      );
    }
  }

  return {
    name: 'kubesphere-config',
    informers: [],
    watch(enqueue) {
      enqueue(KUBESPHERE_CONFIG.name);
      return [source.onChange(() => enqueue(KUBESPHERE_CONFIG.name))];
    },
    async reconcile() {
      const desired = kubesphereYaml(source);
      let current: KubeObject | undefined;
      try {
        current = await rest.get(PATH);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (!current) {
        // A 409 (another writer was first) is retried by the runner, which then reads it.
        await rest.create(COLLECTION, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: KUBESPHERE_CONFIG.name,
            namespace: KUBESPHERE_CONFIG.namespace,
            labels: { [MANAGED_BY]: KAPISERVER },
          },
          data: { [KUBESPHERE_CONFIG.key]: desired },
        });
        return { requeueAfterMs: RESYNC_MS };
      }
      if (current.metadata?.labels?.[MANAGED_BY] !== KAPISERVER) {
        reportForeign(current);
        return { requeueAfterMs: RESYNC_MS };
      }
      if ((current as { data?: Record<string, string> }).data?.[KUBESPHERE_CONFIG.key] !== desired) {
        await rest.mergePatch(PATH, {
          metadata: { resourceVersion: current.metadata?.resourceVersion },
          data: { [KUBESPHERE_CONFIG.key]: desired },
        });
      }
      return { requeueAfterMs: RESYNC_MS };
    },
  };
}
