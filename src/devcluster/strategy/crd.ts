// CustomResourceDefinitions: validated and given their status (names accepted, established) on write; a stored
// CRD serves its versions, a removed one takes its custom resources with it. Group and plural are immutable.
import { invalid } from '../../k8s/status.ts';
import { crdResourceDefs, prepareCrd, validateCrd } from '../crd.ts';
import { nowSeconds } from '../meta.ts';
import type { Registry } from '../registry.ts';
import type { Obj } from '../store.ts';
import { type StrategyContext, strategy } from './strategy.ts';

const GROUP = 'apiextensions.k8s.io';
const KIND = 'CustomResourceDefinition';
const nameOf = (crd: Obj) => String((crd.metadata as Obj).name);

function validate(crd: Obj): void {
  const causes = validateCrd(crd);
  if (causes.length) throw invalid(GROUP, KIND, nameOf(crd), causes);
}

/** A CRD may not take over a built-in resource. */
function checkConflicts(crd: Obj, registry: Registry): void {
  const spec = crd.spec as Obj;
  const names = spec.names as Obj;
  const group = String(spec.group);
  if (registry.all().some((d) => !d.crd && d.group === group && d.resource === names.plural))
    throw invalid(GROUP, KIND, nameOf(crd), [
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: conflicts with a built-in resource',
        field: 'spec.names.plural',
      },
    ]);
}

function removeContents(crd: Obj, ctx: StrategyContext): void {
  const spec = crd.spec as Obj;
  const res = `${String(spec.group)}/${String((spec.names as Obj).plural)}`;
  for (const e of [...ctx.store.list(res)]) ctx.store.remove(res, e.ns, e.name);
  ctx.registry.setCrd(nameOf(crd), []);
}

export const crdStrategy = strategy({
  prepareForCreate(o, ctx) {
    validate(o);
    checkConflicts(o, ctx.registry);
    prepareCrd(o, String((o.metadata as Obj).creationTimestamp));
  },
  finishUpdate(o, old, sub) {
    if (sub === 'status') return;
    validate(o);
    const oldSpec = old.spec as Obj;
    const newSpec = o.spec as Obj;
    if (newSpec.group !== oldSpec.group || (newSpec.names as Obj).plural !== (oldSpec.names as Obj).plural)
      throw invalid(GROUP, KIND, nameOf(old), [
        { reason: 'FieldValueInvalid', message: 'Invalid value: field is immutable', field: 'spec.group' },
      ]);
    prepareCrd(o, nowSeconds());
  },
  afterStore(entry, ctx) {
    if (!(entry.obj.metadata as Obj).deletionTimestamp)
      ctx.registry.setCrd(entry.name, crdResourceDefs(entry.obj));
  },
  afterRemove: (removed, ctx) => removeContents(removed.obj, ctx),
});
