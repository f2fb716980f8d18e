// RBAC decisions remembered per (user, groups, attributes), so the many requests a client repeats (a console polling
// the same lists, kubectl get -w) skip the walk over bindings and rules. A decision depends only on the user's name
// and groups, the attributes, and the roles, bindings and namespaces the resolver reads: the cache is dropped whenever
// any of those change (the listers' revision), so a granted or revoked permission applies from the next request, as
// without the cache. Bounded: the oldest decision is forgotten first.
import type { UserInfo } from '../request.ts';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from './authorizer.ts';

const MAX_DECISIONS = 10_000;

/** Each part length-prefixed: no two different inputs give one key, whatever characters a part holds. */
function keyOf(user: UserInfo, a: AuthorizationAttributes): string {
  let key = `${user.name.length}:${user.name}${user.groups.length}`;
  for (const g of user.groups) key += `:${g.length}:${g}`;
  const parts = [a.verb, a.apiGroup, a.resource, a.subresource, a.name, a.namespace, a.path, a.scope.name];
  for (const p of parts) key += `|${p.length}:${p}`;
  return `${key}|${a.scope.kind}|${a.isResourceRequest ? 1 : 0}${a.isKubernetesRequest ? 1 : 0}`;
}

export class CachingAuthorizer implements Authorizer {
  private readonly decisions = new Map<string, AuthorizationDecision>();
  private revision = -1;

  constructor(
    private readonly inner: Authorizer,
    /** Changes whenever anything a decision depends on does (RuleResolver.revision). */
    private readonly currentRevision: () => number,
    private readonly max = MAX_DECISIONS,
  ) {}

  async authorize(user: UserInfo, attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    const revision = this.currentRevision();
    if (revision !== this.revision) {
      this.decisions.clear();
      this.revision = revision;
    }
    const key = keyOf(user, attrs);
    const known = this.decisions.get(key);
    if (known) return known;
    const decision = await this.inner.authorize(user, attrs);
    // Kept only when nothing changed while it was made (the resolver may wait for its informers to sync).
    if (this.currentRevision() === revision && this.revision === revision) {
      if (this.decisions.size >= this.max)
        this.decisions.delete(this.decisions.keys().next().value as string);
      this.decisions.set(key, decision);
    }
    return decision;
  }
}
