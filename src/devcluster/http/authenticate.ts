// Stage 2: who is calling. The dev cluster's own bearer token is the administrator (in system:masters, which
// authorization never restricts, as in kube-apiserver); a service-account token (when service accounts are enabled)
// and an ID token from a trusted OIDC issuer (when configured) are users that RBAC governs. Anything else is a 401.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RbacUser } from '../../k8s/rbac.ts';
import { unauthorized } from '../../k8s/status.ts';
import type { OidcAuthenticator } from '../oidc.ts';
import type { ServiceAccounts } from '../serviceaccounts.ts';

/** A user as Kubernetes' user.Info has it. */
export interface UserInfo extends RbacUser {
  uid?: string;
  extra?: Record<string, string[]>;
}

/** The authenticated caller. */
export interface Caller {
  user: UserInfo;
}

export const MASTERS = 'system:masters';
export const ADMIN: UserInfo = { name: 'kubernetes-admin', groups: [MASTERS, 'system:authenticated'] };

export const isMaster = (user: UserInfo) => user.groups.includes(MASTERS);

/** Who a bearer token is, or undefined (token reviews ask this too). */
export type TokenAuthenticator = (token: string) => Promise<UserInfo | undefined>;

export function createAuthenticator(
  token: string,
  serviceAccounts: ServiceAccounts | undefined,
  oidc: OidcAuthenticator | undefined,
): { request: (req: IncomingMessage) => Promise<Caller>; token: TokenAuthenticator } {
  const expected = Buffer.from(token);
  const isAdmin = (given: string): boolean => {
    const h = Buffer.from(given);
    return h.length === expected.length && timingSafeEqual(h, expected);
  };
  const userOf: TokenAuthenticator = async (bearer) => {
    if (isAdmin(bearer)) return ADMIN;
    return serviceAccounts?.authenticate(bearer) ?? (oidc ? await oidc.authenticate(bearer) : undefined);
  };
  return {
    token: userOf,
    request: async (req) => {
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const user = bearer ? await userOf(bearer) : undefined;
      if (!user) throw unauthorized();
      return { user };
    },
  };
}
