// The sections of KubeSphere's kubesphere.yaml that name components kapiserver does not run (DevOps, logging, service
// mesh ...). kapiserver reads from them only the keys that tell whether each component is installed, which
// `configs/configz` reports to the console (docs: reference 7.1); everything else in them is ignored.
import Type, { type TProperties } from 'typebox';

const Host = Type.Optional(Type.String({ description: 'set: the component is installed' }));

const Section = <P extends TProperties>(properties: P) => Type.Optional(Type.Object(properties));

const GpuKind = Type.Object({
  resourceName: Type.Optional(Type.String({ description: 'the extended resource, e.g. nvidia.com/gpu' })),
  resourceType: Type.Optional(Type.String()),
  default: Type.Optional(Type.Boolean()),
});

/** One entry per component section, merged into the configuration schema. */
export const ComponentSections = {
  devops: Section({ host: Host }),
  sonarQube: Section({ host: Host }),
  servicemesh: Section({
    istioPilotHost: Host,
    servicemeshPrometheusHost: Host,
    jaegerQueryHost: Host,
  }),
  network: Section({
    enableNetworkPolicy: Type.Optional(Type.Boolean()),
    ippoolType: Type.Optional(Type.String({ description: '"none" (the default): no IP pools' })),
    weaveScopeHost: Host,
  }),
  cache: Section({ type: Type.Optional(Type.String({ description: 'default: the in-memory cache' })) }),
  s3: Section({ endpoint: Host }),
  openpitrix: Section({ s3: Type.Optional(Type.Object({ endpoint: Host })) }),
  logging: Section({ host: Host }),
  events: Section({ host: Host }),
  multicluster: Section({
    enable: Type.Optional(Type.Boolean()),
    clusterRole: Type.Optional(Type.String({ description: 'host or member; the console reads it' })),
  }),
  alerting: Section({ endpoint: Host, prometheusEndpoint: Host, thanosRulerEndpoint: Host }),
  notification: Section({ endpoint: Host }),
  kubeedge: Section({ endpoint: Host }),
  edgeruntime: Section({ endpoint: Host }),
  gpu: Section({ kinds: Type.Optional(Type.Array(GpuKind)) }),
};
