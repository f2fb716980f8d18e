// Decodes Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`) into the JSON-shaped object
// the JSON encoding of the same object would give. kubectl 1.32+ sends its generator commands (`create namespace`,
// `create deployment`, `run`, ...) this way and never falls back to JSON.
//
// Wire format: the 4 bytes `k8s\0`, then a runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw,
// 3 contentEncoding, 4 contentType}; `raw` is the object message. The message definitions under ./proto are
// trimmed copies of the published generated.proto files; the mapping to JSON is generic (proto field name =
// JSON name) with the special cases of the apimachinery types and Go's `omitempty` handled below.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { badRequest, StatusError } from '../../k8s/status.ts';

const PROTO_FILES = [
  'runtime',
  'intstr',
  'resource',
  'meta',
  'core',
  'apps',
  'batch',
  'rbac',
  'networking',
  'policy',
  'scheduling',
  'authorization',
  'authentication',
];

/** apiVersion -> proto package of its kinds. */
const PACKAGES: Record<string, string> = {
  v1: 'k8s.io.api.core.v1',
  'apps/v1': 'k8s.io.api.apps.v1',
  'batch/v1': 'k8s.io.api.batch.v1',
  'rbac.authorization.k8s.io/v1': 'k8s.io.api.rbac.v1',
  'networking.k8s.io/v1': 'k8s.io.api.networking.v1',
  'policy/v1': 'k8s.io.api.policy.v1',
  'scheduling.k8s.io/v1': 'k8s.io.api.scheduling.v1',
  'authorization.k8s.io/v1': 'k8s.io.api.authorization.v1',
  'authentication.k8s.io/v1': 'k8s.io.api.authentication.v1',
};

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"

/**
 * Go embedded structs (`json:",inline"`): protobuf keeps them as a nested message named after the type,
 * JSON flattens their fields into the parent.
 */
const INLINE = new Set([
  'ConfigMapEnvSource.localObjectReference',
  'ConfigMapKeySelector.localObjectReference',
  'ConfigMapProjection.localObjectReference',
  'ConfigMapVolumeSource.localObjectReference',
  'SecretEnvSource.localObjectReference',
  'SecretKeySelector.localObjectReference',
  'SecretProjection.localObjectReference',
  'EphemeralContainer.ephemeralContainerCommon',
  'Probe.handler',
  'Volume.volumeSource',
  'IngressRule.ingressRuleValue',
]);

/**
 * The generated Go marshallers write every non-pointer scalar, zero or not; JSON's `omitempty` drops zero values.
 * So a zero scalar is omitted unless its Go field is a pointer (written only when set, where an explicit 0/false/""
 * means something) or a required value without `omitempty`.
 */
