// apps/v1, batch/v1, rbac/v1, coordination/v1 and autoscaling/v1 (Scale) schemas.
import {
  APPS,
  AUTOSCALING,
  atomic,
  BATCH,
  bool,
  COORD,
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
  RBAC,
  ref,
  type Schema,
  str,
  strings,
} from './builders.ts';

const gvk = (group: string, k: string) => ({ group, version: 'v1', kind: k });
const selector = (d: string) => ref(META('LabelSelector'), d);
const template = (d: string) => ref(CORE('PodTemplateSpec'), d);
const time = (d: string) => ref(META('Time'), d);
const conditions = (name: string, d: string) => list(name, d, { ...mergeBy('type'), ...listMap('type') });
const condition = (what: string): Schema =>
  object(
    `${what}Condition describes the state of a ${what} at a certain point.`,
    {
      lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
      lastUpdateTime: time('The last time this condition was updated.'),
      message: str('A human readable message indicating details about the transition.'),
      reason: str("The reason for the condition's last transition."),
      status: str('Status of the condition, one of True, False, Unknown.'),
      type: str(`Type of ${what} condition.`),
    },
    ['type', 'status'],
  );

const replicasStatus = (what: string): Record<string, Schema> => ({
  availableReplicas: int32(
    `Total number of available pods (ready for at least minReadySeconds) targeted by this ${what}.`,
  ),
  observedGeneration: int64(`The generation observed by the ${what} controller.`),
  readyReplicas: int32(`The number of pods targeted by this ${what} with a Ready Condition.`),
  replicas: int32(`Total number of non-terminated pods targeted by this ${what}.`),
});

