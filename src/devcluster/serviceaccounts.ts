// Service-account tokens for the dev cluster, so software that runs "in cluster" (kapiserver's deploy/ manifests) can
// be tested with the rights its RBAC grants and no more:
//  - TokenRequest (`POST .../serviceaccounts/{name}/token`, what `kubectl create token` sends) issues an HS256 JWT
//    shaped like Kubernetes' bound service-account tokens;
//  - a bearer token that verifies (signature, expiry, the ServiceAccount still exists with the same uid) is the user
//    system:serviceaccount:<ns>:<name> in groups system:serviceaccounts, system:serviceaccounts:<ns>,
//    system:authenticated;
//  - its requests are authorized by Kubernetes RBAC over the stored Roles, ClusterRoles and bindings (rules evaluated
//    by src/k8s/rbac.ts); discovery, OpenAPI and /version are open to every authenticated caller (system:discovery).
// The dev cluster's own token stays the all-powerful administrator.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseRoleRef,
  parseRules,
  parseSubjects,
  type RbacAttributes,
  type RbacUser,
  rulesAllow,
  subjectMatches,
} from '../k8s/rbac.ts';
import { badRequest, forbidden } from '../k8s/status.ts';
import type { Rest } from './rest.ts';
import type { Obj } from './store.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const DEFAULT_EXPIRATION_S = 3600;
const MIN_EXPIRATION_S = 600;
const MAX_EXPIRATION_S = 48 * 3600;

/** What is being asked, in the terms of the dev cluster's URL parsing. */
export interface ResourceTarget {
  group: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  legacyWatch: boolean;
}

const b64 = (v: Buffer | string) => Buffer.from(v).toString('base64url');

function loadOrCreateKey(dir: string): Buffer {
  const file = join(dir, 'sa-signing-key');
  if (existsSync(file)) {
    const k = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    if (k.length >= 32) return k;
  }
  const key = randomBytes(32);
  writeFileSync(file, `${b64(key)}\n`, { mode: 0o600 });
  return key;
}

