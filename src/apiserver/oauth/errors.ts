// RFC 6749 section 5.2 error responses, the one error shape on /oauth/*: {"error", "error_description"}.
import { fieldPath, type SchemaFailure } from '../validation.ts';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'server_error'
  | 'temporarily_unavailable';

export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description: string;
}

/** Thrown by /oauth handlers; the /oauth error handler answers `status` with the RFC 6749 body. */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: OAuthErrorCode;
  /** Extra response headers (e.g. WWW-Authenticate after a failed HTTP Basic client authentication). */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    error: OAuthErrorCode,
    description: string,
    headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = status;
    this.error = error;
    this.headers = headers;
  }

  toBody(): OAuthErrorBody {
    return { error: this.error, error_description: this.message };
  }
}

export const invalidRequest = (description: string, status = 400) =>
  new OAuthError(status, 'invalid_request', description);
export const invalidClient = (description: string, headers?: Record<string, string>) =>
  new OAuthError(401, 'invalid_client', description, headers);
export const invalidGrant = (description: string, status = 400) =>
  new OAuthError(status, 'invalid_grant', description);
export const unsupportedGrantType = (grantType: string) =>
  new OAuthError(400, 'unsupported_grant_type', `unsupported grant type "${grantType.slice(0, 64)}"`);
/**
 * fastify's schemaErrorFormatter for /oauth: the first failed field as `invalid_request`, named but never quoted (a
 * form carries passwords and client secrets). A missing or empty field reads "<field> is required".
 */
export function oauthErrorFromValidation(failures: readonly SchemaFailure[], part: string): OAuthError {
  const f = failures[0];
  const missing = f?.keyword === 'required' ? (f.params.requiredProperties as string[])[0] : undefined;
  const field = fieldPath(missing ? `${f.instancePath}/${missing}` : (f?.instancePath ?? '')) || part;
  if (missing !== undefined || (f?.keyword === 'minLength' && f.params.limit === 1))
    return invalidRequest(`${field} is required`);
  return invalidRequest(`${field} ${f?.message ?? 'is invalid'}`);
}
export const serverError = (description = 'the server could not complete the request') =>
  new OAuthError(500, 'server_error', description);

/** A dependency (the token store) is down: 503 with Retry-After, so clients retry instead of giving up. */
export const TOKEN_STORE_RETRY_AFTER_SECONDS = 5;
export const temporarilyUnavailable = (description: string) =>
  new OAuthError(503, 'temporarily_unavailable', description, {
    'retry-after': String(TOKEN_STORE_RETRY_AFTER_SECONDS),
  });

/** KubeSphere's descriptions, kept word for word because clients (the console) match on them. */
export const DESCRIPTIONS = {
  incorrectPassword: 'incorrect password',
  notActive: 'account is not active',
  rateLimited: 'auth rate limit exceeded',
  invalidClientCredential: 'invalid client credential',
} as const;