const KEEP_ZERO = new Set([
  'ObjectMeta.deletionGracePeriodSeconds',
  'OwnerReference.controller',
  'OwnerReference.blockOwnerDeletion',
  'ListMeta.remainingItemCount',
  'ConfigMap.immutable',
  'Secret.immutable',
  'ServiceAccount.automountServiceAccountToken',
  'ConfigMapEnvSource.optional',
  'ConfigMapKeySelector.optional',
  'ConfigMapProjection.optional',
  'ConfigMapVolumeSource.optional',
  'ConfigMapVolumeSource.defaultMode',
  'SecretEnvSource.optional',
  'SecretKeySelector.optional',
  'SecretProjection.optional',
  'SecretVolumeSource.optional',
  'SecretVolumeSource.defaultMode',
  'KeyToPath.mode',
  'DownwardAPIVolumeFile.mode',
  'DownwardAPIVolumeSource.defaultMode',
  'ProjectedVolumeSource.defaultMode',
  'ServiceAccountTokenProjection.expirationSeconds',
  'CSIVolumeSource.readOnly',
  'HostPathVolumeSource.type',
  'PodSpec.terminationGracePeriodSeconds',
  'PodSpec.activeDeadlineSeconds',
  'PodSpec.automountServiceAccountToken',
  'PodSpec.shareProcessNamespace',
  'PodSpec.priority',
  'PodSpec.runtimeClassName',
  'PodSpec.enableServiceLinks',
  'PodSpec.preemptionPolicy',
  'PodSpec.setHostnameAsFQDN',
  'PodSecurityContext.runAsUser',
  'PodSecurityContext.runAsGroup',
  'PodSecurityContext.runAsNonRoot',
  'PodSecurityContext.fsGroup',
  'PodSecurityContext.fsGroupChangePolicy',
  'SecurityContext.privileged',
  'SecurityContext.runAsUser',
  'SecurityContext.runAsGroup',
  'SecurityContext.runAsNonRoot',
  'SecurityContext.readOnlyRootFilesystem',
  'SecurityContext.allowPrivilegeEscalation',
  'SecurityContext.procMount',
  'SeccompProfile.localhostProfile',
  'WindowsSecurityContextOptions.gmsaCredentialSpecName',
  'WindowsSecurityContextOptions.gmsaCredentialSpec',
  'WindowsSecurityContextOptions.runAsUserName',
  'Probe.terminationGracePeriodSeconds',
  'Toleration.tolerationSeconds',
  'ClientIPConfig.timeoutSeconds',
  'PersistentVolumeClaimSpec.storageClassName',
  'PersistentVolumeClaimSpec.volumeMode',
  'ServicePort.appProtocol',
  'ServicePort.port',
  'EndpointPort.appProtocol',
  'EndpointAddress.nodeName',
  'ServiceSpec.ipFamilyPolicy',
  'ServiceSpec.allocateLoadBalancerNodePorts',
  'ServiceSpec.loadBalancerClass',
  'ServiceSpec.internalTrafficPolicy',
  'ContainerPort.containerPort',
  'DeploymentSpec.replicas',
  'DeploymentSpec.revisionHistoryLimit',
  'DeploymentSpec.progressDeadlineSeconds',
  'ReplicaSetSpec.replicas',
  'StatefulSetSpec.replicas',
  'StatefulSetSpec.revisionHistoryLimit',
  'DaemonSetSpec.revisionHistoryLimit',
  'RollingUpdateStatefulSetStrategy.partition',
  'JobSpec.parallelism',
  'JobSpec.completions',
  'JobSpec.activeDeadlineSeconds',
  'JobSpec.backoffLimit',
  'JobSpec.manualSelector',
  'JobSpec.ttlSecondsAfterFinished',
  'JobSpec.completionMode',
  'JobSpec.suspend',
  'CronJobSpec.timeZone',
  'CronJobSpec.startingDeadlineSeconds',
  'CronJobSpec.suspend',
  'CronJobSpec.successfulJobsHistoryLimit',
  'CronJobSpec.failedJobsHistoryLimit',
  'IngressSpec.ingressClassName',
  'NetworkPolicyPort.endPort',
  'PodDisruptionBudgetSpec.unhealthyPodEvictionPolicy',
  'PriorityClass.value',
  'PriorityClass.preemptionPolicy',
  'DeleteOptions.gracePeriodSeconds',
  'DeleteOptions.orphanDependents',
  'DeleteOptions.propagationPolicy',
  'Preconditions.uid',
  'Preconditions.resourceVersion',
  'SubjectAccessReviewStatus.allowed',
  'TokenRequestSpec.expirationSeconds',
]);

let cachedRoot: protobuf.Root | undefined;

/** The parsed message definitions (loaded once); exported so tests can encode bodies with the same schema. */
export function protobufRoot(): protobuf.Root {
  if (cachedRoot) return cachedRoot;
  const root = new protobuf.Root();
  for (const name of PROTO_FILES) {
    const text = readFileSync(new URL(`./proto/${name}.proto`, import.meta.url), 'utf8');
    protobuf.parse(text, root, { keepCase: true });
  }
  root.resolveAll();
  cachedRoot = root;
  return root;
}

type Msg = Record<string, unknown>;

const isZero = (v: unknown) => v === '' || v === 0 || v === false || (isLong(v) && Number(String(v)) === 0);

function isLong(v: unknown): v is { low: number; high: number } {
  return typeof v === 'object' && v !== null && 'low' in v && 'high' in v;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (isLong(v)) return Number(String(v));
  return Number(v);
}

function rfc3339(seconds: number, nanos: number, fractionDigits: number): string {
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) throw badRequest(`invalid timestamp: ${seconds}s`);
  const base = d.toISOString().slice(0, 19);
  if (fractionDigits === 0) return `${base}Z`;
  const frac = String(Math.max(0, nanos)).padStart(9, '0').slice(0, fractionDigits);
  return `${base}.${frac}Z`;
}

