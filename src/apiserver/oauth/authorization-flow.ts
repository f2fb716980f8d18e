// The authorization-code flow (and the implicit one where a client enables it): /oauth/authorize, the sign-in page's
// POST /oauth/sign-in, and the code exchange of the token endpoint. Who the user is comes from, in order: a bearer
// token or Basic credentials on the request (KubeSphere's console sends its token), a sign-in session cookie, or the
// sign-in page (password, or an external identity provider through the seam below).
//
// The seam for identity providers (./idp/): `setSignInButtons` supplies the page's buttons, each linking to the
// provider's start URL with the pending authorization's id; when the provider's login finishes as user U, its
// callback calls `completeSignIn(request, reply, pendingId, U)`, which starts U's session and answers the client
// exactly as a password sign-in does. `setPasswordProviders` adds password providers (LDAP) to the page's form: the
// user picks the account kind, and the provider's check replaces the local password check.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticationOptions, OAuthClient } from '../../config/index.ts';
import { type Clock, systemClock } from '../clock.ts';
import type { UserObject, Users } from '../iam/users.ts';
import type { ClientInfo, PasswordAuthenticator } from './authenticator.ts';
import {
  AuthorizePageError,
  AuthorizeRedirectError,
  type AuthorizeRequest,
  parseAuthorizeRequest,
  redirectWith,
} from './authorize-request.ts';
import type { ClientRegistry } from './clients.ts';
import { AuthorizationCodes } from './codes.ts';
import { credentialGeneration } from './credentials.ts';
import { DESCRIPTIONS, invalidGrant, invalidRequest, OAuthError } from './errors.ts';
import type { Form } from './form.ts';
import { issueIdToken } from './id-token.ts';
import { oidcEndpoints } from './oidc-issuer.ts';
import {
  CSRF_COOKIE,
  cookieValue,
  PENDING_TTL_MS,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  SignInState,
  sameSecret,
  setCookie,
} from './sessions.ts';
import { errorPage, pageHeaders, type SignInButton, signInPage } from './sign-in-page.ts';
import type { SigningKeys } from './signing-keys.ts';
import type { TokenStore } from './store/index.ts';
import { TokenStoreUnavailableError } from './store/index.ts';
import type { TokenResponse, TokenService } from './tokens.ts';

/** ID tokens live as long as the client's access tokens, and never longer than this (0 = this). */
export const ID_TOKEN_MAX_TTL_MS = 24 * 3_600_000;

export type SignInButtons = (pendingId: string) => SignInButton[];

/** Seam for password identity providers (LDAP), offered by the sign-in form beside the local account. */
export interface PasswordProviders {
  names(): string[];
  /** The User `login` signs in as with provider `name`; throws an OAuthError (refused, throttled, unavailable). */
  authenticate(request: FastifyRequest, name: string, login: string, password: string): Promise<UserObject>;
}

export interface FlowDeps {
  store: TokenStore;
  users: Users;
  clients: ClientRegistry;
  passwords: PasswordAuthenticator;
  options: () => AuthenticationOptions;
  /** Set once token issuance is ready. */
  issuance: () => { tokens: TokenService; keys: SigningKeys } | undefined;
  clock?: Clock;
}

/** scheme://host[:port] this request was sent to ('' when the Host header is not a valid host). */
export function ownOrigin(request: FastifyRequest): string {
  try {
    return new URL(`${request.protocol}://${request.headers.host ?? ''}`).origin;
  } catch {
    return '';
  }
}

export function clientInfo(request: FastifyRequest): ClientInfo {
  const ua = request.headers['user-agent'];
  return {
    sourceIP: request.socket.remoteAddress ?? request.ip,
    userAgent: typeof ua === 'string' ? ua : '',
  };
}

const SIGN_IN_MESSAGES: Record<string, string> = {
  [DESCRIPTIONS.incorrectPassword]: 'Incorrect username or password.',
  [DESCRIPTIONS.notActive]: 'This account cannot sign in.',
};

/** What the page says about a refused sign-in: never more than the token endpoint would (no user enumeration). */
function signInMessage(err: OAuthError): string {
  if (err.status === 429) return 'Too many failed sign-in attempts. Try again later.';
  if (err.status >= 500) return 'The account service is unavailable. Try again shortly.';
  return SIGN_IN_MESSAGES[err.message] ?? 'Incorrect username or password.';
}

