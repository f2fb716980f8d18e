// configs/configz: which KubeSphere components are installed, as the flat `name -> boolean` map ks-apiserver builds
// from its configuration (reference 7.1), which the console reads to show or hide whole features. Computed from the
// configuration without changing it (KubeSphere nils the empty sections of its live configuration to build it).
import type { KubeSphereConfig } from '../../../config/index.ts';

const set = (value: string | undefined): boolean => value !== undefined && value !== '';

/** The component map, keys in ks-apiserver's order. */
export function componentsOf(c: KubeSphereConfig): Record<string, boolean> {
  const network = c.network;
  // KubeSphere's defaults: no network policy, IP pool type "none", no Weave Scope.
  const ippool = (network?.ippoolType ?? 'none') !== 'none';
  const networkConfigured = network?.enableNetworkPolicy === true || ippool || set(network?.weaveScopeHost);
  const mesh = c.servicemesh;
  const alerting = c.alerting;
  return {
    devops: set(c.devops?.host),
    sonarqube: set(c.sonarQube?.host),
    kubernetes: true,
    servicemesh:
      set(mesh?.istioPilotHost) || set(mesh?.servicemeshPrometheusHost) || set(mesh?.jaegerQueryHost),
    network: network?.enableNetworkPolicy === true,
    'network.ippool': ippool,
    // Absent, not false, when nothing in the section is configured, as ks-apiserver answers.
    ...(networkConfigured ? { 'network.topology': set(network?.weaveScopeHost) } : {}),
    cache: set(c.cache?.type ?? 'InMemoryCache'),
    s3: set(c.s3?.endpoint),
    // ks-apiserver serves these three itself (always true there); kapiserver serves none of their APIs, so the console
    // is told they are absent and hides their pages instead of calling routes that do not exist.
    openpitrix: false,
    'openpitrix.appstore': false,
    monitoring: set(c.monitoring?.endpoint),
    logging: set(c.logging?.host),
    authentication: true,
    authorization: true,
    multicluster: c.multicluster?.enable === true,
    events: set(c.events?.host),
    auditing: set(c.auditing.host),
    alerting:
      set(alerting?.endpoint) || set(alerting?.prometheusEndpoint) || set(alerting?.thanosRulerEndpoint),
    notification: set(c.notification?.endpoint),
    kubeedge: set(c.kubeedge?.endpoint),
    edgeruntime: set(c.edgeruntime?.endpoint),
    metering: false,
    gateway: false,
    gpu: (c.gpu?.kinds?.length ?? 0) > 0,
    terminal: true,
  };
}
