// Step 2b of the filter chain: impersonation (`kubectl --as`, `--as-group`, `--as-uid`), as kube-apiserver's
// impersonation filter. When a request carries Impersonate-User / -Group / -Uid / -Extra-<key>, the authenticated
// caller must hold the `impersonate` verb on each thing asked for: users (or serviceaccounts for
// system:serviceaccount:<ns>:<name>) and groups in API group "", uids and userextras/<key> in authentication.k8s.io.
// Any refusal is a 403 for the whole request. Once allowed, the request runs as exactly the identity the headers
// describe (plus system:authenticated); authorization, handlers and forwarding all see that user, and the audit
// event records both. Requests without an authenticated user (the anonymous allow-list) ignore the headers: there is
// no identity for them to change, and forwarding strips every client Impersonate-* header anyway.
//
// Run by the filter chain (./chain.ts), for fastify's hooks and the upgrade handler alike.
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import type { RequestInfo, UserInfo } from '../request.ts';
import { authorizeRequest } from './authorization.ts';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;
const ANONYMOUS = 'system:anonymous';

/** One thing the caller asks to act as, authorized as `impersonate` on (group, resource/subresource, name). */
interface Wanted {
  apiGroup: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name: string;
}

/** Cheap test for the common case: no header starts with impersonate-. */
function hasImpersonationHeaders(headers: IncomingHttpHeaders): boolean {
  for (const name in headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

/** Kubernetes escapes extra keys that are not valid header names with percent-encoding; undo it (as kube). */
function extraKey(headerName: string): string {
  const raw = headerName.slice(EXTRA_PREFIX.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function attributesInfo(w: Wanted): RequestInfo {
  const apiPrefix = w.apiGroup ? 'apis' : 'api';
  return {
    isResourceRequest: true,
    isKubernetesRequest: false,
    // Never an allow-listed path: the decision comes from the caller's rules only.
    path: `/${apiPrefix}/${w.apiGroup ? `${w.apiGroup}/` : ''}v1/${w.resource}`,
    verb: 'impersonate',
    apiPrefix,
    apiGroup: w.apiGroup,
    apiVersion: 'v1',
    cluster: '',
    workspace: '',
    namespace: w.namespace ?? '',
    resource: w.resource,
    subresource: w.subresource ?? '',
    name: w.name,
    parts: [],
    resourceScope: w.namespace ? 'Namespace' : 'Cluster',
  };
}

/** Whether `caller` may act as the KubeSphere user `name` (`impersonate` on users/<name>), as a header would ask. */
export async function mayImpersonateUser(
  ctx: ServerContext,
  caller: UserInfo,
  name: string,
): Promise<boolean> {
  const decision = await ctx.authorizer.authorize(
    caller,
    attributesInfo({ apiGroup: '', resource: 'users', name }),
  );
  return decision.allowed;
}

/**
 * The identity a request acts as: undefined when it asks for no impersonation, else the impersonated user once the
 * caller has been authorized for every part of it. Throws a 400 StatusError for malformed headers and the 403 (or
 * 503) of the first refused part.
 */
export async function impersonatedUser(
  ctx: ServerContext,
  caller: UserInfo,
  headers: IncomingHttpHeaders,
  distinct: () => Record<string, string[] | undefined>,
): Promise<UserInfo | undefined> {
  if (!hasImpersonationHeaders(headers)) return undefined;
  const all = distinct();
  const values = (name: string) => (all[name] ?? []).filter((v) => v !== '');
  const users = values(USER);
  const uids = values(UID);
  const groups = values(GROUP);
  const extra: Record<string, string[]> = {};
  for (const name of Object.keys(all)) {
    if (!name.startsWith(EXTRA_PREFIX) || name.length === EXTRA_PREFIX.length) continue;
    const vs = values(name);
    const key = extraKey(name);
    if (vs.length > 0) extra[key] = [...(extra[key] ?? []), ...vs];
  }
  const hasOthers = groups.length > 0 || uids.length > 0 || Object.keys(extra).length > 0;
  if (users.length === 0) {
    if (!hasOthers) return undefined;
    // kube-apiserver refuses this too: groups or extras alone would be added to whom?
    throw badRequest('Impersonate-Group, Impersonate-Uid and Impersonate-Extra-* require Impersonate-User');
  }
  // kube takes the first value; two different names would leave it unclear who was authorized, so refuse instead.
  if (users.length > 1) throw badRequest('only one Impersonate-User header is allowed');
  if (uids.length > 1) throw badRequest('only one Impersonate-Uid header is allowed');

  const name = users[0];
  const wanted: Wanted[] = [];
  const sa = SERVICE_ACCOUNT.exec(name);
  wanted.push(
    sa
      ? { apiGroup: '', resource: 'serviceaccounts', namespace: sa[1], name: sa[2] }
      : { apiGroup: '', resource: 'users', name },
  );
  for (const g of groups) wanted.push({ apiGroup: '', resource: 'groups', name: g });
  for (const [key, vs] of Object.entries(extra)) {
    for (const v of vs) {
      wanted.push({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
    }
  }
  if (uids.length === 1) wanted.push({ apiGroup: 'authentication.k8s.io', resource: 'uids', name: uids[0] });
  for (const w of wanted) await authorizeRequest(ctx, caller, attributesInfo(w));

  // Exactly the headers' identity, as kube: a service account without groups gets its own; everyone but anonymous
  // is authenticated.
  const effective =
    groups.length === 0 && sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1]}`] : groups;
  const implied = name === ANONYMOUS ? 'system:unauthenticated' : 'system:authenticated';
  const user: UserInfo = {
    name,
    groups: effective.includes(implied) ? [...effective] : [...effective, implied],
  };
  if (uids.length === 1) user.uid = uids[0];
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}