export class AuthorizationFlow {
  private buttons: SignInButtons = () => [];
  private passwordProviders: PasswordProviders = {
    names: () => [],
    authenticate: async () => {
      throw invalidRequest('the identity provider was not found');
    },
  };
  readonly state: SignInState;
  private readonly codes: AuthorizationCodes;
  private readonly clock: Clock;

  constructor(private readonly deps: FlowDeps) {
    this.state = new SignInState(deps.store, deps.users);
    this.codes = new AuthorizationCodes(deps.store);
    this.clock = deps.clock ?? systemClock;
  }

  /** Seam for identity providers: the buttons of the sign-in page, for the pending authorization `pendingId`. */
  setSignInButtons(buttons: SignInButtons): void {
    this.buttons = buttons;
  }

  /** Seam for password identity providers: offered by the sign-in form, checked by `authenticate`. */
  setPasswordProviders(providers: PasswordProviders): void {
    this.passwordProviders = providers;
  }

  /** The sign-in page for the pending authorization `pendingId`. */
  private signInPage(
    clientId: string,
    pendingId: string,
    csrf: string,
    again?: { username: string; provider: string; error: string },
  ): string {
    const providers = this.passwordProviders.names();
    return signInPage({
      clientId,
      pendingId,
      csrf,
      buttons: this.buttons(pendingId),
      passwordProviders: providers,
      // A directory, when configured, is where most people's accounts are: offered first.
      provider: again?.provider ?? providers[0] ?? '',
      username: again?.username,
      error: again?.error,
    });
  }

  /** GET and POST /oauth/authorize. `raw`: the query (GET) or the form (POST; the query is then ignored). */
  async authorize(request: FastifyRequest, reply: FastifyReply, raw: Record<string, unknown>) {
    const oauthOptions = this.deps.options().oauthOptions;
    let req: AuthorizeRequest;
    try {
      req = parseAuthorizeRequest(raw, this.deps.clients, oauthOptions.allowWildcardRedirectURIs);
    } catch (err) {
      return this.answerError(request, reply, err);
    }
    try {
      const issuance = this.ready();
      // Impersonation acts as another user for one request; it never mints that user's credentials.
      if (request.impersonator) {
        throw new AuthorizeRedirectError(
          req,
          'access_denied',
          'an impersonated request cannot be authorized',
        );
      }
      if (request.user) {
        // A kubeconfig's credential lets kubectl act; it never signs its holder in anywhere else (its own
        // revocation must not leave sessions minted from it behind).
        if (request.user.tokenKind) {
          throw new AuthorizeRedirectError(req, 'access_denied', 'a kubeconfig credential cannot sign in');
        }
        const user = this.deps.users.get(request.user.name);
        if (!user) throw new AuthorizeRedirectError(req, 'access_denied', 'the user no longer exists');
        return await this.respond(request, reply, req, user, this.nowSeconds(), issuance);
      }
      if (req.prompt !== 'login') {
        const found = await this.state.session(cookieValue(request.headers.cookie, SESSION_COOKIE));
        if (found)
          return await this.respond(request, reply, req, found.user, found.session.authTime, issuance);
      }
      if (req.prompt === 'none')
        throw new AuthorizeRedirectError(req, 'login_required', 'the user is not signed in');
      const { id, csrf } = await this.state.addPending(req);
      reply.header('set-cookie', setCookie(CSRF_COOKIE, csrf, PENDING_TTL_MS, this.secure(request)));
      return this.page(reply, 200, this.signInPage(req.clientId, id, csrf), req);
    } catch (err) {
      return this.answerError(request, reply, err);
    }
  }

