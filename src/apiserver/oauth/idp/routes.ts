// The identity-provider endpoints, registered inside the /oauth scope (its form parser and RFC 6749 error handler):
//   POST /oauth/login/{idp}     password providers (LDAP): username and password, answered as the password grant;
//   GET  /oauth/login/{idp}     redirect providers (OIDC, GitHub): 302 to the provider (kapiserver only);
//   GET  /oauth/callback/{idp}  the provider's redirect back: code exchanged, tokens answered (KubeSphere's shape).
// Tokens carry the global lifetimes (no client is involved, as in KubeSphere); each sign-in writes a LoginRecord of
// type Token naming the provider.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { OAuthClient } from '../../../config/index.ts';
import { type Clock, systemClock } from '../../clock.ts';
import type { ServerContext } from '../../context.ts';
import { kubeTime, type UserObject } from '../../iam/users.ts';
import { clientInfo } from '../authorization-flow.ts';
import { invalidRequest, OAuthError } from '../errors.ts';
import type { OAuthService } from '../service.ts';
import type { TokenResponse } from '../tokens.ts';
import { PasswordProviderLogin } from './password-login.ts';
import { PENDING_LOGIN_TTL_MS, PendingLogins, STATE_COOKIE } from './pending-logins.ts';
import type { IdentityProvider, IdentityProviderRegistry, RedirectIdentityProvider } from './registry.ts';
import { callbackSchema, passwordLoginSchema, redirectLoginSchema } from './schemas.ts';
import { ProviderLoginThrottle } from './throttle.ts';
import { IdentityMapper } from './user-mapping.ts';

/** Ids of pending authorizations are short random strings; anything long is not one. */
const MAX_ID_LENGTH = 256;
/** No client of its own: TokenService.issue then applies the global lifetimes (it reads only the lifetimes). */
const NO_CLIENT = Object.freeze({ name: '' }) as OAuthClient;

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

function cookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The callback path of a provider: the only path the state cookie is sent to. */
const callbackPath = (name: string) => `/oauth/callback/${encodeURIComponent(name)}`;

