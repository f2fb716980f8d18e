// core/v1 schemas: the kinds the dev cluster serves and the pod template types workloads embed.
// Descriptions are shortened from the Kubernetes API reference; patch keys follow the upstream Go struct tags.
import {
  atomic,
  bool,
  CORE,
  INT_OR_STRING,
  int32,
  int64,
  kind,
  list,
  listMap,
  META,
  mergeBy,
  object,
  QUANTITY,
  ref,
  refMap,
  type Schema,
  str,
  stringMap,
  strings,
} from './builders.ts';

const v1 = (k: string) => ({ group: '', version: 'v1', kind: k });
const time = (d: string) => ref(META('Time'), d);
const selector = (d: string) => ref(META('LabelSelector'), d);

const containerProps = (what: string): Record<string, Schema> => ({
  args: strings(
    `Arguments to the entrypoint. The container image's CMD is used if this is not provided.`,
    atomic,
  ),
  command: strings(
    `Entrypoint array. Not executed within a shell. The container image's ENTRYPOINT is used if this is not provided.`,
    atomic,
  ),
  env: list(CORE('EnvVar'), `List of environment variables to set in the ${what}.`, {
    ...mergeBy('name'),
    ...listMap('name'),
  }),
  envFrom: list(
    CORE('EnvFromSource'),
    'List of sources to populate environment variables in the container.',
    atomic,
  ),
  image: str('Container image name. More info: https://kubernetes.io/docs/concepts/containers/images'),
  imagePullPolicy: str(
    'Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise.',
  ),
  lifecycle: ref(
    CORE('Lifecycle'),
    'Actions that the management system should take in response to container lifecycle events.',
  ),
  livenessProbe: ref(
    CORE('Probe'),
    'Periodic probe of container liveness. Container will be restarted if the probe fails.',
  ),
  name: str(
    `Name of the ${what} specified as a DNS_LABEL. Each container in a pod must have a unique name (DNS_LABEL).`,
  ),
  ports: list(CORE('ContainerPort'), 'List of ports to expose from the container.', {
    ...mergeBy('containerPort'),
    ...listMap('containerPort', 'protocol'),
  }),
  readinessProbe: ref(
    CORE('Probe'),
    'Periodic probe of container service readiness. Container will be removed from service endpoints if the probe fails.',
  ),
  resources: ref(CORE('ResourceRequirements'), 'Compute Resources required by this container.'),
  restartPolicy: str(
    'RestartPolicy defines the restart behavior of individual containers in a pod (only "Always" for init containers).',
  ),
  securityContext: ref(
    CORE('SecurityContext'),
    'SecurityContext defines the security options the container should be run with.',
  ),
  startupProbe: ref(CORE('Probe'), 'StartupProbe indicates that the Pod has successfully initialized.'),
  stdin: bool('Whether this container should allocate a buffer for stdin in the container runtime.'),
  stdinOnce: bool(
    'Whether the container runtime should close the stdin channel after it has been opened by a single attach.',
  ),
  terminationMessagePath: str(
    "Path at which the file to which the container's termination message will be written is mounted.",
  ),
  terminationMessagePolicy: str(
    'Indicate how the termination message should be populated: File or FallbackToLogsOnError.',
  ),
  tty: bool("Whether this container should allocate a TTY for itself, also requires 'stdin' to be true."),
  volumeDevices: list(
    CORE('VolumeDevice'),
    'volumeDevices is the list of block devices to be used by the container.',
    {
      ...mergeBy('devicePath'),
      ...listMap('devicePath'),
    },
  ),
  volumeMounts: list(CORE('VolumeMount'), "Pod volumes to mount into the container's filesystem.", {
    ...mergeBy('mountPath'),
    ...listMap('mountPath'),
  }),
  workingDir: str("Container's working directory."),
});

const nodeSelectorTerm = CORE('NodeSelectorTerm');
const handler = (d: string) =>
  object(d, {
    exec: ref(CORE('ExecAction'), 'Exec specifies a command to execute in the container.'),
    grpc: ref(CORE('GRPCAction'), 'GRPC specifies a GRPC HealthCheckRequest.'),
    httpGet: ref(CORE('HTTPGetAction'), 'HTTPGet specifies an HTTP GET request to perform.'),
    tcpSocket: ref(CORE('TCPSocketAction'), 'TCPSocket specifies a connection to a TCP port.'),
  });

const keyItems = (d: string) => list(CORE('KeyToPath'), d, atomic);

