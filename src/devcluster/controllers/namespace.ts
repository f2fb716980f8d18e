// The root CA publisher kube-controller-manager runs: every active namespace holds the `kube-root-ca.crt`
// ConfigMap with the cluster's CA certificate (what projected service-account volumes mount), put back when
// removed or changed.
import { jsonEqual } from '../meta.ts';
import type { Obj } from '../store.ts';
import { type Controller, FIELD_MANAGER, ownKey } from './framework.ts';

const ROOT_CA = 'kube-root-ca.crt';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export function rootCaPublisher(caPem: string): Controller {
  const data = { 'ca.crt': caPem };
  return {
    name: 'root-ca-cert-publisher',
    watches: [
      { res: '/namespaces', keys: ownKey },
      { res: '/configmaps', keys: (ev) => (ev.name === ROOT_CA ? [ev.ns] : []) },
    ],
    reconcile(ns, ctx) {
      const nsEntry = ctx.store.get('/namespaces', '', ns);
      if (!nsEntry || (nsEntry.obj.metadata as Obj).deletionTimestamp) return undefined;
      const d = ctx.def('', 'configmaps');
      const cur = ctx.store.get('/configmaps', ns, ROOT_CA);
      if (!cur) {
        ctx.rest.create(
          d,
          ns,
          { metadata: { name: ROOT_CA, annotations: { 'kubernetes.io/description': DESCRIPTION } }, data },
          { fieldManager: FIELD_MANAGER },
        );
      } else if (!jsonEqual(cur.obj.data, data)) {
        const meta = { ...(cur.obj.metadata as Obj), resourceVersion: String(cur.rv) };
        ctx.rest.update(
          d,
          ns,
          ROOT_CA,
          { ...cur.obj, metadata: meta, data },
          { fieldManager: FIELD_MANAGER },
        );
      }
      return undefined;
    },
  };
}