function parseRawJson(raw: unknown, what: string): unknown {
  if (!(raw instanceof Uint8Array) || raw.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch {
    throw badRequest(`${what} does not hold valid JSON`);
  }
}

/** Special apimachinery types whose JSON form is not their message shape; `undefined` means "omit". */
function convertSpecial(fullName: string, msg: Msg): { value: unknown } | undefined {
  switch (fullName) {
    case `.${META}.Time`:
    case `.${META}.MicroTime`: {
      const hasSeconds = Object.hasOwn(msg, 'seconds');
      const hasNanos = Object.hasOwn(msg, 'nanos');
      if (!hasSeconds && !hasNanos) return { value: undefined }; // Go's zero time marshals to nothing -> null
      const digits = fullName.endsWith('MicroTime') ? 6 : 0;
      return { value: rfc3339(toNumber(msg.seconds ?? 0), toNumber(msg.nanos ?? 0), digits) };
    }
    case '.k8s.io.apimachinery.pkg.api.resource.Quantity':
      return { value: typeof msg.string === 'string' && msg.string !== '' ? msg.string : '0' };
    case '.k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return { value: toNumber(msg.type ?? 0) === 1 ? String(msg.strVal ?? '') : toNumber(msg.intVal ?? 0) };
    case '.k8s.io.apimachinery.pkg.runtime.RawExtension':
      return { value: parseRawJson(msg.raw, 'a RawExtension') };
    case `.${META}.FieldsV1`:
      return { value: parseRawJson(msg.Raw, 'managedFields[].fieldsV1') };
    default:
      return undefined;
  }
}

function convertValue(field: protobuf.Field, v: unknown): unknown {
  if (field.resolvedType instanceof protobuf.Type) return convertMessage(field.resolvedType, v as Msg);
  if (field.type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if (field.type === 'int64' || field.type === 'uint64' || field.type === 'sint64') return toNumber(v);
  return v;
}

function convertMessage(type: protobuf.Type, msg: Msg): unknown {
  const special = convertSpecial(type.fullName, msg);
  if (special) return special.value;
  const out: Msg = {};
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(msg, field.name)) continue;
    const v = msg[field.name];
    let converted: unknown;
    if (field instanceof protobuf.MapField) {
      const entries = Object.entries(v as Msg);
      if (entries.length === 0) continue;
      const valueField = { resolvedType: field.resolvedType, type: field.type } as protobuf.Field;
      converted = Object.fromEntries(entries.map(([k, val]) => [k, convertValue(valueField, val)]));
    } else if (field.repeated) {
      const items = v as unknown[];
      if (items.length === 0) continue;
      converted = items.map((item) => convertValue(field, item));
    } else {
      if (
        !(field.resolvedType instanceof protobuf.Type) &&
        isZero(v) &&
        !KEEP_ZERO.has(`${type.name}.${field.name}`)
      )
        continue;
      converted = convertValue(field, v);
    }
    if (converted === undefined) continue;
    if (INLINE.has(`${type.name}.${field.name}`) && typeof converted === 'object' && converted !== null) {
      Object.assign(out, converted);
    } else {
      out[field.name] = converted;
    }
  }
  return out;
}

function decodeMessage(type: protobuf.Type, bytes: Uint8Array, what: string): Msg {
  try {
    return type.decode(bytes) as unknown as Msg;
  } catch (err) {
    throw badRequest(`the protobuf ${what} could not be decoded: ${(err as Error).message}`);
  }
}

/** The kinds that can be decoded, as `apiVersion -> kinds`; for error messages and tests. */
export function supportedProtobufKinds(): Record<string, string[]> {
  const root = protobufRoot();
  const out: Record<string, string[]> = {};
  for (const [apiVersion, pkg] of Object.entries(PACKAGES)) {
    const ns = root.lookup(pkg);
    if (!(ns instanceof protobuf.Namespace)) continue;
    out[apiVersion] = ns.nestedArray
      .filter((t): t is protobuf.Type => t instanceof protobuf.Type && isTopLevelKind(t))
      .map((t) => t.name)
      .sort();
  }
  return out;
}

function isTopLevelKind(t: protobuf.Type): boolean {
  if (/Template(Spec)?$/.test(t.name)) return false; // embedded templates carry ObjectMeta but are not kinds
  const meta = t.fields.metadata;
  return meta?.resolvedType?.fullName === `.${META}.ObjectMeta`;
}

/**
 * Decodes a `application/vnd.kubernetes.protobuf` request body into the object's JSON form.
 * Throws StatusError 400 for malformed bytes, 415 for kinds or encodings it does not know.
 */
export function decodeProtobufObject(body: Uint8Array): Record<string, unknown> {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b))
    throw badRequest(
      'the protobuf request body does not start with the Kubernetes envelope prefix "k8s\\x00"',
    );
  const root = protobufRoot();
  const unknown = decodeMessage(
    root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown'),
    body.subarray(MAGIC.length),
    'envelope (runtime.Unknown)',
  );
  const typeMeta = (unknown.typeMeta ?? {}) as Msg;
  const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
  const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
  if (!apiVersion || !kind)
    throw badRequest('the protobuf envelope does not name the apiVersion and kind of the object');
  const encoding = typeof unknown.contentEncoding === 'string' ? unknown.contentEncoding : '';
  const innerType = typeof unknown.contentType === 'string' ? unknown.contentType : '';
  if (encoding || (innerType && innerType !== 'application/vnd.kubernetes.protobuf'))
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `protobuf envelope with contentEncoding "${encoding}" and contentType "${innerType}" is not supported`,
    );
  const pkg = PACKAGES[apiVersion];
  const type = pkg ? root.lookup(`${pkg}.${kind}`) : null;
  if (!(type instanceof protobuf.Type) || !isTopLevelKind(type)) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `protobuf request bodies are not supported for ${kind} in ${apiVersion}; send application/json or application/yaml`,
    );
  }
  const raw = unknown.raw instanceof Uint8Array ? unknown.raw : new Uint8Array();
  const object = convertMessage(type, decodeMessage(type, raw, `${kind} object`)) as Msg;
  return { apiVersion, kind, ...object };
}
