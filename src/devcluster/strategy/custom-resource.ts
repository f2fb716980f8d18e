// Custom resources: their CRD version's structural schema defaults, prunes (with a warning each; with
// fieldValidation=Strict, refuses) unknown fields and validates; status is set only through the status subresource when there is one.
import { badRequest } from '../../k8s/status.ts';
import { defaultAndPrune, validateAgainstSchema } from '../crd.ts';
import type { ResourceDef } from '../resources.ts';
import { type ResourceStrategy, strategy } from './strategy.ts';

export function customResourceStrategy(d: ResourceDef): ResourceStrategy {
  const schema = d.crd?.schema;
  return strategy({
    prepareForCreate(o) {
      if (d.subresources.includes('status')) delete o.status;
    },
    validate(o, opts) {
      const pruned: string[] = [];
      defaultAndPrune(schema, o, true, '', pruned);
      const unknown = pruned.map((f) => `unknown field "${f}"`);
      if (opts.fieldValidation === 'Strict' && pruned.length > 0)
        throw badRequest(`strict decoding error: ${unknown.join(', ')}`);
      if (opts.fieldValidation !== 'Ignore') opts.warnings?.push(...unknown);
      return validateAgainstSchema(schema, o);
    },
    // Kubernetes has no Go type to take patch strategies from for custom resources.
    strategicMergePatch: false,
  });
}
