// PersistentVolumeClaims and StorageClasses, as kube-apiserver v1.33 validates their updates. A claim's spec is
// immutable but for what ValidatePersistentVolumeClaimUpdate allows: volumeName set once, storageClassName set when
// it had none, and for a bound claim its storage request (not below status.capacity; growing it is for the resize
// admission in admission/claim-resize.ts). volumeAttributesClassName is dropped, as kube drops it while its
// VolumeAttributesClass gate is off (the 1.33 default). A StorageClass gets kube's defaults, and its provisioner,
// parameters, reclaimPolicy and volumeBindingMode never change.
import { parseQuantity, ZERO } from '../../k8s/quantity.ts';
import { invalid, type StatusCause } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { changedFields, comparable } from './spec-diff.ts';
import { objAt, strategy } from './strategy.ts';

/** The claim annotation that named the class before spec.storageClassName. */
export const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});
const annotationOf = (o: Obj, key: string): string | undefined => {
  const annotations = (o.metadata as Obj | undefined)?.annotations;
  return isObj(annotations) && typeof annotations[key] === 'string' ? annotations[key] : undefined;
};
/** A claim's spec.storageClassName; undefined when unset (Go's nil), which differs from "". */
const classNameOf = (spec: Obj) =>
  typeof spec.storageClassName === 'string' ? spec.storageClassName : undefined;
const storageOf = (list: unknown) => (isObj(list) ? parseQuantity(list.storage) : undefined) ?? ZERO;
const requestsOf = (spec: Obj) => (spec.resources as Obj | undefined)?.requests;

const forbidden = (field: string, why: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${why}`,
  field,
});
const immutable = (field: string, value: unknown): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value ?? 'null')}: field is immutable`,
  field,
});

/** kube's ValidatePersistentVolumeClaimUpdate (without ValidatePersistentVolumeClaim, the checks of any claim write). */
export function validateClaimUpdate(o: Obj, old: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = specOf(o);
  const before = specOf(old);
  const munged: Obj = { ...spec };
  const oldMunged: Obj = { ...before };
  if (!before.volumeName) oldMunged.volumeName = spec.volumeName; // the volume controller binds it once
  const oldBeta = annotationOf(old, BETA_STORAGE_CLASS);
  const newBeta = annotationOf(o, BETA_STORAGE_CLASS);
  const oldClass = classNameOf(before);
  const newClass = classNameOf(spec);
  const fromAnnotation =
    oldBeta !== undefined &&
    oldClass === undefined &&
    newClass === oldBeta &&
    (newBeta === undefined || newBeta === oldBeta);
  if (fromAnnotation) delete munged.storageClassName;
  else {
    if ((newBeta ?? '') !== (oldBeta ?? ''))
      causes.push(immutable(`metadata.annotations.${BETA_STORAGE_CLASS}`, newBeta ?? ''));
    // A claim without a class may get one (a default class created after it, retroactively).
    if (newClass !== undefined && oldClass === undefined && (oldBeta === undefined || newClass === oldBeta))
      delete munged.storageClassName;
  }
  const bound = (old.status as Obj | undefined)?.phase === 'Bound';
  const requests = requestsOf(spec);
  if (bound && isObj(requests)) {
    const { storage: _new, ...others } = requests;
    const oldStorage = (requestsOf(before) as Obj | undefined)?.storage;
    munged.resources = {
      ...(spec.resources as Obj),
      requests: oldStorage === undefined ? others : { ...others, storage: oldStorage },
    };
  }
  const changed = changedFields('core.PersistentVolumeClaimSpec', oldMunged, munged);
  if (changed)
    causes.push(
      forbidden(
        'spec',
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${changed}`,
      ),
    );
  // Shrinking back is allowed down to what was provisioned (kube's RecoverVolumeExpansionFailure, on in 1.33).
  const newSize = storageOf(requests);
  const capacity = storageOf((old.status as Obj | undefined)?.capacity);
  if (newSize.nano < storageOf(requestsOf(before)).nano && newSize.nano <= capacity.nano)
    causes.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  if (JSON.stringify(comparable(spec.volumeMode)) !== JSON.stringify(comparable(before.volumeMode)))
    causes.push(immutable('volumeMode', spec.volumeMode));
  return causes;
}

export const persistentVolumeClaimStrategy = strategy({
  prepareForCreate(o) {
    const spec = objAt(o, 'spec');
    spec.volumeMode ??= 'Filesystem';
    delete spec.volumeAttributesClassName;
    o.status = { phase: 'Pending' };
  },
  prepareForUpdate(o, old, sub) {
    if (sub !== undefined) return;
    const spec = objAt(o, 'spec');
    spec.volumeMode ??= 'Filesystem';
    if (specOf(old).volumeAttributesClassName === undefined) delete spec.volumeAttributesClassName;
  },
  finishUpdate(o, old, sub) {
    if (sub !== undefined) return; // status writes change the status only
    const causes = validateClaimUpdate(o, old);
    if (causes.length > 0)
      throw invalid('', 'PersistentVolumeClaim', String((old.metadata as Obj).name), causes);
  },
});

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

const unsupported = (field: string, value: unknown, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
  field,
});

/** SetDefaults_StorageClass, on every write as kube's decoding applies it. */
function defaultStorageClass(o: Obj): void {
  o.reclaimPolicy ??= 'Delete';
  o.volumeBindingMode ??= 'Immediate';
}

export const storageClassStrategy = strategy({
  prepareForCreate: defaultStorageClass,
  prepareForUpdate: defaultStorageClass,
  finishUpdate(o, old) {
    const causes: StatusCause[] = [];
    if (JSON.stringify(comparable(o.parameters)) !== JSON.stringify(comparable(old.parameters)))
      causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
    if (o.provisioner !== old.provisioner)
      causes.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
    if (o.reclaimPolicy !== old.reclaimPolicy)
      causes.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    if (o.volumeBindingMode !== old.volumeBindingMode)
      causes.push(immutable('volumeBindingMode', o.volumeBindingMode));
    if (causes.length > 0)
      throw invalid('storage.k8s.io', 'StorageClass', String((old.metadata as Obj).name), causes);
  },
  validate(o) {
    const causes: StatusCause[] = [];
    if (typeof o.provisioner !== 'string' || o.provisioner === '')
      causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'provisioner' });
    if (!RECLAIM_POLICIES.includes(String(o.reclaimPolicy)))
      causes.push(unsupported('reclaimPolicy', o.reclaimPolicy, RECLAIM_POLICIES));
    if (!BINDING_MODES.includes(String(o.volumeBindingMode)))
      causes.push(unsupported('volumeBindingMode', o.volumeBindingMode, BINDING_MODES));
    return causes;
  },
});