  /** POST /oauth/sign-in: the sign-in page's form. */
  async signIn(request: FastifyRequest, reply: FastifyReply, form: Form) {
    try {
      if (!this.sameOrigin(request)) {
        throw new AuthorizePageError(403, 'access_denied', 'the sign-in form was sent from another site');
      }
      const pendingId = form.get('pending') ?? '';
      const pending = await this.state.pending(pendingId);
      if (!pending) {
        throw new AuthorizePageError(
          400,
          'invalid_request',
          'this sign-in form has expired; start again from the application',
        );
      }
      const csrf = form.get('csrf') ?? '';
      if (
        !sameSecret(csrf, pending.csrf) ||
        !sameSecret(csrf, cookieValue(request.headers.cookie, CSRF_COOKIE))
      ) {
        throw new AuthorizePageError(
          403,
          'access_denied',
          'the sign-in form is not valid for this browser; start again from the application',
        );
      }
      const username = form.get('username') ?? '';
      const password = form.get('password') ?? '';
      const provider = form.get('provider') ?? '';
      let user: UserObject;
      try {
        if (provider && !this.passwordProviders.names().includes(provider)) {
          throw invalidRequest('the identity provider was not found');
        }
        // The local account: the password grant's own check (lockout, per-source throttling, login records); a
        // provider: the same code as POST /oauth/login/{idp}.
        user = provider
          ? await this.passwordProviders.authenticate(request, provider, username, password)
          : await this.deps.passwords.authenticate(username, password, clientInfo(request));
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
        const status = err.status === 429 || err.status >= 500 ? err.status : 400;
        const html = this.signInPage(pending.request.clientId, pendingId, csrf, {
          username,
          provider,
          error: signInMessage(err),
        });
        return this.page(reply, status, html, pending.request);
      }
      return await this.completeSignIn(request, reply, pendingId, user);
    } catch (err) {
      return this.answerError(request, reply, err);
    }
  }

  /**
   * Seam for identity providers: `user` has signed in for the pending authorization `pendingId`. Starts the user's
   * sign-in session and answers the client (302 to its redirect URI), or an error page when the pending
   * authorization is unknown or expired. Each pending authorization completes once.
   */
  async completeSignIn(request: FastifyRequest, reply: FastifyReply, pendingId: string, user: UserObject) {
    try {
      const issuance = this.ready();
      const pending = await this.state.takePending(pendingId);
      if (!pending) {
        throw new AuthorizePageError(
          400,
          'invalid_request',
          'this sign-in has expired; start again from the application',
        );
      }
      const now = this.clock.now();
      const session = await this.state.createSession(user, now);
      const secure = this.secure(request);
      reply.header('set-cookie', [
        setCookie(SESSION_COOKIE, session, SESSION_TTL_MS, secure),
        setCookie(CSRF_COOKIE, '', 0, secure),
      ]);
      return await this.respond(request, reply, pending.request, user, Math.floor(now / 1000), issuance);
    } catch (err) {
      return this.answerError(request, reply, err);
    }
  }

  /** Ends the browser's sign-in session, if any (logout); returns its user's name. */
  async endSession(request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
    const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (!id) return undefined;
    const found = await this.state.session(id);
    await this.state.endSession(id);
    reply.header('set-cookie', setCookie(SESSION_COOKIE, '', 0, this.secure(request)));
    return found?.session.username;
  }

  /** The token endpoint's `authorization_code` grant (and KubeSphere's `code`). */
  async exchange(form: Form, client: OAuthClient): Promise<TokenResponse & { id_token?: string }> {
    const code = form.get('code') ?? '';
    if (!code) throw invalidRequest('code is required');
    const { tokens, keys } = this.ready();
    const grant = await this.codes.redeem(code, {
      clientId: client.name,
      redirectUri: form.get('redirect_uri'),
      codeVerifier: form.get('code_verifier'),
    });
    const user = this.deps.users.get(grant.username);
    if (!user || user.metadata.uid !== grant.uid || credentialGeneration(user) !== grant.cred) {
      throw invalidGrant("invalid authorization code: the user's credentials have changed; sign in again");
    }
    if (user.status?.state === 'Disabled') throw invalidGrant(DESCRIPTIONS.notActive);
    const body: TokenResponse & { id_token?: string } = await tokens.issue(user, client);
    if (grant.scopes.includes('openid')) {
      body.id_token = await issueIdToken(
        keys,
        { username: user.metadata.name, email: user.spec?.email },
        {
          issuer: grant.issuer,
          clientId: client.name,
          nonce: grant.nonce,
          authTime: grant.authTime,
          ttlMs: this.idTokenTtl(client),
        },
        this.clock.now(),
      );
    }
    return body;
  }

  idTokenTtl(client: OAuthClient): number {
    const access = client.accessTokenMaxAge ?? this.deps.options().oauthOptions.accessTokenMaxAge;
    return access > 0 ? Math.min(access, ID_TOKEN_MAX_TTL_MS) : ID_TOKEN_MAX_TTL_MS;
  }

