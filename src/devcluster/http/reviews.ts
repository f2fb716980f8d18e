// The review resources (access, rules, self-subject and token reviews): answered, never stored. The dev cluster's
// token is a cluster administrator, so every access review is allowed.
import { methodNotAllowed } from '../../k8s/status.ts';
import { isObj, nowSeconds } from '../meta.ts';
import { apiVersionOf, type ResourceDef } from '../resources.ts';
import type { Obj } from '../store.ts';

const ADMIN_USER = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

type Answer = (base: Obj, body: Obj, d: ResourceDef, token: string) => Obj;

const allowed: Answer = (base) => ({
  ...base,
  status: { allowed: true, reason: 'the dev cluster token is a cluster administrator' },
});

const ANSWERS: Record<string, Answer> = {
  selfsubjectaccessreviews: allowed,
  subjectaccessreviews: allowed,
  selfsubjectrulesreviews: (base) => ({
    ...base,
    status: {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    },
  }),
  selfsubjectreviews: (base, _body, d) => ({
    kind: d.kind,
    apiVersion: base.apiVersion,
    metadata: { creationTimestamp: nowSeconds() },
    status: { userInfo: ADMIN_USER },
  }),
  tokenreviews: (base, body, _d, token) => {
    const spec = isObj(body.spec) ? body.spec : {};
    const ok = spec.token === token;
    return {
      ...base,
      spec: { ...spec, token: undefined },
      status: ok ? { authenticated: true, user: ADMIN_USER } : { authenticated: false },
    };
  },
};

/** The answer to a review of resource `d` (the created object, status filled in). */
export function review(d: ResourceDef, body: Obj, token: string): Obj {
  const answer = Object.hasOwn(ANSWERS, d.resource) ? ANSWERS[d.resource] : undefined;
  if (!answer) throw methodNotAllowed();
  const base: Obj = {
    kind: d.kind,
    apiVersion: apiVersionOf(d),
    metadata: { creationTimestamp: null },
    spec: body.spec ?? {},
  };
  return answer(base, body, d, token);
}