export const workloadSchemas: Record<string, Schema> = {
  [APPS('Deployment')]: kind(
    gvk('apps', 'Deployment'),
    'Deployment enables declarative updates for Pods and ReplicaSets.',
    {
      spec: ref(APPS('DeploymentSpec'), 'Specification of the desired behavior of the Deployment.'),
      status: ref(APPS('DeploymentStatus'), 'Most recently observed status of the Deployment.'),
    },
  ),
  [APPS('DeploymentSpec')]: object(
    'DeploymentSpec is the specification of the desired behavior of the Deployment.',
    {
      minReadySeconds: int32(
        'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0.',
      ),
      paused: bool('Indicates that the deployment is paused.'),
      progressDeadlineSeconds: int32(
        'The maximum time in seconds for a deployment to make progress before it is considered to be failed. Defaults to 600s.',
      ),
      replicas: int32(
        'Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.',
      ),
      revisionHistoryLimit: int32(
        'The number of old ReplicaSets to retain to allow rollback. Defaults to 10.',
      ),
      selector: selector(
        "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
      ),
      strategy: {
        ...ref(
          APPS('DeploymentStrategy'),
          'The deployment strategy to use to replace existing pods with new ones.',
        ),
        'x-kubernetes-patch-strategy': 'retainKeys',
      },
      template: template(
        'Template describes the pods that will be created. The only allowed template.spec.restartPolicy value is "Always".',
      ),
    },
    ['selector', 'template'],
  ),
  [APPS('DeploymentStrategy')]: object(
    'DeploymentStrategy describes how to replace existing pods with new ones.',
    {
      rollingUpdate: ref(
        APPS('RollingUpdateDeployment'),
        'Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.',
      ),
      type: str('Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.'),
    },
  ),
  [APPS('RollingUpdateDeployment')]: object('Spec to control the desired behavior of rolling update.', {
    maxSurge: ref(
      INT_OR_STRING,
      'The maximum number of pods that can be scheduled above the desired number of pods. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 25%.',
    ),
    maxUnavailable: ref(
      INT_OR_STRING,
      'The maximum number of pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 25%.',
    ),
  }),
  [APPS('DeploymentStatus')]: object(
    'DeploymentStatus is the most recently observed status of the Deployment.',
    {
      ...replicasStatus('deployment'),
      collisionCount: int32('Count of hash collisions for the Deployment.'),
      conditions: conditions(
        APPS('DeploymentCondition'),
        "Represents the latest available observations of a deployment's current state.",
      ),
      unavailableReplicas: int32('Total number of unavailable pods targeted by this deployment.'),
      updatedReplicas: int32(
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      ),
    },
  ),
  [APPS('DeploymentCondition')]: condition('Deployment'),

  [APPS('ReplicaSet')]: kind(
    gvk('apps', 'ReplicaSet'),
    'ReplicaSet ensures that a specified number of pod replicas are running at any given time.',
    {
      spec: ref(
        APPS('ReplicaSetSpec'),
        'Spec defines the specification of the desired behavior of the ReplicaSet.',
      ),
      status: ref(APPS('ReplicaSetStatus'), 'Status is the most recently observed status of the ReplicaSet.'),
    },
  ),
  [APPS('ReplicaSetSpec')]: object(
    'ReplicaSetSpec is the specification of a ReplicaSet.',
    {
      minReadySeconds: int32(
        'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing.',
      ),
      replicas: int32('Replicas is the number of desired replicas. Defaults to 1.'),
      selector: selector('Selector is a label query over pods that should match the replica count.'),
      template: template(
        'Template is the object that describes the pod that will be created if insufficient replicas are detected.',
      ),
    },
    ['selector'],
  ),
  [APPS('ReplicaSetStatus')]: object(
    'ReplicaSetStatus represents the current status of a ReplicaSet.',
    {
      ...replicasStatus('replica set'),
      conditions: conditions(
        APPS('ReplicaSetCondition'),
        "Represents the latest available observations of a replica set's current state.",
      ),
      fullyLabeledReplicas: int32(
        'The number of pods that have labels matching the labels of the pod template of the replicaset.',
      ),
    },
    ['replicas'],
  ),
  [APPS('ReplicaSetCondition')]: condition('ReplicaSet'),

  [APPS('StatefulSet')]: kind(
    gvk('apps', 'StatefulSet'),
    'StatefulSet represents a set of pods with consistent identities.',
    {
      spec: ref(APPS('StatefulSetSpec'), 'Spec defines the desired identities of pods in this set.'),
      status: ref(APPS('StatefulSetStatus'), 'Status is the current status of Pods in this StatefulSet.'),
    },
  ),
  [APPS('StatefulSetSpec')]: object(
    'A StatefulSetSpec is the specification of a StatefulSet.',
    {
      minReadySeconds: int32(
        'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing.',
      ),
      podManagementPolicy: str(
        'podManagementPolicy controls how pods are created during initial scale up: OrderedReady or Parallel.',
      ),
      replicas: int32('replicas is the desired number of replicas of the given Template. Defaults to 1.'),
      revisionHistoryLimit: int32(
        "revisionHistoryLimit is the maximum number of revisions that will be maintained in the StatefulSet's revision history.",
      ),
      selector: selector(
        "selector is a label query over pods that should match the replica count. It must match the pod template's labels.",
      ),
      serviceName: str('serviceName is the name of the service that governs this StatefulSet.'),
      template: template(
        'template is the object that describes the pod that will be created if insufficient replicas are detected.',
      ),
      updateStrategy: {
        type: 'object',
        description:
          'updateStrategy indicates the StatefulSetUpdateStrategy that will be employed to update Pods.',
      },
      volumeClaimTemplates: list(
        CORE('PersistentVolumeClaim'),
        'volumeClaimTemplates is a list of claims that pods are allowed to reference.',
        atomic,
      ),
    },
    ['selector', 'template'],
  ),
  [APPS('StatefulSetStatus')]: object(
    'StatefulSetStatus represents the current state of a StatefulSet.',
    {
      ...replicasStatus('statefulset'),
      conditions: conditions(
        APPS('StatefulSetCondition'),
        "Represents the latest available observations of a statefulset's current state.",
      ),
      currentReplicas: int32(
        'currentReplicas is the number of Pods created by the StatefulSet controller from the StatefulSet version indicated by currentRevision.',
      ),
      currentRevision: str(
        'currentRevision, if not empty, indicates the version of the StatefulSet used to generate Pods in the sequence [0,currentReplicas).',
      ),
      updateRevision: str(
        'updateRevision, if not empty, indicates the version of the StatefulSet used to generate Pods in the sequence [replicas-updatedReplicas,replicas)',
      ),
      updatedReplicas: int32(
        'updatedReplicas is the number of Pods created by the StatefulSet controller from the StatefulSet version indicated by updateRevision.',
      ),
    },
    ['replicas'],
  ),
  [APPS('StatefulSetCondition')]: condition('StatefulSet'),

  [APPS('DaemonSet')]: kind(
    gvk('apps', 'DaemonSet'),
    'DaemonSet represents the configuration of a daemon set.',
    {
      spec: ref(APPS('DaemonSetSpec'), 'The desired behavior of this daemon set.'),
      status: ref(APPS('DaemonSetStatus'), 'The current status of this daemon set.'),
    },
  ),
  [APPS('DaemonSetSpec')]: object(
    'DaemonSetSpec is the specification of a daemon set.',
    {
      minReadySeconds: int32(
        'The minimum number of seconds for which a newly created DaemonSet pod should be ready without any of its container crashing.',
      ),
      revisionHistoryLimit: int32('The number of old history to retain to allow rollback. Defaults to 10.'),
      selector: selector('A label query over pods that are managed by the daemon set.'),
      template: template('An object that describes the pod that will be created.'),
      updateStrategy: {
        type: 'object',
        description: 'An update strategy to replace existing DaemonSet pods with new pods.',
      },
    },
    ['selector', 'template'],
  ),
  [APPS('DaemonSetStatus')]: object(
    'DaemonSetStatus represents the current status of a daemon set.',
    {
      conditions: conditions(
        APPS('DaemonSetCondition'),
        "Represents the latest available observations of a DaemonSet's current state.",
      ),
      currentNumberScheduled: int32(
        'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
      ),
      desiredNumberScheduled: int32('The total number of nodes that should be running the daemon pod.'),
      numberAvailable: int32(
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
      ),
      numberMisscheduled: int32(
        'The number of nodes that are running the daemon pod, but are not supposed to run the daemon pod.',
      ),
      numberReady: int32(
        'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
      ),
      observedGeneration: int64('The most recent generation observed by the daemon set controller.'),
      updatedNumberScheduled: int32('The total number of nodes that are running updated daemon pod'),
    },
    ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'],
  ),
  [APPS('DaemonSetCondition')]: condition('DaemonSet'),

  [BATCH('Job')]: kind(gvk('batch', 'Job'), 'Job represents the configuration of a single job.', {
    spec: ref(BATCH('JobSpec'), 'Specification of the desired behavior of a job.'),
    status: ref(BATCH('JobStatus'), 'Current status of a job.'),
  }),
  [BATCH('JobSpec')]: object(
    'JobSpec describes how the job execution will look like.',
    {
      activeDeadlineSeconds: int64(
        'Specifies the duration in seconds relative to the startTime that the job may be continuously active before the system tries to terminate it.',
      ),
      backoffLimit: int32('Specifies the number of retries before marking this job failed. Defaults to 6.'),
      completionMode: str(
        'completionMode specifies how Pod completions are tracked: NonIndexed (default) or Indexed.',
      ),
      completions: int32(
        'Specifies the desired number of successfully finished pods the job should be run with.',
      ),
      manualSelector: bool('manualSelector controls generation of pod labels and pod selectors.'),
      parallelism: int32(
        'Specifies the maximum desired number of pods the job should run at any given time.',
      ),
      selector: selector('A label query over pods that should match the pod count.'),
      suspend: bool('suspend specifies whether the Job controller should create Pods or not.'),
      template: template(
        'Describes the pod that will be created when executing a job. The only allowed template.spec.restartPolicy values are "Never" or "OnFailure".',
      ),
      ttlSecondsAfterFinished: int32(
        'ttlSecondsAfterFinished limits the lifetime of a Job that has finished execution (either Complete or Failed).',
      ),
    },
    ['template'],
  ),
  [BATCH('JobStatus')]: object('JobStatus represents the current state of a Job.', {
    active: int32('The number of pending and running pods which are not terminating.'),
    completionTime: time('Represents time when the job was completed.'),
    conditions: list(
      BATCH('JobCondition'),
      "The latest available observations of an object's current state.",
      atomic,
    ),
    failed: int32('The number of pods which reached phase Failed.'),
    ready: int32('The number of pods which have a Ready condition.'),
    startTime: time('Represents time when the job controller started processing a job.'),
    succeeded: int32('The number of pods which reached phase Succeeded.'),
  }),
  [BATCH('JobCondition')]: object(
    'JobCondition describes current state of a job.',
    {
      lastProbeTime: time('Last time the condition was checked.'),
      lastTransitionTime: time('Last time the condition transit from one status to another.'),
      message: str('Human readable message indicating details about last transition.'),
      reason: str("(brief) reason for the condition's last transition."),
      status: str('Status of the condition, one of True, False, Unknown.'),
      type: str('Type of job condition, Complete or Failed.'),
    },
    ['type', 'status'],
  ),
  [BATCH('CronJob')]: kind(
    gvk('batch', 'CronJob'),
    'CronJob represents the configuration of a single cron job.',
    {
      spec: ref(
        BATCH('CronJobSpec'),
        'Specification of the desired behavior of a cron job, including the schedule.',
      ),
      status: ref(BATCH('CronJobStatus'), 'Current status of a cron job.'),
    },
  ),
  [BATCH('CronJobSpec')]: object(
    'CronJobSpec describes how the job execution will look like and when it will actually run.',
    {
      concurrencyPolicy: str(
        'Specifies how to treat concurrent executions of a Job: Allow (default), Forbid or Replace.',
      ),
      failedJobsHistoryLimit: int32('The number of failed finished jobs to retain. Defaults to 1.'),
      jobTemplate: ref(
        BATCH('JobTemplateSpec'),
        'Specifies the job that will be created when executing a CronJob.',
      ),
      schedule: str('The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
      startingDeadlineSeconds: int64(
        'Optional deadline in seconds for starting the job if it misses scheduled time for any reason.',
      ),
      successfulJobsHistoryLimit: int32('The number of successful finished jobs to retain. Defaults to 3.'),
      suspend: bool('This flag tells the controller to suspend subsequent executions. Defaults to false.'),
      timeZone: str(
        'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.',
      ),
    },
    ['schedule', 'jobTemplate'],
  ),
  [BATCH('JobTemplateSpec')]: object(
    'JobTemplateSpec describes the data a Job should have when created from a template',
    {
      metadata: ref(META('ObjectMeta'), "Standard object's metadata of the jobs created from this template."),
      spec: ref(BATCH('JobSpec'), 'Specification of the desired behavior of the job.'),
    },
  ),
  [BATCH('CronJobStatus')]: object('CronJobStatus represents the current state of a cron job.', {
    active: list(CORE('ObjectReference'), 'A list of pointers to currently running jobs.', atomic),
    lastScheduleTime: time('Information when was the last time the job was successfully scheduled.'),
    lastSuccessfulTime: time('Information when was the last time the job successfully completed.'),
  }),

  [RBAC('PolicyRule')]: object(
    'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
    {
      apiGroups: strings(
        'APIGroups is the name of the APIGroup that contains the resources. "" represents the core API group and "*" represents all API groups.',
        atomic,
      ),
      nonResourceURLs: strings(
        'NonResourceURLs is a set of partial urls that a user should have access to.',
        atomic,
      ),
      resourceNames: strings(
        'ResourceNames is an optional white list of names that the rule applies to.',
        atomic,
      ),
      resources: strings(
        "Resources is a list of resources this rule applies to. '*' represents all resources.",
        atomic,
      ),
      verbs: strings(
        "Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs.",
        atomic,
      ),
    },
    ['verbs'],
  ),
  [RBAC('Subject')]: {
    ...object(
      'Subject contains a reference to the object or user identities a role binding applies to.',
      {
        apiGroup: str('APIGroup holds the API group of the referenced subject.'),
        kind: str('Kind of object being referenced: "User", "Group", or "ServiceAccount".'),
        name: str('Name of the object being referenced.'),
        namespace: str('Namespace of the referenced object.'),
      },
      ['kind', 'name'],
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [RBAC('RoleRef')]: {
    ...object(
      'RoleRef contains information that points to the role being used',
      {
        apiGroup: str('APIGroup is the group for the resource being referenced'),
        kind: str('Kind is the type of resource being referenced'),
        name: str('Name is the name of resource being referenced'),
      },
      ['apiGroup', 'kind', 'name'],
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [RBAC('AggregationRule')]: object(
    'AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole',
    {
      clusterRoleSelectors: list(
        META('LabelSelector'),
        'ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules.',
        atomic,
      ),
    },
  ),
  [RBAC('Role')]: kind(
    gvk('rbac.authorization.k8s.io', 'Role'),
    'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
    {
      rules: list(RBAC('PolicyRule'), 'Rules holds all the PolicyRules for this Role', atomic),
    },
  ),
  [RBAC('ClusterRole')]: kind(
    gvk('rbac.authorization.k8s.io', 'ClusterRole'),
    'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
    {
      aggregationRule: ref(
        RBAC('AggregationRule'),
        'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole.',
      ),
      rules: list(RBAC('PolicyRule'), 'Rules holds all the PolicyRules for this ClusterRole', atomic),
    },
  ),
  [RBAC('RoleBinding')]: kind(
    gvk('rbac.authorization.k8s.io', 'RoleBinding'),
    'RoleBinding references a role, but does not contain it.',
    {
      roleRef: ref(
        RBAC('RoleRef'),
        'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
      ),
      subjects: list(
        RBAC('Subject'),
        'Subjects holds references to the objects the role applies to.',
        atomic,
      ),
    },
    ['roleRef'],
  ),
  [RBAC('ClusterRoleBinding')]: kind(
    gvk('rbac.authorization.k8s.io', 'ClusterRoleBinding'),
    'ClusterRoleBinding references a ClusterRole, but not contain it.',
    {
      roleRef: ref(RBAC('RoleRef'), 'RoleRef can only reference a ClusterRole in the global namespace.'),
      subjects: list(
        RBAC('Subject'),
        'Subjects holds references to the objects the role applies to.',
        atomic,
      ),
    },
    ['roleRef'],
  ),

  [COORD('Lease')]: kind(gvk('coordination.k8s.io', 'Lease'), 'Lease defines a lease concept.', {
    spec: ref(COORD('LeaseSpec'), 'spec contains the specification of the Lease.'),
  }),
  [COORD('LeaseSpec')]: object('LeaseSpec is a specification of a Lease.', {
    acquireTime: ref(META('MicroTime'), 'acquireTime is a time when the current lease was acquired.'),
    holderIdentity: str('holderIdentity contains the identity of the holder of a current lease.'),
    leaseDurationSeconds: int32(
      'leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it.',
    ),
    leaseTransitions: int32('leaseTransitions is the number of transitions of a lease between holders.'),
    renewTime: ref(
      META('MicroTime'),
      'renewTime is a time when the current holder of a lease has last updated the lease.',
    ),
  }),

  [AUTOSCALING('Scale')]: kind(
    { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    'Scale represents a scaling request for a resource.',
    {
      spec: object('ScaleSpec describes the attributes of a scale subresource.', {
        replicas: int32('replicas is the desired number of instances for the scaled object.'),
      }),
      status: object('ScaleStatus represents the current status of a scale subresource.', {
        replicas: int32('replicas is the actual number of observed instances of the scaled object.'),
        selector: str('selector is the label query over pods that should match the replicas count.'),
      }),
    },
  ),
};
