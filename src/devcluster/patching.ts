// Dispatches a PATCH body to the right patch engine by content type.
import { StatusError } from '../k8s/status.ts';

export type PatchKind = 'json' | 'merge' | 'strategic' | 'apply';

export function patchKindOf(contentType: string): PatchKind {
  const ct = contentType.split(';')[0].trim().toLowerCase();
  switch (ct) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+cbor':
      return 'apply';
    default:
      throw new StatusError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json; got ${ct || '(none)'}`,
      );
  }
}
