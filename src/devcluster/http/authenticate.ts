// Stage 2: who is calling. The dev cluster's own bearer token is the administrator; a service-account token (when
// service accounts are enabled) is a user that RBAC governs. Anything else is a 401.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RbacUser } from '../../k8s/rbac.ts';
import { unauthorized } from '../../k8s/status.ts';
import type { ServiceAccounts } from '../serviceaccounts.ts';

/** The authenticated caller: the administrator, or a service account whose requests RBAC authorizes. */
export interface Caller {
  serviceAccount?: RbacUser;
}

export function createAuthenticator(
  token: string,
  serviceAccounts: ServiceAccounts | undefined,
): (req: IncomingMessage) => Caller {
  const expected = Buffer.from(`Bearer ${token}`);
  const isAdmin = (req: IncomingMessage): boolean => {
    const h = Buffer.from(req.headers.authorization ?? '');
    return h.length === expected.length && timingSafeEqual(h, expected);
  };
  return (req) => {
    if (isAdmin(req)) return {};
    const serviceAccount = serviceAccounts?.authenticate(req.headers.authorization);
    if (!serviceAccount) throw unauthorized();
    return { serviceAccount };
  };
}