function stateCookie(request: FastifyRequest, provider: string, value: string, maxAgeMs: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${STATE_COOKIE}=${value}; Path=${callbackPath(provider)}; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; SameSite=Lax${secure}`;
}

export function registerIdentityProviderRoutes(
  scope: FastifyInstance,
  ctx: ServerContext,
  oauth: OAuthService,
  clock: Clock = systemClock,
): void {
  const logger: Logger = ctx.logger.child({ component: 'identity-providers' });
  const registry: IdentityProviderRegistry = oauth.identityProviders;
  const mapper = new IdentityMapper(oauth.users, ctx.cache, logger);
  const pending = new PendingLogins(oauth.store);
  const passwordLogin = new PasswordProviderLogin({
    throttle: new ProviderLoginThrottle(oauth.store, oauth.options, clock),
    mapper,
    users: oauth.users,
    recorder: oauth.recorder,
  });

  function providerOf(request: FastifyRequest): IdentityProvider {
    const { idp } = request.params as { idp: string };
    const provider = registry.get(idp);
    if (!provider) throw invalidRequest('the identity provider was not found', 404);
    return provider;
  }

  function tokensOrUnavailable() {
    if (!oauth.isReady() || !oauth.tokens) {
      throw new OAuthError(503, 'temporarily_unavailable', 'token issuance is starting; retry shortly', {
        'retry-after': '2',
      });
    }
    return oauth.tokens;
  }

  /** The operator learns why a provider failed; the client only hears the RFC 6749 error. */
  function logged(provider: string, err: unknown): unknown {
    const cause = (err as Error).cause as Error | undefined;
    if (err instanceof OAuthError && err.status >= 500) {
      logger.warn({ provider, err: cause?.message ?? err.message }, 'identity provider sign-in failed');
    } else if (!(err instanceof OAuthError)) {
      logger.error({ provider, err: (err as Error).message }, 'identity provider sign-in failed');
    }
    return err;
  }

  function recordSignIn(request: FastifyRequest, provider: IdentityProvider, user: UserObject): void {
    oauth.recorder.record(
      user,
      { success: true, reason: '', type: 'Token', provider: provider.name, ...clientInfo(request) },
      () => oauth.users.patchStatus(user.metadata.name, { lastLoginTime: kubeTime() }),
    );
  }

  /** KubeSphere's answer: the user's token pair. */
  async function issueTokens(
    request: FastifyRequest,
    provider: IdentityProvider,
    user: UserObject,
  ): Promise<TokenResponse> {
    const body = await tokensOrUnavailable().issue(user, NO_CLIENT);
    recordSignIn(request, provider, user);
    ctx.metrics.tokenIssued('identity_provider', 'success');
    return body;
  }

  // The sign-in page offers each redirect provider; its button carries the pending authorization to continue.
  oauth.flow.setSignInButtons((pendingId) =>
    registry
      .list()
      .filter((p) => p.kind === 'redirect')
      .map((p) => ({
        name: p.name,
        href: `/oauth/login/${encodeURIComponent(p.name)}?pending=${encodeURIComponent(pendingId)}`,
      })),
  );

  // The sign-in page's form offers each password provider beside the local account.
  oauth.flow.setPasswordProviders({
    names: () =>
      registry
        .list()
        .filter((p) => p.kind === 'password')
        .map((p) => p.name),
    async authenticate(request, name, login, password) {
      const provider = registry.get(name);
      if (provider?.kind !== 'password') throw invalidRequest('the identity provider was not found');
      try {
        const user = await passwordLogin.authenticate(provider, login, password, clientInfo(request));
        recordSignIn(request, provider, user);
        return user;
      } catch (err) {
        throw logged(provider.name, err);
      }
    },
  });

  scope.post(
    '/oauth/login/:idp',
    { schema: passwordLoginSchema, attachValidation: true },
    async (request, reply) => {
      noStore(reply);
      const provider = providerOf(request);
      if (provider.kind !== 'password') {
        throw invalidRequest(
          `the identity provider "${provider.name}" signs in by redirect: GET this URL instead`,
        );
      }
      tokensOrUnavailable();
      const form =
        request.body instanceof Map ? (request.body as Map<string, string>) : new Map<string, string>();
      try {
        const user = await passwordLogin.authenticate(
          provider,
          form.get('username') ?? '',
          form.get('password') ?? '',
          clientInfo(request),
        );
        return await issueTokens(request, provider, user);
      } catch (err) {
        throw logged(provider.name, err);
      }
    },
  );

  scope.get('/oauth/login/:idp', { schema: redirectLoginSchema }, async (request, reply) => {
    noStore(reply);
    const provider = providerOf(request);
    if (provider.kind !== 'redirect') {
      throw invalidRequest(
        `the identity provider "${provider.name}" takes a password: POST username and password`,
      );
    }
    const { pending: authorization } = stringQuery(request.query);
    if (authorization !== undefined && (authorization === '' || authorization.length > MAX_ID_LENGTH)) {
      throw invalidRequest('pending is not a pending authorization');
    }
    const start = await pending.begin(provider.name, authorization);
    let location: string;
    try {
      location = await (provider as RedirectIdentityProvider).authorizeURL(start);
    } catch (err) {
      throw logged(provider.name, err);
    }
    return reply
      .code(302)
      .header('set-cookie', stateCookie(request, provider.name, start.state, PENDING_LOGIN_TTL_MS))
      .header('location', location)
      .send();
  });

  scope.get('/oauth/callback/:idp', { schema: callbackSchema }, async (request, reply) => {
    noStore(reply);
    const provider = providerOf(request);
    if (provider.kind !== 'redirect')
      throw invalidRequest(`the identity provider "${provider.name}" has no callback`);
    const query = stringQuery(request.query);
    // The state cookie has done its job whatever happens next.
    reply.header('set-cookie', stateCookie(request, provider.name, '', 0));
    try {
      const login = await pending.take(provider.name, query.state ?? '', cookie(request, STATE_COOKIE));
      const identity = await provider.finish({ query, nonce: login.nonce, codeVerifier: login.codeVerifier });
      const user = await mapper.userFor(provider.settings, identity);
      if (login.authorization === undefined) return await issueTokens(request, provider, user);
      recordSignIn(request, provider, user);
      return await oauth.flow.completeSignIn(request, reply, login.authorization, user);
    } catch (err) {
      throw logged(provider.name, err);
    }
  });
}

/** The query's single-valued string parameters (a repeated one is dropped: it cannot be the provider's). */
function stringQuery(q: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((q ?? {}) as Record<string, unknown>))
    if (typeof v === 'string') out[k] = v;
  return out;
}
