// Kubernetes metav1.Status errors: the one error shape on /api, /apis, /kapi and /kapis.

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** An error that carries the Status to answer with; handlers throw it, the error handler serialises it. */
export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): Status {
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details && Object.keys(this.details).length > 0) s.details = this.details;
    return s;
  }
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

/** `deployments.apps` style qualified resource name used in messages. */
export function qualifiedResource(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

export const badRequest = (message: string, causes?: StatusCause[]) =>
  new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);

export const unauthorized = (message = 'Unauthorized') => new StatusError(401, 'Unauthorized', message);

export const forbidden = (message: string, details?: StatusDetails) =>
  new StatusError(403, 'Forbidden', message, details);

export const notFound = (group: string, resource: string, name: string) =>
  new StatusError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, {
    name,
    group: group || undefined,
    kind: resource,
  });

export const notFoundMessage = (message: string) => new StatusError(404, 'NotFound', message);

export const methodNotAllowed = (
  message = 'the server does not allow this method on the requested resource',
) => new StatusError(405, 'MethodNotAllowed', message);

export const alreadyExists = (group: string, resource: string, name: string) =>
  new StatusError(409, 'AlreadyExists', `${qualifiedResource(group, resource)} "${name}" already exists`, {
    name,
    group: group || undefined,
    kind: resource,
  });

export const conflict = (
  group: string,
  resource: string,
  name: string,
  why: string,
  causes?: StatusCause[],
) =>
  new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": ${why}`,
    {
      name,
      group: group || undefined,
      kind: resource,
      causes,
    },
  );

export const gone = (message: string) => new StatusError(410, 'Expired', message);

export const requestEntityTooLarge = (message = 'the request is too large') =>
  new StatusError(413, 'RequestEntityTooLarge', message);

export const unsupportedMediaType = (contentType: string) =>
  new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf; got ${contentType || '(none)'}`,
  );

/**
 * 422 Invalid; `kind` is the object kind (e.g. `ConfigMap`), causes name the offending fields. The message lists
 * the causes as apimachinery's aggregate error prints them: one as it is, several without repeats in brackets.
 */
export const invalid = (group: string, kind: string, name: string, causes: StatusCause[]) => {
  const errors = [...new Set(causes.map((c) => `${c.field ? `${c.field}: ` : ''}${c.message ?? ''}`))];
  return new StatusError(
    422,
    'Invalid',
    `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`,
    { name, group: group || undefined, kind, causes },
  );
};

export const tooManyRequests = (message: string, retryAfterSeconds?: number) =>
  new StatusError(429, 'TooManyRequests', message, retryAfterSeconds ? { retryAfterSeconds } : undefined);

export const internalError = (message = 'an internal error occurred') =>
  new StatusError(500, 'InternalError', message);

export const serviceUnavailable = (message: string) => new StatusError(503, 'ServiceUnavailable', message);

/** Status for any thrown value: StatusErrors as they are, everything else as an opaque 500 (no internals leak). */
export function toStatus(err: unknown): Status {
  if (isStatusError(err)) return err.toStatus();
  return internalError().toStatus();
}
