// Pods: scheduling defaults and a Pending status on create; containers need a name and an image.
import type { StatusCause } from '../../k8s/status.ts';
import { defaultPodSpec, validatePodSpec } from './pod-spec.ts';
import { objAt, strategy } from './strategy.ts';

const UNTOLERATED_FOR_5_MINUTES = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

export const podStrategy = strategy({
  prepareForCreate(o) {
    const spec = objAt(o, 'spec');
    defaultPodSpec(spec);
    spec.serviceAccountName ??= 'default';
    spec.serviceAccount ??= spec.serviceAccountName;
    spec.tolerations ??= UNTOLERATED_FOR_5_MINUTES.map((key) => ({
      key,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 300,
    }));
    o.status = { phase: 'Pending', qosClass: 'BestEffort' };
  },
  validate(o) {
    const causes: StatusCause[] = [];
    validatePodSpec(o.spec, 'spec', causes);
    return causes;
  },
});
