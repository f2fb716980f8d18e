// apimachinery schemas shared by every group-version document: ObjectMeta, ListMeta, Status, DeleteOptions,
// LabelSelector, Time, Quantity, IntOrString, Patch, plus the CustomResourceDefinition kind.
import {
  APIEXT,
  atomic,
  bool,
  INT_OR_STRING,
  int32,
  int64,
  kind,
  list,
  META,
  mergeBy,
  object,
  QUANTITY,
  ref,
  type Schema,
  str,
  stringMap,
  strings,
} from './builders.ts';

const time = (description: string) => ref(META('Time'), description);

export const metaSchemas: Record<string, Schema> = {
  [META('Time')]: {
    description:
      'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON. Wrappers are provided for many of the factory methods that the time package offers.',
    type: 'string',
    format: 'date-time',
  },
  [META('MicroTime')]: {
    description: 'MicroTime is version of Time with microsecond level precision.',
    type: 'string',
    format: 'date-time',
  },
  [QUANTITY]: {
    description:
      'Quantity is a fixed-point representation of a number, e.g. "500m", "1Gi", "2". It provides convenient marshaling/unmarshaling in JSON and YAML.',
    type: 'string',
  },
  [INT_OR_STRING]: {
    description:
      'IntOrString is a type that can hold an int32 or a string. When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.',
    type: 'string',
    format: 'int-or-string',
  },
  [META('FieldsV1')]: {
    description: 'FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.',
    type: 'object',
  },
  [META('Patch')]: {
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    type: 'object',
  },
  [META('ObjectMeta')]: object(
    'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    {
      annotations: stringMap(
        'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects.',
      ),
      creationTimestamp: time(
        'CreationTimestamp is a timestamp representing the server time when this object was created. Populated by the system. Read-only.',
      ),
      deletionGracePeriodSeconds: int64(
        'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system. Only set when deletionTimestamp is also set.',
      ),
      deletionTimestamp: time(
        'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. Set by the server when a graceful deletion is requested. Read-only.',
      ),
      finalizers: strings(
        'Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list.',
        { 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
      ),
      generateName: str(
        'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.',
      ),
      generation: int64(
        'A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.',
      ),
      labels: stringMap(
        'Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services.',
      ),
      managedFields: list(
        META('ManagedFieldsEntry'),
        'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow. This is mostly for internal housekeeping.',
        atomic,
      ),
      name: str(
        'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Cannot be updated.',
      ),
      namespace: str(
        'Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the "default" namespace. Cannot be updated.',
      ),
      ownerReferences: list(
        META('OwnerReference'),
        'List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected.',
        { ...mergeBy('uid'), ...{ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['uid'] } },
      ),
      resourceVersion: str(
        'An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed. Populated by the system. Read-only.',
      ),
      selfLink: str(
        'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
      ),
      uid: str(
        'UID is the unique in time and space value for this object. It is typically generated by the server on successful creation of a resource. Populated by the system. Read-only.',
      ),
    },
  ),
  [META('OwnerReference')]: {
    ...object(
      'OwnerReference contains enough information to let you identify an owning object.',
      {
        apiVersion: str('API version of the referent.'),
        blockOwnerDeletion: bool(
          'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.',
        ),
        controller: bool('If true, this reference points to the managing controller.'),
        kind: str('Kind of the referent.'),
        name: str('Name of the referent.'),
        uid: str('UID of the referent.'),
      },
      ['apiVersion', 'kind', 'name', 'uid'],
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [META('ManagedFieldsEntry')]: object(
    'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
    {
      apiVersion: str('APIVersion defines the version of this resource that this field set applies to.'),
      fieldsType: str('FieldsType is the discriminator for the different fields format and version.'),
      fieldsV1: ref(
        META('FieldsV1'),
        'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.',
      ),
      manager: str('Manager is an identifier of the workflow managing these fields.'),
      operation: str(
        'Operation is the type of operation which lead to this entry being created: Apply or Update.',
      ),
      subresource: str('Subresource is the name of the subresource used to update that object.'),
      time: time('Time is the timestamp of when the ManagedFields entry was added.'),
    },
  ),
  [META('ListMeta')]: object(
    'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    {
      continue: str(
        'continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available.',
      ),
      remainingItemCount: int64(
        'remainingItemCount is the number of subsequent items in the list which are not included.',
      ),
      resourceVersion: str(
        "String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed.",
      ),
      selfLink: str(
        'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
      ),
    },
  ),
  [META('LabelSelector')]: {
    ...object(
      'A label selector is a label query over a set of resources. The result of matchLabels and matchExpressions are ANDed. An empty label selector matches all objects. A null label selector matches no objects.',
      {
        matchExpressions: list(
          META('LabelSelectorRequirement'),
          'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
          atomic,
        ),
        matchLabels: stringMap(
          'matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value".',
        ),
      },
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [META('LabelSelectorRequirement')]: object(
    'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
    {
      key: str('key is the label key that the selector applies to.'),
      operator: str(
        "operator represents a key's relationship to a set of values: In, NotIn, Exists and DoesNotExist.",
      ),
      values: strings('values is an array of string values.', atomic),
    },
    ['key', 'operator'],
  ),
  [META('Condition')]: object(
    'Condition contains details for one aspect of the current state of this API Resource.',
    {
      lastTransitionTime: time(
        'lastTransitionTime is the last time the condition transitioned from one status to another.',
      ),
      message: str('message is a human readable message indicating details about the transition.'),
      observedGeneration: int64(
        'observedGeneration represents the .metadata.generation that the condition was set based upon.',
      ),
      reason: str(
        "reason contains a programmatic identifier indicating the reason for the condition's last transition.",
      ),
      status: str('status of the condition, one of True, False, Unknown.'),
      type: str('type of condition in CamelCase or in foo.example.com/CamelCase.'),
    },
    ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  ),
  [META('Preconditions')]: object(
    'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
    {
      resourceVersion: str('Specifies the target ResourceVersion'),
      uid: str('Specifies the target UID.'),
    },
  ),
  [META('DeleteOptions')]: object('DeleteOptions may be provided when deleting an API object.', {
    apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
    dryRun: strings(
      'When present, indicates that modifications should not be persisted. Valid values are: - All',
    ),
    gracePeriodSeconds: int64('The duration in seconds before the object should be deleted.'),
    kind: str('Kind is a string value representing the REST resource this object represents.'),
    orphanDependents: bool('Deprecated: please use the PropagationPolicy.'),
    preconditions: ref(META('Preconditions'), 'Must be fulfilled before a deletion is carried out.'),
    propagationPolicy: str(
      "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
    ),
  }),
  [META('StatusCause')]: object(
    'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.',
    {
      field: str('The field of the resource that has caused this error, as named by its JSON serialization.'),
      message: str('A human-readable description of the cause of the error.'),
      reason: str('A machine-readable description of the cause of the error.'),
    },
  ),
  [META('StatusDetails')]: object(
    'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
    {
      causes: list(
        META('StatusCause'),
        'The Causes array includes more details associated with the StatusReason failure.',
        atomic,
      ),
      group: str('The group attribute of the resource associated with the status StatusReason.'),
      kind: str('The kind attribute of the resource associated with the status StatusReason.'),
      name: str('The name attribute of the resource associated with the status StatusReason.'),
      retryAfterSeconds: int32('If specified, the time in seconds before the operation should be retried.'),
      uid: str('UID of the resource.'),
    },
  ),
  [META('Status')]: object("Status is a return value for calls that don't return other objects.", {
    apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
    code: int32('Suggested HTTP return code for this status, 0 if not set.'),
    details: ref(META('StatusDetails'), 'Extended data associated with the reason.'),
    kind: str('Kind is a string value representing the REST resource this object represents.'),
    message: str('A human-readable description of the status of this operation.'),
    metadata: ref(META('ListMeta'), 'Standard list metadata.'),
    reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
    status: str('Status of the operation. One of: "Success" or "Failure".'),
  }),
  [META('WatchEvent')]: object('Event represents a single event to a watched resource.', {
    object: {
      type: 'object',
      description: 'Object is the new state of the object (ADDED, MODIFIED) or its last state (DELETED).',
    },
    type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR'),
  }),
};

const crd = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' };

export const crdSchemas: Record<string, Schema> = {
  [APIEXT('CustomResourceDefinition')]: kind(
    crd,
    'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>.',
    {
      spec: ref(
        APIEXT('CustomResourceDefinitionSpec'),
        'spec describes how the user wants the resources to appear',
      ),
      status: ref(
        APIEXT('CustomResourceDefinitionStatus'),
        'status indicates the actual state of the CustomResourceDefinition',
      ),
    },
    ['spec'],
  ),
  [APIEXT('CustomResourceDefinitionSpec')]: object(
    'CustomResourceDefinitionSpec describes how a user wants their resource to appear',
    {
      conversion: { type: 'object', description: 'conversion defines conversion settings for the CRD.' },
      group: str(
        'group is the API group of the defined custom resource. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`).',
      ),
      names: ref(
        APIEXT('CustomResourceDefinitionNames'),
        'names specify the resource and kind names for the custom resource.',
      ),
      preserveUnknownFields: bool(
        'preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage.',
      ),
      scope: str(
        'scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.',
      ),
      versions: list(
        APIEXT('CustomResourceDefinitionVersion'),
        'versions is the list of all API versions of the defined custom resource.',
        atomic,
      ),
    },
    ['group', 'names', 'scope', 'versions'],
  ),
  [APIEXT('CustomResourceDefinitionNames')]: object(
    'CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition',
    {
      categories: strings(
        "categories is a list of grouped resources this custom resource belongs to (e.g. 'all').",
        atomic,
      ),
      kind: str('kind is the serialized kind of the resource. It is normally CamelCase and singular.'),
      listKind: str(
        'listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".',
      ),
      plural: str('plural is the plural name of the resource to serve. Must be all lowercase.'),
      shortNames: strings(
        'shortNames are short names for the resource, exposed in API discovery documents.',
        atomic,
      ),
      singular: str(
        'singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.',
      ),
    },
    ['plural', 'kind'],
  ),
  [APIEXT('CustomResourceDefinitionVersion')]: object(
    'CustomResourceDefinitionVersion describes a version for CRD.',
    {
      additionalPrinterColumns: {
        type: 'array',
        items: { type: 'object' },
        description: 'additionalPrinterColumns specifies additional columns returned in Table output.',
        'x-kubernetes-list-type': 'atomic',
      },
      deprecated: bool('deprecated indicates this version of the custom resource API is deprecated.'),
      deprecationWarning: str('deprecationWarning overrides the default warning returned to API clients.'),
      name: str('name is the version name, e.g. “v1”, “v2beta1”, etc.'),
      schema: ref(
        APIEXT('CustomResourceValidation'),
        'schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.',
      ),
      served: bool('served is a flag enabling/disabling this version from being served via REST APIs'),
      storage: bool(
        'storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.',
      ),
      subresources: {
        type: 'object',
        description:
          'subresources specify what subresources this version of the defined custom resource have (status, scale).',
      },
    },
    ['name', 'served', 'storage'],
  ),
  [APIEXT('CustomResourceValidation')]: object(
    'CustomResourceValidation is a list of validation methods for CustomResources.',
    {
      openAPIV3Schema: {
        type: 'object',
        description: 'openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.',
        'x-kubernetes-preserve-unknown-fields': true,
      },
    },
  ),
  [APIEXT('CustomResourceDefinitionStatus')]: object(
    'CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition',
    {
      acceptedNames: ref(
        APIEXT('CustomResourceDefinitionNames'),
        'acceptedNames are the names that are actually being used to serve discovery.',
      ),
      conditions: {
        type: 'array',
        items: { type: 'object' },
        description: 'conditions indicate state for particular aspects of a CustomResourceDefinition',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      },
      storedVersions: strings(
        'storedVersions lists all versions of CustomResources that were ever persisted.',
        atomic,
      ),
    },
  ),
};
