// The review resources (access, rules, self-subject and token reviews): answered, never stored. Access reviews are
// decided as every request is (system:masters, else RBAC); a self-subject review names the caller as authenticated
// (and impersonated); a token review authenticates its token as a request's bearer token would be.
import type { RbacAttributes } from '../../k8s/rbac.ts';
import { methodNotAllowed } from '../../k8s/status.ts';
import { isObj, nowSeconds } from '../meta.ts';
import { apiVersionOf, type ResourceDef } from '../resources.ts';
import type { Obj } from '../store.ts';
import { isMaster, type TokenAuthenticator, type UserInfo } from './authenticate.ts';
import type { Allows } from './impersonate.ts';

/** How the dev cluster decides who a token is and what a user may do. */
export interface Authority {
  allows: Allows;
  /** Token reviews authenticate as requests are (the administrator, service accounts, OIDC). */
  tokenUser: TokenAuthenticator;
}

/** Who asks, and the authority that answers. */
export interface ReviewContext extends Authority {
  user: UserInfo;
}

type Answer = (base: Obj, body: Obj, d: ResourceDef, ctx: ReviewContext) => Obj | Promise<Obj>;

const userInfo = (u: UserInfo): Obj => ({
  username: u.name,
  ...(u.uid ? { uid: u.uid } : {}),
  groups: u.groups,
  ...(u.extra ? { extra: u.extra } : {}),
});

/** The attributes an access review's spec asks about. */
function attributesOf(spec: Obj): RbacAttributes {
  const r = isObj(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const n = isObj(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    isResourceRequest: r !== undefined,
    verb: s(r ? r.verb : n.verb),
    apiGroup: s(r?.group),
    resource: s(r?.resource),
    subresource: s(r?.subresource),
    name: s(r?.name),
    namespace: s(r?.namespace),
    path: s(n.path),
  };
}

const decide = (base: Obj, user: UserInfo, ctx: ReviewContext): Obj => {
  const spec = isObj(base.spec) ? base.spec : {};
  const allowed = isMaster(user) || ctx.allows(user, attributesOf(spec));
  return { ...base, status: allowed ? { allowed: true } : { allowed: false } };
};

const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const ANSWERS: Record<string, Answer> = {
  selfsubjectaccessreviews: (base, _body, _d, ctx) => decide(base, ctx.user, ctx),
  subjectaccessreviews: (base, _body, _d, ctx) => {
    const spec = isObj(base.spec) ? base.spec : {};
    const user = typeof spec.user === 'string' ? spec.user : '';
    return decide(base, { name: user, groups: strings(spec.groups) }, ctx);
  },
  // Only the administrator's rules are listed; anyone else's are left to access reviews (incomplete, as kube says
  // when an authorizer cannot enumerate).
  selfsubjectrulesreviews: (base, _body, _d, ctx) => ({
    ...base,
    status: isMaster(ctx.user)
      ? {
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          incomplete: false,
        }
      : { resourceRules: [], nonResourceRules: [], incomplete: true },
  }),
  selfsubjectreviews: (base, _body, d, ctx) => ({
    kind: d.kind,
    apiVersion: base.apiVersion,
    metadata: { creationTimestamp: nowSeconds() },
    status: { userInfo: userInfo(ctx.user) },
  }),
  tokenreviews: async (base, body, _d, ctx) => {
    const spec = isObj(body.spec) ? body.spec : {};
    const user = typeof spec.token === 'string' ? await ctx.tokenUser(spec.token) : undefined;
    return {
      ...base,
      spec: { ...spec, token: undefined },
      status: user ? { authenticated: true, user: userInfo(user) } : { authenticated: false },
    };
  },
};

/** The answer to a review of resource `d` (the created object, status filled in). */
export function review(d: ResourceDef, body: Obj, ctx: ReviewContext): Obj | Promise<Obj> {
  const answer = Object.hasOwn(ANSWERS, d.resource) ? ANSWERS[d.resource] : undefined;
  if (!answer) throw methodNotAllowed();
  const base: Obj = {
    kind: d.kind,
    apiVersion: apiVersionOf(d),
    metadata: { creationTimestamp: null },
    spec: body.spec ?? {},
  };
  return answer(base, body, d, ctx);
}