  /** 302 to the client with a code (code flow) or an access token (implicit flow, in the fragment). */
  private async respond(
    request: FastifyRequest,
    reply: FastifyReply,
    req: AuthorizeRequest,
    user: UserObject,
    authTime: number,
    issuance: { tokens: TokenService },
  ) {
    const client = this.deps.clients.get(req.clientId);
    if (!client) throw new AuthorizePageError(400, 'invalid_client', 'the OAuth client was not found');
    let params: Record<string, string>;
    if (req.responseType === 'token') {
      const t = await issuance.tokens.issue(user, client);
      // No refresh token in a URL fragment (RFC 6749 4.2.2).
      params = { access_token: t.access_token, token_type: t.token_type, expires_in: String(t.expires_in) };
    } else {
      const code = await this.codes.issue({
        username: user.metadata.name,
        uid: user.metadata.uid,
        cred: credentialGeneration(user),
        clientId: client.name,
        redirectUri: req.redirectUri,
        redirectUriGiven: req.redirectUriGiven,
        codeChallenge: req.codeChallenge,
        nonce: req.nonce,
        scopes: req.scopes,
        authTime,
        issuer: oidcEndpoints(this.deps.options().oauthOptions, ownOrigin(request)).issuer,
      });
      params = { code };
    }
    return reply
      .code(302)
      .header('cache-control', 'no-store')
      .header('location', redirectWith(req, params))
      .send();
  }

  private ready(): { tokens: TokenService; keys: SigningKeys } {
    const issuance = this.deps.issuance();
    if (!issuance) {
      throw new OAuthError(503, 'temporarily_unavailable', 'token issuance is starting; retry shortly', {
        'retry-after': '2',
      });
    }
    return issuance;
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  /**
   * The origins kapiserver's pages are served from: the one this request reached, and the configured external one
   * (behind a TLS-terminating proxy the browser's origin is https://ks.example.com while the request arrives as http).
   */
  private ownOrigins(request: FastifyRequest): string[] {
    const own = ownOrigin(request);
    const base = oidcEndpoints(this.deps.options().oauthOptions, own).base;
    return URL.canParse(base) ? [own, new URL(base).origin] : [own];
  }

  /** Cookies are Secure when the browser talks HTTPS: this request, or the configured external URL. */
  private secure(request: FastifyRequest): boolean {
    return request.protocol === 'https' || this.ownOrigins(request).some((o) => o.startsWith('https:'));
  }

  /** A form POST must come from kapiserver's own page: Origin (or, without it, Referer) of one of its origins. */
  private sameOrigin(request: FastifyRequest): boolean {
    const origins = this.ownOrigins(request);
    const origin = request.headers.origin;
    if (typeof origin === 'string') return origins.includes(origin);
    const referer = request.headers.referer;
    return typeof referer === 'string' && URL.canParse(referer) && origins.includes(new URL(referer).origin);
  }

  private page(reply: FastifyReply, status: number, html: string, req?: AuthorizeRequest) {
    const target = req && URL.canParse(req.redirectUri) ? new URL(req.redirectUri).origin : undefined;
    return reply
      .code(status)
      .headers(pageHeaders(target && target !== 'null' ? target : undefined))
      .send(html);
  }

  /** Errors before the redirect URI is trusted: a page for browsers, else JSON; after: a redirect to the client. */
  private answerError(request: FastifyRequest, reply: FastifyReply, err: unknown) {
    if (err instanceof AuthorizeRedirectError) {
      const location = redirectWith(err.request, { error: err.error, error_description: err.message });
      return reply.code(302).header('cache-control', 'no-store').header('location', location).send();
    }
    let status: number;
    let error: string;
    let description: string;
    if (err instanceof AuthorizePageError || err instanceof OAuthError) {
      status = err.status;
      error = err.error;
      description = err.message;
      if (err instanceof OAuthError) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    } else if (err instanceof TokenStoreUnavailableError) {
      [status, error, description] = [
        503,
        'temporarily_unavailable',
        'the token store is unavailable; retry shortly',
      ];
      reply.header('retry-after', '5');
    } else {
      throw err;
    }
    const accept = request.headers.accept ?? '';
    if (accept.includes('text/html')) return this.page(reply, status, errorPage(error, description));
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .type('application/json')
      .send(JSON.stringify({ error, error_description: description }));
  }
}
