// What an identity provider vouches for, and how its failures read. Failures are RFC 6749 errors on /oauth: a
// refused identity is the provider's "no" (invalid_grant), an upstream that does not answer in time is 503.
import { OAuthError } from '../errors.ts';

export interface ExternalIdentity {
  /** Stable id at the provider (LDAP login attribute, OIDC sub, GitHub numeric id): the origin-uid label. */
  uid: string;
  /** Preferred user name (lowercased into the User's name on auto mapping). */
  username: string;
  email: string;
  /** Group names the provider reports (LDAP); undefined when the provider says nothing about groups. */
  groups?: string[];
}

/** Seconds a client should wait before retrying when a provider is down. */
const RETRY_AFTER_SECONDS = '5';

/** The provider could not be reached or did not answer within its timeout. `cause` is logged, never answered. */
export function providerUnavailable(name: string, cause?: unknown): OAuthError {
  const e = new OAuthError(
    503,
    'temporarily_unavailable',
    `the identity provider "${name}" did not answer; retry shortly`,
    { 'retry-after': RETRY_AFTER_SECONDS },
  );
  e.cause = cause;
  return e;
}

/** The provider refuses kapiserver's own credentials for it (LDAP manager): the operator must fix the settings. */
export function providerMisconfigured(name: string, cause?: unknown): OAuthError {
  const e = new OAuthError(
    500,
    'server_error',
    `the identity provider "${name}" refused kapiserver's credentials`,
  );
  e.cause = cause;
  return e;
}

/** The provider answered but its answer cannot be trusted or used (the description never echoes a secret). */
export const providerRefused = (description: string, status = 401) =>
  new OAuthError(status, 'invalid_grant', description);
