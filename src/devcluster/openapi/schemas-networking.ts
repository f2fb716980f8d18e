// networking.k8s.io/v1 (NetworkPolicy, Ingress, IngressClass), policy/v1 (PodDisruptionBudget),
// scheduling.k8s.io/v1 (PriorityClass) and storage.k8s.io/v1 (StorageClass) schemas.
import {
  atomic,
  bool,
  INT_OR_STRING,
  int32,
  int64,
  kind,
  list,
  listMap,
  META,
  mergeBy,
  object,
  ref,
  type Schema,
  str,
  stringMap,
  strings,
} from './builders.ts';

const NET = (n: string) => `io.k8s.api.networking.v1.${n}`;
const POLICY = (n: string) => `io.k8s.api.policy.v1.${n}`;
const SCHED = (n: string) => `io.k8s.api.scheduling.v1.${n}`;
const STORAGE = (n: string) => `io.k8s.api.storage.v1.${n}`;
const v1 = (group: string, k: string) => ({ group, version: 'v1', kind: k });
const selector = (d: string) => ref(META('LabelSelector'), d);
const port = (d: string) => ref(INT_OR_STRING, d);

export const networkingSchemas: Record<string, Schema> = {
  [NET('NetworkPolicy')]: kind(
    v1('networking.k8s.io', 'NetworkPolicy'),
    'NetworkPolicy describes what network traffic is allowed for a set of Pods',
    {
      spec: ref(
        NET('NetworkPolicySpec'),
        'spec represents the specification of the desired behavior for this NetworkPolicy.',
      ),
    },
  ),
  [NET('NetworkPolicySpec')]: object('NetworkPolicySpec provides the specification of a NetworkPolicy', {
    podSelector: selector('podSelector selects the pods to which this NetworkPolicy object applies.'),
    policyTypes: strings(
      'policyTypes is a list of rule types that the NetworkPolicy relates to: Ingress, Egress.',
      atomic,
    ),
    ingress: list(
      NET('NetworkPolicyIngressRule'),
      'ingress is a list of ingress rules to be applied to the selected pods.',
      atomic,
    ),
    egress: list(
      NET('NetworkPolicyEgressRule'),
      'egress is a list of egress rules to be applied to the selected pods.',
      atomic,
    ),
  }),
  [NET('NetworkPolicyIngressRule')]: object(
    "NetworkPolicyIngressRule describes a particular set of traffic that is allowed to the pods matched by a NetworkPolicySpec's podSelector.",
    {
      from: list(
        NET('NetworkPolicyPeer'),
        'from is a list of sources which should be able to access the pods selected for this rule.',
        atomic,
      ),
      ports: list(
        NET('NetworkPolicyPort'),
        'ports is a list of ports which should be made accessible on the pods selected for this rule.',
        atomic,
      ),
    },
  ),
  [NET('NetworkPolicyEgressRule')]: object(
    "NetworkPolicyEgressRule describes a particular set of traffic that is allowed out of pods matched by a NetworkPolicySpec's podSelector.",
    {
      to: list(
        NET('NetworkPolicyPeer'),
        'to is a list of destinations for outgoing traffic of pods selected for this rule.',
        atomic,
      ),
      ports: list(
        NET('NetworkPolicyPort'),
        'ports is a list of destination ports for outgoing traffic.',
        atomic,
      ),
    },
  ),
  [NET('NetworkPolicyPeer')]: object('NetworkPolicyPeer describes a peer to allow traffic to/from.', {
    podSelector: selector('podSelector is a label selector which selects pods.'),
    namespaceSelector: selector('namespaceSelector selects namespaces using cluster-scoped labels.'),
    ipBlock: ref(NET('IPBlock'), 'ipBlock defines policy on a particular IPBlock.'),
  }),
  [NET('IPBlock')]: object(
    'IPBlock describes a particular CIDR (Ex. "192.168.1.0/24","2001:db8::/64") that is allowed to the pods matched by a NetworkPolicySpec\'s podSelector.',
    {
      cidr: str('cidr is a string representing the IPBlock'),
      except: strings('except is a slice of CIDRs that should not be included within an IPBlock', atomic),
    },
    ['cidr'],
  ),
  [NET('NetworkPolicyPort')]: object('NetworkPolicyPort describes a port to allow traffic on', {
    protocol: str(
      'protocol represents the protocol (TCP, UDP, or SCTP) which traffic must match. If not specified, this field defaults to TCP.',
    ),
    port: port(
      'port represents the port on the given protocol. This can either be a numerical or named port on a pod.',
    ),
    endPort: int32(
      'endPort indicates that the range of ports from port to endPort if set, inclusive, should be allowed by the policy.',
    ),
  }),

  [NET('Ingress')]: kind(
    v1('networking.k8s.io', 'Ingress'),
    'Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend.',
    {
      spec: ref(NET('IngressSpec'), 'spec is the desired state of the Ingress.'),
      status: ref(NET('IngressStatus'), 'status is the current state of the Ingress.'),
    },
  ),
  [NET('IngressSpec')]: object('IngressSpec describes the Ingress the user wishes to exist.', {
    ingressClassName: str('ingressClassName is the name of an IngressClass cluster resource.'),
    defaultBackend: ref(
      NET('IngressBackend'),
      "defaultBackend is the backend that should handle requests that don't match any rule.",
    ),
    tls: list(NET('IngressTLS'), 'tls represents the TLS configuration.', atomic),
    rules: list(NET('IngressRule'), 'rules is a list of host rules used to configure the Ingress.', atomic),
  }),
  [NET('IngressTLS')]: object(
    'IngressTLS describes the transport layer security associated with an ingress.',
    {
      hosts: strings('hosts is a list of hosts included in the TLS certificate.', atomic),
      secretName: str('secretName is the name of the secret used to terminate TLS traffic on port 443.'),
    },
  ),
  [NET('IngressRule')]: object(
    'IngressRule represents the rules mapping the paths under a specified host to the related backend services.',
    {
      host: str('host is the fully qualified domain name of a network host, as defined by RFC 3986.'),
      http: ref(NET('HTTPIngressRuleValue'), 'http is a list of http selectors pointing to backends.'),
    },
  ),
  [NET('HTTPIngressRuleValue')]: object(
    'HTTPIngressRuleValue is a list of http selectors pointing to backends.',
    {
      paths: list(
        NET('HTTPIngressPath'),
        'paths is a collection of paths that map requests to backends.',
        atomic,
      ),
    },
    ['paths'],
  ),
  [NET('HTTPIngressPath')]: object(
    'HTTPIngressPath associates a path with a backend.',
    {
      path: str('path is matched against the path of an incoming request.'),
      pathType: str(
        'pathType determines the interpretation of the path matching: Exact, Prefix or ImplementationSpecific.',
      ),
      backend: ref(
        NET('IngressBackend'),
        'backend defines the referenced service endpoint to which the traffic will be forwarded to.',
      ),
    },
    ['pathType', 'backend'],
  ),
  [NET('IngressBackend')]: object('IngressBackend describes all endpoints for a given service and port.', {
    service: ref(NET('IngressServiceBackend'), 'service references a service as a backend.'),
    resource: ref(
      'io.k8s.api.core.v1.TypedLocalObjectReference',
      'resource is an ObjectRef to another Kubernetes resource in the namespace of the Ingress object.',
    ),
  }),
  // A core type only Ingress uses here.
  'io.k8s.api.core.v1.TypedLocalObjectReference': object(
    'TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace.',
    {
      apiGroup: str('APIGroup is the group for the resource being referenced.'),
      kind: str('Kind is the type of resource being referenced'),
      name: str('Name is the name of resource being referenced'),
    },
    ['kind', 'name'],
  ),
  [NET('IngressServiceBackend')]: object(
    'IngressServiceBackend references a Kubernetes Service as a Backend.',
    {
      name: str(
        'name is the referenced service. The service must exist in the same namespace as the Ingress object.',
      ),
      port: ref(NET('ServiceBackendPort'), 'port of the referenced service.'),
    },
    ['name'],
  ),
  [NET('ServiceBackendPort')]: object('ServiceBackendPort is the service port being referenced.', {
    name: str('name is the name of the port on the Service.'),
    number: int32('number is the numerical port number (e.g. 80) on the Service.'),
  }),
  [NET('IngressStatus')]: object('IngressStatus describe the current state of the Ingress.', {
    loadBalancer: ref(
      NET('IngressLoadBalancerStatus'),
      'loadBalancer contains the current status of the load-balancer.',
    ),
  }),
  [NET('IngressLoadBalancerStatus')]: object(
    'IngressLoadBalancerStatus represents the status of a load-balancer.',
    {
      ingress: list(
        NET('IngressLoadBalancerIngress'),
        'ingress is a list containing ingress points for the load-balancer.',
        atomic,
      ),
    },
  ),
  [NET('IngressLoadBalancerIngress')]: object(
    'IngressLoadBalancerIngress represents the status of a load-balancer ingress point.',
    {
      ip: str('ip is set for load-balancer ingress points that are IP based.'),
      hostname: str('hostname is set for load-balancer ingress points that are DNS based.'),
      ports: list(
        NET('IngressPortStatus'),
        'ports provides information about the ports exposed by this LoadBalancer.',
        atomic,
      ),
    },
  ),
  [NET('IngressPortStatus')]: object(
    'IngressPortStatus represents the error condition of a service port',
    {
      port: int32('port is the port number of the ingress port.'),
      protocol: str(
        'protocol is the protocol of the ingress port. The supported values are: "TCP", "UDP", "SCTP"',
      ),
      error: str('error is to record the problem with the service port.'),
    },
    ['port', 'protocol'],
  ),

  [NET('IngressClass')]: kind(
    v1('networking.k8s.io', 'IngressClass'),
    'IngressClass represents the class of the Ingress, referenced by the Ingress Spec.',
    { spec: ref(NET('IngressClassSpec'), 'spec is the desired state of the IngressClass.') },
  ),
  [NET('IngressClassSpec')]: object('IngressClassSpec provides information about the class of an Ingress.', {
    controller: str(
      'controller refers to the name of the controller that should handle this class, e.g. "example.com/ingress-controller".',
    ),
    parameters: ref(
      NET('IngressClassParametersReference'),
      'parameters is a link to a custom resource containing additional configuration for the controller.',
    ),
  }),
  [NET('IngressClassParametersReference')]: object(
    'IngressClassParametersReference identifies an API object.',
    {
      apiGroup: str('apiGroup is the group for the resource being referenced.'),
      kind: str('kind is the type of resource being referenced.'),
      name: str('name is the name of resource being referenced.'),
      namespace: str('namespace is the namespace of the resource being referenced.'),
      scope: str(
        'scope represents if this refers to a cluster or namespace scoped resource: "Cluster" or "Namespace".',
      ),
    },
    ['kind', 'name'],
  ),

  [POLICY('PodDisruptionBudget')]: kind(
    v1('policy', 'PodDisruptionBudget'),
    'PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods',
    {
      spec: ref(
        POLICY('PodDisruptionBudgetSpec'),
        'Specification of the desired behavior of the PodDisruptionBudget.',
      ),
      status: ref(
        POLICY('PodDisruptionBudgetStatus'),
        'Most recently observed status of the PodDisruptionBudget.',
      ),
    },
  ),
  [POLICY('PodDisruptionBudgetSpec')]: object(
    'PodDisruptionBudgetSpec is a description of a PodDisruptionBudget.',
    {
      minAvailable: port(
        'An eviction is allowed if at least "minAvailable" pods selected by "selector" will still be available after the eviction.',
      ),
      maxUnavailable: port(
        'An eviction is allowed if at most "maxUnavailable" pods selected by "selector" are unavailable after the eviction.',
      ),
      selector: {
        ...selector('Label query over pods whose evictions are managed by the disruption budget.'),
        'x-kubernetes-patch-strategy': 'replace',
      },
      unhealthyPodEvictionPolicy: str(
        'UnhealthyPodEvictionPolicy defines the criteria for when unhealthy pods should be considered for eviction: IfHealthyBudget or AlwaysAllow.',
      ),
    },
  ),
  [POLICY('PodDisruptionBudgetStatus')]: object(
    'PodDisruptionBudgetStatus represents information about the status of a PodDisruptionBudget.',
    {
      observedGeneration: int64('Most recent generation observed when updating this PDB status.'),
      disruptedPods: {
        type: 'object',
        additionalProperties: ref(META('Time')),
        description:
          'DisruptedPods contains information about pods whose eviction was processed by the API server eviction subresource handler but has not yet been observed by the PodDisruptionBudget controller.',
      },
      disruptionsAllowed: int32('Number of pod disruptions that are currently allowed.'),
      currentHealthy: int32('current number of healthy pods'),
      desiredHealthy: int32('minimum desired number of healthy pods'),
      expectedPods: int32('total number of pods counted by this disruption budget'),
      conditions: list(META('Condition'), 'Conditions contain conditions for PDB.', {
        ...mergeBy('type'),
        ...listMap('type'),
      }),
    },
    ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'],
  ),

  [SCHED('PriorityClass')]: kind(
    v1('scheduling.k8s.io', 'PriorityClass'),
    'PriorityClass defines mapping from a priority class name to the priority integer value. The value can be any valid integer.',
    {
      value: int32('value represents the integer value of this priority class.'),
      globalDefault: bool(
        'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.',
      ),
      description: str(
        'description is an arbitrary string that usually provides guidelines on when this priority class should be used.',
      ),
      preemptionPolicy: str(
        'preemptionPolicy is the Policy for preempting pods with lower priority: Never or PreemptLowerPriority (the default).',
      ),
    },
    ['value'],
  ),
  [STORAGE('StorageClass')]: kind(
    v1('storage.k8s.io', 'StorageClass'),
    'StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned.',
    {
      provisioner: str('provisioner indicates the type of the provisioner.'),
      parameters: stringMap(
        'parameters holds the parameters for the provisioner that should create volumes of this storage class.',
      ),
      reclaimPolicy: str(
        'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
      ),
      mountOptions: strings(
        'mountOptions controls the mountOptions for dynamically provisioned PersistentVolumes of this storage class.',
        atomic,
      ),
      allowVolumeExpansion: bool('allowVolumeExpansion shows whether the storage class allow volume expand.'),
      volumeBindingMode: str(
        'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound. When unset, VolumeBindingImmediate is used.',
      ),
      allowedTopologies: {
        type: 'array',
        description:
          'allowedTopologies restrict the node topologies where volumes can be dynamically provisioned.',
        items: { type: 'object' },
        'x-kubernetes-list-type': 'atomic',
      },
    },
    ['provisioner'],
  ),
};