/** Kubernetes verb of a resource request. */
export function verbOf(method: string, t: ResourceTarget, q: URLSearchParams): string {
  const watch = t.legacyWatch || q.get('watch') === 'true' || q.get('watch') === '1';
  switch (method) {
    case 'GET':
    case 'HEAD':
      return t.name ? (watch ? 'watch' : 'get') : watch ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return t.name ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

export class ServiceAccounts {
  private readonly key: Buffer;

  constructor(
    dir: string,
    private readonly rest: Rest,
  ) {
    this.key = loadOrCreateKey(dir);
  }

  private sign(payload: Obj): string {
    const head = `${b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64(JSON.stringify(payload))}`;
    return `${head}.${b64(createHmac('sha256', this.key).update(head).digest())}`;
  }

  private def(group: string, resource: string) {
    const d = this.rest.registry.find(group, 'v1', resource);
    if (!d) throw new Error(`dev cluster has no ${group}/${resource}`);
    return d;
  }

  /** Answers a TokenRequest for the ServiceAccount `namespace/name` (which must exist). */
  issue(namespace: string, name: string, body: unknown): Obj {
    const sa = this.rest.get(this.def('', 'serviceaccounts'), namespace, name).obj;
    const spec = ((body as Obj | undefined)?.spec ?? {}) as Obj;
    const requested =
      spec.expirationSeconds === undefined ? DEFAULT_EXPIRATION_S : Number(spec.expirationSeconds);
    if (!Number.isInteger(requested) || requested < MIN_EXPIRATION_S) {
      throw badRequest(
        `spec.expirationSeconds: may not specify a duration less than ${MIN_EXPIRATION_S} seconds`,
      );
    }
    const seconds = Math.min(requested, MAX_EXPIRATION_S);
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences : [ISSUER];
    const now = Math.floor(Date.now() / 1000);
    const uid = String((sa.metadata as Obj).uid ?? '');
    const token = this.sign({
      iss: ISSUER,
      sub: `system:serviceaccount:${namespace}:${name}`,
      aud: audiences,
      iat: now,
      nbf: now,
      exp: now + seconds,
      'kubernetes.io': { namespace, serviceaccount: { name, uid } },
    });
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {
        name,
        namespace,
        creationTimestamp: new Date(now * 1000).toISOString().replace('.000', ''),
      },
      spec: { audiences, expirationSeconds: seconds, boundObjectRef: null },
      status: {
        token,
        expirationTimestamp: new Date((now + seconds) * 1000).toISOString().replace('.000', ''),
      },
    };
  }

  /** The service account a bearer token proves (its uid is the ServiceAccount's, as in Kubernetes), or undefined. */
  authenticate(token: string): (RbacUser & { uid: string }) | undefined {
    const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
    if (!m) return undefined;
    const expected = createHmac('sha256', this.key).update(`${m[1]}.${m[2]}`).digest();
    const got = Buffer.from(m[3], 'base64url');
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) return undefined;
    let claims: Obj;
    try {
      claims = JSON.parse(Buffer.from(m[2], 'base64url').toString('utf8')) as Obj;
    } catch {
      return undefined;
    }
    if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) return undefined;
    const k8s = claims['kubernetes.io'] as {
      namespace?: string;
      serviceaccount?: { name?: string; uid?: string };
    };
    const ns = k8s?.namespace;
    const name = k8s?.serviceaccount?.name;
    if (!ns || !name) return undefined;
    let uid: string;
    try {
      const sa = this.rest.get(this.def('', 'serviceaccounts'), ns, name).obj;
      uid = String((sa.metadata as Obj).uid ?? '');
      if (uid !== k8s.serviceaccount?.uid) return undefined; // deleted and re-created
    } catch {
      return undefined;
    }
    return {
      name: `system:serviceaccount:${ns}:${name}`,
      uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
    };
  }

  /** Throws a 403 Status unless RBAC grants `user` the request. */
  authorize(user: RbacUser, method: string, t: ResourceTarget, q: URLSearchParams): void {
    // A namespace object belongs to itself: a RoleBinding in namespace X can grant `get namespaces/X`.
    const namespace = t.resource === 'namespaces' && t.name ? t.name : (t.namespace ?? '');
    const attrs: RbacAttributes = {
      isResourceRequest: true,
      verb: verbOf(method, t, q),
      apiGroup: t.group,
      resource: t.resource,
      subresource: t.subresource ?? '',
      name: t.name ?? '',
      namespace,
      path: '',
    };
    if (this.allows(user, attrs)) return;
    const what = `${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ''}`;
    const scope = namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope';
    throw forbidden(
      `${what}${attrs.name ? ` "${attrs.name}"` : ''} is forbidden: User "${user.name}" cannot ${attrs.verb} resource "${attrs.resource}" in API group "${attrs.apiGroup}"${scope}`,
    );
  }

  /** Whether the stored RBAC objects grant `user` the request `attrs`. */
  allows(user: RbacUser, attrs: RbacAttributes): boolean {
    const rbac = 'rbac.authorization.k8s.io';
    const roleRules = (kind: string, name: string, ns: string) => {
      try {
        const obj =
          kind === 'ClusterRole'
            ? this.rest.get(this.def(rbac, 'clusterroles'), '', name).obj
            : this.rest.get(this.def(rbac, 'roles'), ns, name).obj;
        return parseRules(obj.rules);
      } catch {
        return [];
      }
    };
    const grants = (binding: Obj, ns: string) => {
      const ref = parseRoleRef(binding.roleRef);
      if (!ref || !parseSubjects(binding.subjects).some((s) => subjectMatches(s, user, ns))) return false;
      return rulesAllow(attrs, roleRules(ref.kind, ref.name, ns));
    };
    for (const e of this.rest.list(this.def(rbac, 'clusterrolebindings'), undefined, {}).entries) {
      if (grants(e.obj, '')) return true;
    }
    if (attrs.namespace) {
      for (const e of this.rest.list(this.def(rbac, 'rolebindings'), attrs.namespace, {}).entries) {
        if (grants(e.obj, attrs.namespace)) return true;
      }
    }
    return false;
  }
}