export const coreSchemas: Record<string, Schema> = {
  [CORE('Namespace')]: kind(
    v1('Namespace'),
    'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
    {
      spec: ref(CORE('NamespaceSpec'), 'Spec defines the behavior of the Namespace.'),
      status: ref(CORE('NamespaceStatus'), 'Status describes the current status of a Namespace.'),
    },
  ),
  [CORE('NamespaceSpec')]: object('NamespaceSpec describes the attributes on a Namespace.', {
    finalizers: strings(
      'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.',
      atomic,
    ),
  }),
  [CORE('NamespaceStatus')]: object(
    'NamespaceStatus is information about the current status of a Namespace.',
    {
      conditions: list(
        CORE('NamespaceCondition'),
        "Represents the latest available observations of a namespace's current state.",
        {
          ...mergeBy('type'),
          ...listMap('type'),
        },
      ),
      phase: str('Phase is the current lifecycle phase of the namespace: Active or Terminating.'),
    },
  ),
  [CORE('NamespaceCondition')]: object(
    'NamespaceCondition contains details about state of namespace.',
    {
      lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
      message: str('Human-readable message indicating details about last transition.'),
      reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: str('Status of the condition, one of True, False, Unknown.'),
      type: str('Type of namespace controller condition.'),
    },
    ['type', 'status'],
  ),

  [CORE('Node')]: kind(
    v1('Node'),
    'Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).',
    {
      spec: ref(CORE('NodeSpec'), 'Spec defines the behavior of a node.'),
      status: ref(
        CORE('NodeStatus'),
        'Most recently observed status of the node. Populated by the system. Read-only.',
      ),
    },
  ),
  [CORE('NodeSpec')]: object('NodeSpec describes the attributes that a node is created with.', {
    podCIDR: str('PodCIDR represents the pod IP range assigned to the node.'),
    podCIDRs: strings(
      'podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node.',
      {
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
    ),
    providerID: str(
      'ID of the node assigned by the cloud provider in the format: <ProviderName>://<ProviderSpecificNodeID>',
    ),
    taints: list(CORE('Taint'), "If specified, the node's taints.", atomic),
    unschedulable: bool(
      'Unschedulable controls node schedulability of new pods. By default, node is schedulable.',
    ),
  }),
  [CORE('Taint')]: object(
    'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.',
    {
      effect: str(
        'Required. The effect of the taint on pods that do not tolerate the taint: NoSchedule, PreferNoSchedule and NoExecute.',
      ),
      key: str('Required. The taint key to be applied to a node.'),
      timeAdded: time('TimeAdded represents the time at which the taint was added.'),
      value: str('The taint value corresponding to the taint key.'),
    },
    ['key', 'effect'],
  ),
  [CORE('NodeStatus')]: object('NodeStatus is information about the current status of a node.', {
    addresses: list(CORE('NodeAddress'), 'List of addresses reachable to the node.', {
      ...mergeBy('type'),
      ...listMap('type'),
    }),
    allocatable: refMap(
      QUANTITY,
      'Allocatable represents the resources of a node that are available for scheduling.',
    ),
    capacity: refMap(QUANTITY, 'Capacity represents the total resources of a node.'),
    conditions: list(CORE('NodeCondition'), 'Conditions is an array of current observed node conditions.', {
      ...mergeBy('type'),
      ...listMap('type'),
    }),
    nodeInfo: ref(CORE('NodeSystemInfo'), 'Set of ids/uuids to uniquely identify the node.'),
    phase: str('NodePhase is the recently observed lifecycle phase of the node (deprecated).'),
  }),
  [CORE('NodeAddress')]: object(
    "NodeAddress contains information for the node's address.",
    {
      address: str('The node address.'),
      type: str('Node address type, one of Hostname, ExternalIP or InternalIP.'),
    },
    ['type', 'address'],
  ),
  [CORE('NodeCondition')]: object(
    'NodeCondition contains condition information for a node.',
    {
      lastHeartbeatTime: time('Last time we got an update on a given condition.'),
      lastTransitionTime: time('Last time the condition transit from one status to another.'),
      message: str('Human readable message indicating details about last transition.'),
      reason: str("(brief) reason for the condition's last transition."),
      status: str('Status of the condition, one of True, False, Unknown.'),
      type: str('Type of node condition.'),
    },
    ['type', 'status'],
  ),
  [CORE('NodeSystemInfo')]: object('NodeSystemInfo is a set of ids/uuids to uniquely identify the node.', {
    architecture: str('The Architecture reported by the node'),
    bootID: str('Boot ID reported by the node.'),
    containerRuntimeVersion: str(
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
    ),
    kernelVersion: str("Kernel Version reported by the node from 'uname -r'."),
    kubeProxyVersion: str('Deprecated: KubeProxy Version reported by the node.'),
    kubeletVersion: str('Kubelet Version reported by the node.'),
    machineID: str('MachineID reported by the node.'),
    operatingSystem: str('The Operating System reported by the node'),
    osImage: str('OS Image reported by the node from /etc/os-release.'),
    systemUUID: str('SystemUUID reported by the node.'),
  }),

  [CORE('Pod')]: kind(
    v1('Pod'),
    'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.',
    {
      spec: ref(CORE('PodSpec'), 'Specification of the desired behavior of the pod.'),
      status: ref(
        CORE('PodStatus'),
        'Most recently observed status of the pod. Populated by the system. Read-only.',
      ),
    },
  ),
  [CORE('PodTemplateSpec')]: object(
    'PodTemplateSpec describes the data a pod should have when created from a template',
    {
      metadata: ref(META('ObjectMeta'), "Standard object's metadata."),
      spec: ref(CORE('PodSpec'), 'Specification of the desired behavior of the pod.'),
    },
  ),
  [CORE('PodSpec')]: object(
    'PodSpec is a description of a pod.',
    {
      activeDeadlineSeconds: int64(
        'Optional duration in seconds the pod may be active on the node relative to StartTime before the system will actively try to mark it failed.',
      ),
      affinity: ref(CORE('Affinity'), "If specified, the pod's scheduling constraints"),
      automountServiceAccountToken: bool(
        'AutomountServiceAccountToken indicates whether a service account token should be automatically mounted.',
      ),
      containers: list(
        CORE('Container'),
        'List of containers belonging to the pod. There must be at least one container in a Pod.',
        {
          ...mergeBy('name'),
          ...listMap('name'),
        },
      ),
      dnsConfig: { type: 'object', description: 'Specifies the DNS parameters of a pod.' },
      dnsPolicy: str(
        "Set DNS policy for the pod. Defaults to \"ClusterFirst\". Valid values are 'ClusterFirstWithHostNet', 'ClusterFirst', 'Default' or 'None'.",
      ),
      enableServiceLinks: bool(
        "EnableServiceLinks indicates whether information about services should be injected into pod's environment variables.",
      ),
      ephemeralContainers: list(CORE('EphemeralContainer'), 'List of ephemeral containers run in this pod.', {
        ...mergeBy('name'),
        ...listMap('name'),
      }),
      hostAliases: list(
        CORE('HostAlias'),
        "HostAliases is an optional list of hosts and IPs that will be injected into the pod's hosts file.",
        {
          ...mergeBy('ip'),
          ...listMap('ip'),
        },
      ),
      hostIPC: bool("Use the host's ipc namespace."),
      hostNetwork: bool("Host networking requested for this pod. Use the host's network namespace."),
      hostPID: bool("Use the host's pid namespace."),
      hostname: str(
        "Specifies the hostname of the Pod. If not specified, the pod's hostname will be set to a system-defined value.",
      ),
      imagePullSecrets: list(
        CORE('LocalObjectReference'),
        'ImagePullSecrets is an optional list of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec.',
        {
          ...mergeBy('name'),
          ...listMap('name'),
        },
      ),
      initContainers: list(
        CORE('Container'),
        'List of initialization containers belonging to the pod. Init containers are executed in order prior to containers being started.',
        {
          ...mergeBy('name'),
          ...listMap('name'),
        },
      ),
      nodeName: str('NodeName indicates in which node this pod is scheduled.'),
      nodeSelector: {
        ...stringMap('NodeSelector is a selector which must be true for the pod to fit on a node.'),
        'x-kubernetes-map-type': 'atomic',
      },
      overhead: refMap(
        QUANTITY,
        'Overhead represents the resource overhead associated with running a pod for a given RuntimeClass.',
      ),
      preemptionPolicy: str(
        'PreemptionPolicy is the Policy for preempting pods with lower priority: Never or PreemptLowerPriority.',
      ),
      priority: int32(
        'The priority value. Various system components use this field to find the priority of the pod.',
      ),
      priorityClassName: str("If specified, indicates the pod's priority."),
      readinessGates: {
        type: 'array',
        items: { type: 'object' },
        description: 'If specified, all readiness gates will be evaluated for pod readiness.',
        ...atomic,
      },
      restartPolicy: str(
        'Restart policy for all containers within the pod. One of Always, OnFailure, Never. Default to Always.',
      ),
      runtimeClassName: str(
        'RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group, which should be used to run this pod.',
      ),
      schedulerName: str('If specified, the pod will be dispatched by specified scheduler.'),
      securityContext: ref(
        CORE('PodSecurityContext'),
        'SecurityContext holds pod-level security attributes and common container settings.',
      ),
      serviceAccount: str('DeprecatedServiceAccount is a deprecated alias for ServiceAccountName.'),
      serviceAccountName: str('ServiceAccountName is the name of the ServiceAccount to use to run this pod.'),
      setHostnameAsFQDN: bool(
        "If true the pod's hostname will be configured as the pod's FQDN, rather than the leaf name.",
      ),
      shareProcessNamespace: bool('Share a single process namespace between all of the containers in a pod.'),
      subdomain: str(
        'If specified, the fully qualified Pod hostname will be "<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>".',
      ),
      terminationGracePeriodSeconds: int64(
        'Optional duration in seconds the pod needs to terminate gracefully. Defaults to 30 seconds.',
      ),
      tolerations: list(CORE('Toleration'), "If specified, the pod's tolerations.", atomic),
      topologySpreadConstraints: list(
        CORE('TopologySpreadConstraint'),
        'TopologySpreadConstraints describes how a group of pods ought to spread across topology domains.',
        {
          ...mergeBy('topologyKey'),
          ...listMap('topologyKey', 'whenUnsatisfiable'),
        },
      ),
      volumes: list(
        CORE('Volume'),
        'List of volumes that can be mounted by containers belonging to the pod.',
        {
          ...mergeBy('name', 'merge,retainKeys'),
          ...listMap('name'),
        },
      ),
    },
    ['containers'],
  ),
  [CORE('Container')]: object(
    'A single application container that you want to run within a pod.',
    containerProps('container'),
    ['name'],
  ),
  [CORE('EphemeralContainer')]: object(
    'An EphemeralContainer is a temporary container that you may add to an existing Pod for user-initiated activities such as debugging.',
    {
      ...containerProps('ephemeral container'),
      targetContainerName: str(
        'If set, the name of the container from PodSpec that this ephemeral container targets.',
      ),
    },
    ['name'],
  ),
  [CORE('ContainerPort')]: object(
    'ContainerPort represents a network port in a single container.',
    {
      containerPort: int32(
        "Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536.",
      ),
      hostIP: str('What host IP to bind the external port to.'),
      hostPort: int32('Number of port to expose on the host.'),
      name: str('If specified, this must be an IANA_SVC_NAME and unique within the pod.'),
      protocol: {
        ...str('Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".'),
        default: 'TCP',
      },
    },
    ['containerPort'],
  ),
  [CORE('EnvVar')]: object(
    'EnvVar represents an environment variable present in a Container.',
    {
      name: str('Name of the environment variable. Must be a C_IDENTIFIER.'),
      value: str(
        'Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container and any service environment variables.',
      ),
      valueFrom: ref(
        CORE('EnvVarSource'),
        "Source for the environment variable's value. Cannot be used if value is not empty.",
      ),
    },
    ['name'],
  ),
  [CORE('EnvVarSource')]: object('EnvVarSource represents a source for the value of an EnvVar.', {
    configMapKeyRef: ref(CORE('ConfigMapKeySelector'), 'Selects a key of a ConfigMap.'),
    fieldRef: ref(CORE('ObjectFieldSelector'), 'Selects a field of the pod.'),
    resourceFieldRef: ref(CORE('ResourceFieldSelector'), 'Selects a resource of the container.'),
    secretKeyRef: ref(CORE('SecretKeySelector'), "Selects a key of a secret in the pod's namespace"),
  }),
  [CORE('ConfigMapKeySelector')]: object(
    'Selects a key from a ConfigMap.',
    {
      key: str('The key to select.'),
      name: str('Name of the referent.'),
      optional: bool('Specify whether the ConfigMap or its key must be defined'),
    },
    ['key'],
  ),
  [CORE('SecretKeySelector')]: object(
    'SecretKeySelector selects a key of a Secret.',
    {
      key: str('The key of the secret to select from. Must be a valid secret key.'),
      name: str('Name of the referent.'),
      optional: bool('Specify whether the Secret or its key must be defined'),
    },
    ['key'],
  ),
  [CORE('ObjectFieldSelector')]: object(
    'ObjectFieldSelector selects an APIVersioned field of an object.',
    {
      apiVersion: str('Version of the schema the FieldPath is written in terms of, defaults to "v1".'),
      fieldPath: str('Path of the field to select in the specified API version.'),
    },
    ['fieldPath'],
  ),
  [CORE('ResourceFieldSelector')]: object(
    'ResourceFieldSelector represents container resources (cpu, memory) and their output format',
    {
      containerName: str('Container name: required for volumes, optional for env vars'),
      divisor: ref(QUANTITY, 'Specifies the output format of the exposed resources, defaults to "1"'),
      resource: str('Required: resource to select'),
    },
    ['resource'],
  ),
  [CORE('EnvFromSource')]: object('EnvFromSource represents the source of a set of ConfigMaps or Secrets', {
    configMapRef: ref(CORE('ConfigMapEnvSource'), 'The ConfigMap to select from'),
    prefix: str('Optional text to prepend to the name of each environment variable.'),
    secretRef: ref(CORE('SecretEnvSource'), 'The Secret to select from'),
  }),
  [CORE('ConfigMapEnvSource')]: object(
    'ConfigMapEnvSource selects a ConfigMap to populate the environment variables with.',
    {
      name: str('Name of the referent.'),
      optional: bool('Specify whether the ConfigMap must be defined'),
    },
  ),
  [CORE('SecretEnvSource')]: object(
    'SecretEnvSource selects a Secret to populate the environment variables with.',
    {
      name: str('Name of the referent.'),
      optional: bool('Specify whether the Secret must be defined'),
    },
  ),
  [CORE('ResourceRequirements')]: object(
    'ResourceRequirements describes the compute resource requirements.',
    {
      limits: refMap(QUANTITY, 'Limits describes the maximum amount of compute resources allowed.'),
      requests: refMap(QUANTITY, 'Requests describes the minimum amount of compute resources required.'),
    },
  ),
  [CORE('VolumeMount')]: object(
    'VolumeMount describes a mounting of a Volume within a container.',
    {
      mountPath: str(
        "Path within the container at which the volume should be mounted. Must not contain ':'.",
      ),
      mountPropagation: str(
        'mountPropagation determines how mounts are propagated from the host to container and the other way around.',
      ),
      name: str('This must match the Name of a Volume.'),
      readOnly: bool('Mounted read-only if true, read-write otherwise (false or unspecified).'),
      subPath: str("Path within the volume from which the container's volume should be mounted."),
      subPathExpr: str(
        "Expanded path within the volume from which the container's volume should be mounted.",
      ),
    },
    ['name', 'mountPath'],
  ),
  [CORE('VolumeDevice')]: object(
    'volumeDevice describes a mapping of a raw block device within a container.',
    {
      devicePath: str('devicePath is the path inside of the container that the device will be mapped to.'),
      name: str('name must match the name of a persistentVolumeClaim in the pod'),
    },
    ['name', 'devicePath'],
  ),
  [CORE('Probe')]: object(
    'Probe describes a health check to be performed against a container to determine whether it is alive or ready to receive traffic.',
    {
      exec: ref(CORE('ExecAction'), 'Exec specifies a command to execute in the container.'),
      failureThreshold: int32(
        'Minimum consecutive failures for the probe to be considered failed after having succeeded. Defaults to 3.',
      ),
      grpc: ref(CORE('GRPCAction'), 'GRPC specifies a GRPC HealthCheckRequest.'),
      httpGet: ref(CORE('HTTPGetAction'), 'HTTPGet specifies an HTTP GET request to perform.'),
      initialDelaySeconds: int32(
        'Number of seconds after the container has started before liveness probes are initiated.',
      ),
      periodSeconds: int32('How often (in seconds) to perform the probe. Default to 10 seconds.'),
      successThreshold: int32(
        'Minimum consecutive successes for the probe to be considered successful after having failed. Defaults to 1.',
      ),
      tcpSocket: ref(CORE('TCPSocketAction'), 'TCPSocket specifies a connection to a TCP port.'),
      terminationGracePeriodSeconds: int64(
        'Optional duration in seconds the pod needs to terminate gracefully upon probe failure.',
      ),
      timeoutSeconds: int32('Number of seconds after which the probe times out. Defaults to 1 second.'),
    },
  ),
  [CORE('ExecAction')]: object('ExecAction describes a "run in container" action.', {
    command: strings('Command is the command line to execute inside the container.', atomic),
  }),
  [CORE('GRPCAction')]: object(
    'GRPCAction specifies an action involving a GRPC service.',
    {
      port: int32('Port number of the gRPC service. Number must be in the range 1 to 65535.'),
      service: str('Service is the name of the service to place in the gRPC HealthCheckRequest.'),
    },
    ['port'],
  ),
  [CORE('HTTPGetAction')]: object(
    'HTTPGetAction describes an action based on HTTP Get requests.',
    {
      host: str('Host name to connect to, defaults to the pod IP.'),
      httpHeaders: {
        type: 'array',
        items: { type: 'object' },
        description: 'Custom headers to set in the request.',
        ...atomic,
      },
      path: str('Path to access on the HTTP server.'),
      port: ref(INT_OR_STRING, 'Name or number of the port to access on the container.'),
      scheme: str('Scheme to use for connecting to the host. Defaults to HTTP.'),
    },
    ['port'],
  ),
  [CORE('TCPSocketAction')]: object(
    'TCPSocketAction describes an action based on opening a socket',
    {
      host: str('Optional: Host name to connect to, defaults to the pod IP.'),
      port: ref(INT_OR_STRING, 'Number or name of the port to access on the container.'),
    },
    ['port'],
  ),
  [CORE('Lifecycle')]: object(
    'Lifecycle describes actions that the management system should take in response to container lifecycle events.',
    {
      postStart: ref(
        CORE('LifecycleHandler'),
        'PostStart is called immediately after a container is created.',
      ),
      preStop: ref(
        CORE('LifecycleHandler'),
        'PreStop is called immediately before a container is terminated.',
      ),
    },
  ),
  [CORE('LifecycleHandler')]: handler(
    'LifecycleHandler defines a specific action that should be taken in a lifecycle hook.',
  ),
  [CORE('SecurityContext')]: object(
    'SecurityContext holds security configuration that will be applied to a container.',
    {
      allowPrivilegeEscalation: bool(
        'AllowPrivilegeEscalation controls whether a process can gain more privileges than its parent process.',
      ),
      capabilities: ref(CORE('Capabilities'), 'The capabilities to add/drop when running containers.'),
      privileged: bool('Run container in privileged mode. Defaults to false.'),
      procMount: str('procMount denotes the type of proc mount to use for the containers.'),
      readOnlyRootFilesystem: bool(
        'Whether this container has a read-only root filesystem. Default is false.',
      ),
      runAsGroup: int64('The GID to run the entrypoint of the container process.'),
      runAsNonRoot: bool('Indicates that the container must run as a non-root user.'),
      runAsUser: int64('The UID to run the entrypoint of the container process.'),
      seLinuxOptions: { type: 'object', description: 'The SELinux context to be applied to the container.' },
      seccompProfile: { type: 'object', description: 'The seccomp options to use by this container.' },
    },
  ),
  [CORE('Capabilities')]: object('Adds and removes POSIX capabilities from running containers.', {
    add: strings('Added capabilities', atomic),
    drop: strings('Removed capabilities', atomic),
  }),
  [CORE('PodSecurityContext')]: object(
    'PodSecurityContext holds pod-level security attributes and common container settings.',
    {
      fsGroup: int64('A special supplemental group that applies to all containers in a pod.'),
      fsGroupChangePolicy: str(
        'fsGroupChangePolicy defines behavior of changing ownership and permission of the volume before being exposed inside Pod.',
      ),
      runAsGroup: int64('The GID to run the entrypoint of the container process.'),
      runAsNonRoot: bool('Indicates that the container must run as a non-root user.'),
      runAsUser: int64('The UID to run the entrypoint of the container process.'),
      seLinuxOptions: { type: 'object', description: 'The SELinux context to be applied to all containers.' },
      seccompProfile: {
        type: 'object',
        description: 'The seccomp options to use by the containers in this pod.',
      },
      supplementalGroups: {
        type: 'array',
        items: { type: 'integer', format: 'int64' },
        description: 'A list of groups applied to the first process run in each container.',
        ...atomic,
      },
      sysctls: {
        type: 'array',
        items: { type: 'object' },
        description: 'Sysctls hold a list of namespaced sysctls used for the pod.',
        ...atomic,
      },
    },
  ),
  [CORE('Toleration')]: object(
    'The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>.',
    {
      effect: str('Effect indicates the taint effect to match. Empty means match all taint effects.'),
      key: str('Key is the taint key that the toleration applies to. Empty means match all taint keys.'),
      operator: str(
        "Operator represents a key's relationship to the value. Valid operators are Exists and Equal. Defaults to Equal.",
      ),
      tolerationSeconds: int64(
        'TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute) tolerates the taint.',
      ),
      value: str('Value is the taint value the toleration matches to.'),
    },
  ),
  [CORE('TopologySpreadConstraint')]: object(
    'TopologySpreadConstraint specifies how to spread matching pods among the given topology.',
    {
      labelSelector: selector('LabelSelector is used to find matching pods.'),
      maxSkew: int32('MaxSkew describes the degree to which pods may be unevenly distributed.'),
      topologyKey: str('TopologyKey is the key of node labels.'),
      whenUnsatisfiable: str(
        "WhenUnsatisfiable indicates how to deal with a pod if it doesn't satisfy the spread constraint.",
      ),
    },
    ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
  ),
  [CORE('HostAlias')]: object(
    "HostAlias holds the mapping between IP and hostnames that will be injected as an entry in the pod's hosts file.",
    {
      hostnames: strings('Hostnames for the above IP address.', atomic),
      ip: str('IP address of the host file entry.'),
    },
    ['ip'],
  ),
  [CORE('Affinity')]: object('Affinity is a group of affinity scheduling rules.', {
    nodeAffinity: ref(CORE('NodeAffinity'), 'Describes node affinity scheduling rules for the pod.'),
    podAffinity: ref(CORE('PodAffinity'), 'Describes pod affinity scheduling rules.'),
    podAntiAffinity: ref(CORE('PodAntiAffinity'), 'Describes pod anti-affinity scheduling rules.'),
  }),
  [CORE('NodeAffinity')]: object('Node affinity is a group of node affinity scheduling rules.', {
    preferredDuringSchedulingIgnoredDuringExecution: list(
      CORE('PreferredSchedulingTerm'),
      'The scheduler will prefer to schedule pods to nodes that satisfy the affinity expressions specified by this field.',
      atomic,
    ),
    requiredDuringSchedulingIgnoredDuringExecution: ref(
      CORE('NodeSelector'),
      'If the affinity requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node.',
    ),
  }),
  [CORE('NodeSelector')]: object(
    'A node selector represents the union of the results of one or more label queries over a set of nodes.',
    {
      nodeSelectorTerms: list(
        nodeSelectorTerm,
        'Required. A list of node selector terms. The terms are ORed.',
        atomic,
      ),
    },
    ['nodeSelectorTerms'],
  ),
  [nodeSelectorTerm]: object(
    'A null or empty node selector term matches no objects. The requirements of them are ANDed.',
    {
      matchExpressions: list(
        CORE('NodeSelectorRequirement'),
        "A list of node selector requirements by node's labels.",
        atomic,
      ),
      matchFields: list(
        CORE('NodeSelectorRequirement'),
        "A list of node selector requirements by node's fields.",
        atomic,
      ),
    },
  ),
  [CORE('NodeSelectorRequirement')]: object(
    'A node selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
    {
      key: str('The label key that the selector applies to.'),
      operator: str(
        "Represents a key's relationship to a set of values: In, NotIn, Exists, DoesNotExist, Gt, and Lt.",
      ),
      values: strings('An array of string values.', atomic),
    },
    ['key', 'operator'],
  ),
  [CORE('PreferredSchedulingTerm')]: object(
    'An empty preferred scheduling term matches all objects with implicit weight 0.',
    {
      preference: ref(nodeSelectorTerm, 'A node selector term, associated with the corresponding weight.'),
      weight: int32(
        'Weight associated with matching the corresponding nodeSelectorTerm, in the range 1-100.',
      ),
    },
    ['weight', 'preference'],
  ),
  [CORE('PodAffinity')]: object('Pod affinity is a group of inter pod affinity scheduling rules.', {
    preferredDuringSchedulingIgnoredDuringExecution: list(
      CORE('WeightedPodAffinityTerm'),
      'The scheduler will prefer to schedule pods to nodes that satisfy the affinity expressions specified by this field.',
      atomic,
    ),
    requiredDuringSchedulingIgnoredDuringExecution: list(
      CORE('PodAffinityTerm'),
      'If the affinity requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node.',
      atomic,
    ),
  }),
  [CORE('PodAntiAffinity')]: object(
    'Pod anti affinity is a group of inter pod anti affinity scheduling rules.',
    {
      preferredDuringSchedulingIgnoredDuringExecution: list(
        CORE('WeightedPodAffinityTerm'),
        'The scheduler will prefer to schedule pods to nodes that satisfy the anti-affinity expressions specified by this field.',
        atomic,
      ),
      requiredDuringSchedulingIgnoredDuringExecution: list(
        CORE('PodAffinityTerm'),
        'If the anti-affinity requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node.',
        atomic,
      ),
    },
  ),
  [CORE('PodAffinityTerm')]: object(
    'Defines a set of pods that this pod should be co-located (affinity) or not co-located (anti-affinity) with.',
    {
      labelSelector: selector('A label query over a set of resources, in this case pods.'),
      namespaceSelector: selector('A label query over the set of namespaces that the term applies to.'),
      namespaces: strings(
        'namespaces specifies a static list of namespace names that the term applies to.',
        atomic,
      ),
      topologyKey: str(
        'This pod should be co-located (affinity) or not co-located (anti-affinity) with the pods matching the labelSelector in the specified namespaces.',
      ),
    },
    ['topologyKey'],
  ),
  [CORE('WeightedPodAffinityTerm')]: object(
    'The weights of all of the matched WeightedPodAffinityTerm fields are added per-node to find the most preferred node(s)',
    {
      podAffinityTerm: ref(
        CORE('PodAffinityTerm'),
        'Required. A pod affinity term, associated with the corresponding weight.',
      ),
      weight: int32('weight associated with matching the corresponding podAffinityTerm, in the range 1-100.'),
    },
    ['weight', 'podAffinityTerm'],
  ),
  [CORE('LocalObjectReference')]: {
    ...object(
      'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.',
      {
        name: str(
          'Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names',
        ),
      },
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [CORE('ObjectReference')]: {
    ...object(
      'ObjectReference contains enough information to let you inspect or modify the referred object.',
      {
        apiVersion: str('API version of the referent.'),
        fieldPath: str(
          'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
        ),
        kind: str('Kind of the referent.'),
        name: str('Name of the referent.'),
        namespace: str('Namespace of the referent.'),
        resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
        uid: str('UID of the referent.'),
      },
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [CORE('KeyToPath')]: object(
    'Maps a string key to a path within a volume.',
    {
      key: str('key is the key to project.'),
      mode: int32('mode is Optional: mode bits used to set permissions on this file.'),
      path: str('path is the relative path of the file to map the key to.'),
    },
    ['key', 'path'],
  ),
  [CORE('Volume')]: object(
    'Volume represents a named volume in a pod that may be accessed by any container in the pod.',
    {
      configMap: ref(
        CORE('ConfigMapVolumeSource'),
        'configMap represents a configMap that should populate this volume',
      ),
      csi: {
        type: 'object',
        description:
          'csi (Container Storage Interface) represents ephemeral storage that is handled by certain external CSI drivers.',
      },
      downwardAPI: {
        type: 'object',
        description: 'downwardAPI represents downward API about the pod that should populate this volume',
      },
      emptyDir: ref(
        CORE('EmptyDirVolumeSource'),
        "emptyDir represents a temporary directory that shares a pod's lifetime.",
      ),
      ephemeral: {
        type: 'object',
        description: 'ephemeral represents a volume that is handled by a cluster storage driver.',
      },
      hostPath: ref(
        CORE('HostPathVolumeSource'),
        'hostPath represents a pre-existing file or directory on the host machine that is directly exposed to the container.',
      ),
      name: str('name of the volume. Must be a DNS_LABEL and unique within the pod.'),
      nfs: {
        type: 'object',
        description: "nfs represents an NFS mount on the host that shares a pod's lifetime",
      },
      persistentVolumeClaim: ref(
        CORE('PersistentVolumeClaimVolumeSource'),
        'persistentVolumeClaimVolumeSource represents a reference to a PersistentVolumeClaim in the same namespace.',
      ),
      projected: {
        type: 'object',
        description: 'projected items for all in one resources secrets, configmaps, and downward API',
      },
      secret: ref(CORE('SecretVolumeSource'), 'secret represents a secret that should populate this volume.'),
    },
    ['name'],
  ),
  [CORE('ConfigMapVolumeSource')]: object('Adapts a ConfigMap into a volume.', {
    defaultMode: int32(
      'defaultMode is optional: mode bits used to set permissions on created files by default.',
    ),
    items: keyItems(
      'items, if unspecified, each key-value pair in the Data field of the referenced ConfigMap will be projected into the volume as a file.',
    ),
    name: str('Name of the referent.'),
    optional: bool('optional specify whether the ConfigMap or its keys must be defined'),
  }),
  [CORE('SecretVolumeSource')]: object('Adapts a Secret into a volume.', {
    defaultMode: int32(
      'defaultMode is Optional: mode bits used to set permissions on created files by default.',
    ),
    items: keyItems(
      'items If unspecified, each key-value pair in the Data field of the referenced Secret will be projected into the volume as a file.',
    ),
    optional: bool('optional field specify whether the Secret or its keys must be defined'),
    secretName: str("secretName is the name of the secret in the pod's namespace to use."),
  }),
  [CORE('EmptyDirVolumeSource')]: object('Represents an empty directory for a pod.', {
    medium: str('medium represents what type of storage medium should back this directory: "" or Memory.'),
    sizeLimit: ref(
      QUANTITY,
      'sizeLimit is the total amount of local storage required for this EmptyDir volume.',
    ),
  }),
  [CORE('HostPathVolumeSource')]: object(
    'Represents a host path mapped into a pod.',
    {
      path: str('path of the directory on the host.'),
      type: str('type for HostPath Volume. Defaults to ""'),
    },
    ['path'],
  ),
  [CORE('PersistentVolumeClaimVolumeSource')]: object(
    "PersistentVolumeClaimVolumeSource references the user's PVC in the same namespace.",
    {
      claimName: str(
        'claimName is the name of a PersistentVolumeClaim in the same namespace as the pod using this volume.',
      ),
      readOnly: bool('readOnly Will force the ReadOnly setting in VolumeMounts. Default false.'),
    },
    ['claimName'],
  ),
  [CORE('PodStatus')]: object('PodStatus represents information about the status of a pod.', {
    conditions: list(CORE('PodCondition'), 'Current service state of pod.', {
      ...mergeBy('type'),
      ...listMap('type'),
    }),
    containerStatuses: {
      type: 'array',
      items: { type: 'object' },
      description: 'The list has one entry per container in the manifest.',
      ...atomic,
    },
    hostIP: str('hostIP holds the IP address of the host to which the pod is assigned.'),
    message: str('A human readable message indicating details about why the pod is in this condition.'),
    phase: str(
      'The phase of a Pod is a simple, high-level summary of where the Pod is in its lifecycle: Pending, Running, Succeeded, Failed, Unknown.',
    ),
    podIP: str('podIP address allocated to the pod.'),
    podIPs: {
      type: 'array',
      items: { type: 'object' },
      description: 'podIPs holds the IP addresses allocated to the pod.',
      ...mergeBy('ip'),
      ...listMap('ip'),
    },
    qosClass: str(
      'The Quality of Service (QOS) classification assigned to the pod based on resource requirements.',
    ),
    reason: str(
      "A brief CamelCase message indicating details about why the pod is in this state. e.g. 'Evicted'",
    ),
    startTime: time('RFC 3339 date and time at which the object was acknowledged by the Kubelet.'),
  }),
  [CORE('PodCondition')]: object(
    'PodCondition contains details for the current condition of this pod.',
    {
      lastProbeTime: time('Last time we probed the condition.'),
      lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
      message: str('Human-readable message indicating details about last transition.'),
      reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: str('Status is the status of the condition. Can be True, False, Unknown.'),
      type: str('Type is the type of the condition.'),
    },
    ['type', 'status'],
  ),

  [CORE('Service')]: kind(
    v1('Service'),
    'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
    {
      spec: ref(CORE('ServiceSpec'), 'Spec defines the behavior of a service.'),
      status: ref(
        CORE('ServiceStatus'),
        'Most recently observed status of the service. Populated by the system. Read-only.',
      ),
    },
  ),
  [CORE('ServiceSpec')]: object('ServiceSpec describes the attributes that a user creates on a service.', {
    allocateLoadBalancerNodePorts: bool(
      'allocateLoadBalancerNodePorts defines if NodePorts will be automatically allocated for services with type LoadBalancer.',
    ),
    clusterIP: str('clusterIP is the IP address of the service and is usually assigned randomly.'),
    clusterIPs: strings('ClusterIPs is a list of IP addresses assigned to this service.', atomic),
    externalIPs: strings(
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
      atomic,
    ),
    externalName: str(
      'externalName is the external reference that discovery mechanisms will return as an alias for this service (e.g. a DNS CNAME record).',
    ),
    externalTrafficPolicy: str(
      'externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the externally-facing addresses: Cluster or Local.',
    ),
    internalTrafficPolicy: str(
      'InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP.',
    ),
    ipFamilies: strings(
      'IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service.',
      atomic,
    ),
    ipFamilyPolicy: str(
      'IPFamilyPolicy represents the dual-stack-ness requested or required by this Service.',
    ),
    loadBalancerClass: str(
      'loadBalancerClass is the class of the load balancer implementation this Service belongs to.',
    ),
    loadBalancerIP: str('Only applies to Service Type: LoadBalancer. Deprecated.'),
    loadBalancerSourceRanges: strings(
      'If specified and supported by the platform, traffic through the cloud-provider load-balancer will be restricted to the specified client IPs.',
      atomic,
    ),
    ports: list(CORE('ServicePort'), 'The list of ports that are exposed by this service.', {
      ...mergeBy('port'),
      ...listMap('port', 'protocol'),
    }),
    publishNotReadyAddresses: bool(
      'publishNotReadyAddresses indicates that any agent which deals with endpoints for this Service should disregard any indications of ready/not-ready.',
    ),
    selector: {
      ...stringMap('Route service traffic to pods with label keys and values matching this selector.'),
      'x-kubernetes-map-type': 'atomic',
    },
    sessionAffinity: str('Supports "ClientIP" and "None". Used to maintain session affinity.'),
    sessionAffinityConfig: {
      type: 'object',
      description: 'sessionAffinityConfig contains the configurations of session affinity.',
    },
    type: str(
      'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.',
    ),
  }),
  [CORE('ServicePort')]: object(
    "ServicePort contains information on service's port.",
    {
      appProtocol: str('The application protocol for this port.'),
      name: str('The name of this port within the service. This must be a DNS_LABEL.'),
      nodePort: int32(
        'The port on each node on which this service is exposed when type is NodePort or LoadBalancer.',
      ),
      port: int32('The port that will be exposed by this service.'),
      protocol: {
        ...str('The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.'),
        default: 'TCP',
      },
      targetPort: ref(
        INT_OR_STRING,
        'Number or name of the port to access on the pods targeted by the service.',
      ),
    },
    ['port'],
  ),
  [CORE('ServiceStatus')]: object('ServiceStatus represents the current status of a service.', {
    conditions: list(META('Condition'), 'Current service state', { ...mergeBy('type'), ...listMap('type') }),
    loadBalancer: {
      type: 'object',
      description: 'LoadBalancer contains the current status of the load-balancer, if one is present.',
    },
  }),

  [CORE('Endpoints')]: kind(
    v1('Endpoints'),
    'Endpoints is a collection of endpoints that implement the actual service.',
    {
      subsets: list(CORE('EndpointSubset'), 'The set of all endpoints is the union of all subsets.', atomic),
    },
  ),
  [CORE('EndpointSubset')]: object('EndpointSubset is a group of addresses with a common set of ports.', {
    addresses: list(
      CORE('EndpointAddress'),
      'IP addresses which offer the related ports that are marked as ready.',
      atomic,
    ),
    notReadyAddresses: list(
      CORE('EndpointAddress'),
      'IP addresses which offer the related ports but are not currently marked as ready.',
      atomic,
    ),
    ports: list(CORE('EndpointPort'), 'Port numbers available on the related IP addresses.', atomic),
  }),
  [CORE('EndpointAddress')]: object(
    'EndpointAddress is a tuple that describes single IP address.',
    {
      hostname: str('The Hostname of this endpoint'),
      ip: str('The IP of this endpoint.'),
      nodeName: str('Optional: Node hosting this endpoint.'),
      targetRef: ref(CORE('ObjectReference'), 'Reference to object providing the endpoint.'),
    },
    ['ip'],
  ),
  [CORE('EndpointPort')]: object(
    'EndpointPort is a tuple that describes a single port.',
    {
      appProtocol: str('The application protocol for this port.'),
      name: str('The name of this port.'),
      port: int32('The port number of the endpoint.'),
      protocol: str('The IP protocol for this port. Must be UDP, TCP, or SCTP. Default is TCP.'),
    },
    ['port'],
  ),

  [CORE('ConfigMap')]: kind(v1('ConfigMap'), 'ConfigMap holds configuration data for pods to consume.', {
    binaryData: {
      type: 'object',
      additionalProperties: { type: 'string', format: 'byte' },
      description: 'BinaryData contains the binary data.',
    },
    data: stringMap(
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'.",
    ),
    immutable: bool(
      'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified).',
    ),
  }),
  [CORE('Secret')]: kind(
    v1('Secret'),
    'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.',
    {
      data: {
        type: 'object',
        additionalProperties: { type: 'string', format: 'byte' },
        description:
          'Data contains the secret data. The serialized form of the secret data is a base64 encoded string.',
      },
      immutable: bool(
        'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified).',
      ),
      stringData: stringMap(
        'stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience.',
      ),
      type: str('Used to facilitate programmatic handling of secret data.'),
    },
  ),
  [CORE('ServiceAccount')]: kind(
    v1('ServiceAccount'),
    'ServiceAccount binds together: a name, understood by users; a principal that can be authenticated and authorized; a set of secrets.',
    {
      automountServiceAccountToken: bool(
        'AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted.',
      ),
      imagePullSecrets: list(
        CORE('LocalObjectReference'),
        'ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount.',
        atomic,
      ),
      secrets: list(
        CORE('ObjectReference'),
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
        mergeBy('name'),
      ),
    },
  ),
  [CORE('Event')]: kind(
    v1('Event'),
    'Event is a report of an event somewhere in the cluster.',
    {
      action: str('What action was taken/failed regarding to the Regarding object.'),
      count: int32('The number of times this event has occurred.'),
      eventTime: ref(META('MicroTime'), 'Time when this Event was first observed.'),
      firstTimestamp: time('The time at which the event was first recorded.'),
      involvedObject: ref(CORE('ObjectReference'), 'The object that this event is about.'),
      lastTimestamp: time('The time at which the most recent occurrence of this event was recorded.'),
      message: str('A human-readable description of the status of this operation.'),
      reason: str(
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      related: ref(CORE('ObjectReference'), 'Optional secondary object for more complex actions.'),
      reportingComponent: str(
        'Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.',
      ),
      reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
      series: {
        type: 'object',
        description: "Data about the Event series this event represents or nil if it's a singleton Event.",
        properties: {
          count: int32('Number of occurrences in this series up to the last heartbeat time'),
          lastObservedTime: ref(META('MicroTime'), 'Time of the last occurrence observed'),
        },
      },
      source: { type: 'object', description: 'The component reporting this event.' },
      type: str('Type of this event (Normal, Warning), new types could be added in the future'),
    },
    ['metadata', 'involvedObject'],
  ),
  [CORE('PersistentVolumeClaim')]: kind(
    v1('PersistentVolumeClaim'),
    "PersistentVolumeClaim is a user's request for and claim to a persistent volume",
    {
      spec: ref(
        CORE('PersistentVolumeClaimSpec'),
        'spec defines the desired characteristics of a volume requested by a pod author.',
      ),
      status: {
        type: 'object',
        description:
          'status represents the current information/status of a persistent volume claim. Read-only.',
      },
    },
  ),
  [CORE('PersistentVolumeClaimSpec')]: object(
    'PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes',
    {
      accessModes: strings('accessModes contains the desired access modes the volume should have.', atomic),
      dataSource: {
        type: 'object',
        description: 'dataSource field can be used to specify an existing VolumeSnapshot or PVC.',
      },
      resources: ref(
        CORE('ResourceRequirements'),
        'resources represents the minimum resources the volume should have.',
      ),
      selector: selector('selector is a label query over volumes to consider for binding.'),
      storageClassName: str('storageClassName is the name of the StorageClass required by the claim.'),
      volumeMode: str(
        'volumeMode defines what type of volume is required by the claim: Filesystem or Block.',
      ),
      volumeName: str('volumeName is the binding reference to the PersistentVolume backing this claim.'),
    },
  ),
  [CORE('PersistentVolume')]: kind(
    v1('PersistentVolume'),
    'PersistentVolume (PV) is a storage resource provisioned by an administrator.',
    {
      spec: {
        type: 'object',
        description: 'spec defines a specification of a persistent volume owned by the cluster.',
        'x-kubernetes-preserve-unknown-fields': true,
      },
      status: {
        type: 'object',
        description: 'status represents the current information/status for the persistent volume.',
      },
    },
  ),
};
