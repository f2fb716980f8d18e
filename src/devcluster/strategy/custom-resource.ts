// Custom resources: their CRD version's structural schema defaults, prunes (or, with fieldValidation=Strict,
// refuses) unknown fields and validates; status is set only through the status subresource when there is one.
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
      if (opts.fieldValidation === 'Strict' && pruned.length > 0)
        throw badRequest(`strict decoding error: ${pruned.map((f) => `unknown field "${f}"`).join(', ')}`);
      return validateAgainstSchema(schema, o);
    },
    // Kubernetes has no Go type to take patch strategies from for custom resources.
    strategicMergePatch: false,
  });
}
