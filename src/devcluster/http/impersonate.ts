// Stage 3: impersonation, as kube-apiserver's impersonation filter. Impersonate-User (with -Group, -Uid and
// -Extra-<key>) makes the request run as that identity once the authenticated caller holds the `impersonate` verb on
// each part: users (serviceaccounts for system:serviceaccount:<ns>:<name>) and groups in API group "", uids and
// userextras/<key> in authentication.k8s.io. The first refusal is a 403 for the whole request.
import type { IncomingMessage } from 'node:http';
import type { RbacAttributes } from '../../k8s/rbac.ts';
import { badRequest, forbidden } from '../../k8s/status.ts';
import type { Caller, UserInfo } from './authenticate.ts';

const EXTRA_PREFIX = 'impersonate-extra-';
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** Whether RBAC (or membership of system:masters) grants `user` the attributes. */
export type Allows = (user: UserInfo, attrs: RbacAttributes) => boolean;

interface Part {
  apiGroup: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name: string;
}

function attributes(p: Part): RbacAttributes {
  return {
    isResourceRequest: true,
    verb: 'impersonate',
    apiGroup: p.apiGroup,
    resource: p.resource,
    subresource: p.subresource ?? '',
    name: p.name,
    namespace: p.namespace ?? '',
    path: '',
  };
}

/** Extra keys that are not valid header names arrive percent-encoded. */
function extraKey(header: string): string {
  const raw = header.slice(EXTRA_PREFIX.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Whether any Impersonate-* header came (most requests: their distinct headers need not be built). */
function asksImpersonation(req: IncomingMessage): boolean {
  for (const name in req.headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

/** The caller the request acts as: `caller` itself without Impersonate-* headers, else the impersonated user. */
export function impersonate(req: IncomingMessage, caller: Caller, allows: Allows): Caller {
  if (!asksImpersonation(req)) return caller;
  const headers = req.headersDistinct;
  const values = (name: string) => (headers[name] ?? []).filter((v) => v !== '');
  const users = values('impersonate-user');
  const groups = values('impersonate-group');
  const uids = values('impersonate-uid');
  const extra: Record<string, string[]> = {};
  for (const name of Object.keys(headers)) {
    if (!name.startsWith(EXTRA_PREFIX) || name === EXTRA_PREFIX) continue;
    const vs = values(name);
    if (vs.length > 0) extra[extraKey(name)] = [...(extra[extraKey(name)] ?? []), ...vs];
  }
  if (users.length === 0) {
    if (groups.length === 0 && uids.length === 0 && Object.keys(extra).length === 0) return caller;
    throw badRequest('requested impersonation of groups, uid or extra without impersonating a user');
  }
  if (users.length > 1 || uids.length > 1)
    throw badRequest('only one Impersonate-User and one Impersonate-Uid header may be given');

  const name = users[0];
  const sa = SERVICE_ACCOUNT.exec(name);
  const parts: Part[] = [
    sa
      ? { apiGroup: '', resource: 'serviceaccounts', namespace: sa[1], name: sa[2] }
      : { apiGroup: '', resource: 'users', name },
    ...groups.map((g) => ({ apiGroup: '', resource: 'groups', name: g })),
    ...Object.entries(extra).flatMap(([key, vs]) =>
      vs.map((v) => ({
        apiGroup: 'authentication.k8s.io',
        resource: 'userextras',
        subresource: key,
        name: v,
      })),
    ),
    ...uids.map((u) => ({ apiGroup: 'authentication.k8s.io', resource: 'uids', name: u })),
  ];
  for (const p of parts) {
    if (allows(caller.user, attributes(p))) continue;
    const what = `${p.resource}${p.subresource ? `/${p.subresource}` : ''}`;
    const scope = p.namespace ? ` in the namespace "${p.namespace}"` : ' at the cluster scope';
    throw forbidden(
      `${what} "${p.name}" is forbidden: User "${caller.user.name}" cannot impersonate resource "${what}" in API group "${p.apiGroup}"${scope}`,
    );
  }
  // Exactly the identity the headers describe; a service account without groups gets its own; everyone but
  // system:anonymous is authenticated.
  const own =
    groups.length === 0 && sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1]}`] : groups;
  const implied = name === 'system:anonymous' ? 'system:unauthenticated' : 'system:authenticated';
  const user: UserInfo = { name, groups: own.includes(implied) ? own : [...own, implied] };
  if (uids.length === 1) user.uid = uids[0];
  if (Object.keys(extra).length > 0) user.extra = extra;
  return { user };
}
