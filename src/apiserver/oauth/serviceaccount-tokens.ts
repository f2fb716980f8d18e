// Machine clients: a bearer token that is not kapiserver's own is accepted when the orchestrator's TokenReview
// (POST /apis/authentication.k8s.io/v1/tokenreviews, with kapiserver's own cluster credentials) authenticates it as
// a service account, so in-cluster software (Prometheus scraping /metrics) needs no KubeSphere password. The account's
// rights come from RBAC as any user's: system:serviceaccount:<ns>:<name> in its groups.
// Only service accounts: a cluster user (a static token, an OIDC user) shares no name space with KubeSphere's Users,
// and one named "admin" must not become KubeSphere's admin. A ServiceAccount name has a ':', which no User has.
// The caller (oauth/service.ts) sends nothing here that is or claims to be kapiserver's own token, so those never
// reach the orchestrator. Results are cached by the token's SHA-256 (never the token): 10 s when authenticated
// (never past the token's own `exp`), 3 s when not; concurrent reviews of one token share one request. The
// orchestrator unreachable, slow or refusing kapiserver the review is an error (the filter answers 503), never a 401.
import { request } from 'undici';
import { type Clock, systemClock } from '../clock.ts';
import type { ClusterConnection } from '../cluster/connection.ts';
import type { UserInfo } from '../request.ts';
import { InvalidTokenError, unverifiedClaims } from './jwt.ts';
import { tokenKey } from './store/types.ts';

const REVIEW_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';
const POSITIVE_TTL_MS = 10_000;
const NEGATIVE_TTL_MS = 3_000;
const MAX_ENTRIES = 4096;
const TIMEOUT_MS = 5_000;
/**
 * Reviews in flight at once: every distinct JWT-shaped token a stranger sends costs the orchestrator one review, so
 * past this many the request is a 503 (retry), never a queue that grows with an attacker's rate.
 */
export const MAX_REVIEWS_IN_FLIGHT = 64;
const SERVICE_ACCOUNT =
  /^system:serviceaccount:[a-z0-9]([-a-z0-9]*[a-z0-9])?:[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/;

/** The review could not be had: the caller answers 503. The message never contains the token. */
export class TokenReviewUnavailableError extends Error {
  constructor(message: string) {
    super(`TokenReview: ${message}`);
    this.name = 'TokenReviewUnavailableError';
  }
}

interface Outcome {
  user?: UserInfo;
  /** Why the token is refused (shown to the client). */
  reason?: string;
}

const NOT_VALID = 'token is not valid';

export class ServiceAccountTokens {
  private readonly cache = new Map<string, Outcome & { until: number }>();
  private readonly inFlight = new Map<string, Promise<Outcome>>();

  constructor(
    private readonly cluster: ClusterConnection,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * The service account the token proves; throws InvalidTokenError (401) or TokenReviewUnavailableError (503).
   * `claims`: the token's unverified claims, when the caller has them already.
   */
  async authenticate(token: string, claims = unverifiedClaims(token)): Promise<UserInfo> {
    const exp = this.precheck(claims);
    const key = tokenKey(token);
    const cached = this.cache.get(key);
    let outcome: Outcome;
    if (cached && cached.until > this.clock.now()) {
      this.remember(key, cached); // now the most recently used: the oldest is evicted first
      outcome = cached;
    } else {
      outcome = await this.sharedReview(token, key, exp);
    }
    if (!outcome.user) throw new InvalidTokenError(outcome.reason ?? NOT_VALID);
    return outcome.user;
  }

  /** One review per token at a time; its outcome is cached (a failure to get one is not). */
  private sharedReview(token: string, key: string, exp: number | undefined): Promise<Outcome> {
    let pending = this.inFlight.get(key);
    if (!pending) {
      if (this.inFlight.size >= MAX_REVIEWS_IN_FLIGHT) {
        throw new TokenReviewUnavailableError('too many reviews in flight');
      }
      const asked = this.clock.now();
      pending = this.review(token)
        .then((outcome) => {
          const ttl = outcome.user ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS;
          this.remember(key, { ...outcome, until: Math.min(asked + ttl, exp ?? Number.POSITIVE_INFINITY) });
          return outcome;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** Refuses, without asking anyone, what cannot be a service-account token; returns its `exp` (ms), if any. */
  private precheck(claims: Record<string, unknown> | undefined): number | undefined {
    if (!claims) throw new InvalidTokenError('malformed token');
    const exp = claims.exp;
    if (typeof exp !== 'number') return undefined; // a legacy (Secret) token has no expiry
    if (exp * 1000 <= this.clock.now()) throw new InvalidTokenError('token expired');
    return exp * 1000;
  }

  private remember(key: string, entry: Outcome & { until: number }): void {
    this.cache.delete(key);
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, entry);
  }

  private async review(token: string): Promise<Outcome> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
    };
    const auth = this.cluster.authorization();
    if (auth) headers.authorization = auth;
    let status: number;
    let body: unknown;
    try {
      const res = await request(`${this.cluster.server}${REVIEW_PATH}`, {
        method: 'POST',
        dispatcher: this.cluster.dispatcher,
        headers,
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token },
        }),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = res.statusCode;
      // The answer may echo spec.token: it is read here and nowhere logged.
      if (status < 300) body = await res.body.json();
      else await res.body.dump();
    } catch (err) {
      throw new TokenReviewUnavailableError(`the orchestrator did not answer (${(err as Error).name})`);
    }
    if (status >= 300) {
      const hint = status === 403 ? ': kapiserver needs `create tokenreviews` (authentication.k8s.io)' : '';
      throw new TokenReviewUnavailableError(`the orchestrator answered ${status}${hint}`);
    }
    return outcomeOf(body);
  }
}

function outcomeOf(review: unknown): Outcome {
  const status = (review as { status?: { authenticated?: unknown; user?: Record<string, unknown> } })?.status;
  if (status?.authenticated !== true) return { reason: NOT_VALID };
  const u = status.user ?? {};
  const name = u.username;
  if (typeof name !== 'string' || !SERVICE_ACCOUNT.test(name)) {
    return { reason: 'the cluster authenticates this token, but only service-account tokens are accepted' };
  }
  const groups = strings(u.groups);
  if (!groups.includes('system:authenticated')) groups.push('system:authenticated');
  const user: UserInfo = { name, groups };
  if (typeof u.uid === 'string' && u.uid !== '') user.uid = u.uid;
  const extra = extraOf(u.extra);
  if (extra) user.extra = extra;
  return { user };
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

function extraOf(v: unknown): Record<string, string[]> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const entries = Object.entries(v).map(([k, list]) => [k, strings(list)] as const);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
