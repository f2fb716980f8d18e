// /oauth/* endpoints. Errors are RFC 6749 JSON (`{"error", "error_description"}`) with KubeSphere's status codes;
// a failed bearer check on an authenticated /oauth endpoint is still a Kubernetes Status (from the filter). Route
// schemas (./schemas.ts) document every endpoint and validate the token and revocation forms.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { StatusError, unauthorized } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { typeboxValidatorCompiler } from '../validation.ts';
import { clientInfo, ownOrigin } from './authorization-flow.ts';
import {
  DESCRIPTIONS,
  invalidClient,
  invalidRequest,
  OAuthError,
  oauthErrorFromValidation,
  serverError,
  temporarilyUnavailable,
  unsupportedGrantType,
} from './errors.ts';
import { type Form, formFields, parseBasicAuth, parseForm } from './form.ts';
import { registerIdentityProviderRoutes } from './idp/routes.ts';
import { logoutRedirectAllowed } from './logout-redirect.ts';
import { discoveryDocument, oidcEndpoints } from './oidc-issuer.ts';
import {
  authorizeSchema,
  discoverySchema,
  keysSchema,
  logoutSchema,
  revokeSchema,
  signInSchema,
  tokenSchema,
  userInfoSchema,
} from './schemas.ts';
import type { OAuthService } from './service.ts';
import { TokenStoreUnavailableError } from './store/index.ts';

/** Token requests are a few hundred bytes; anything this large is not one. */
export const OAUTH_BODY_LIMIT = 64 * 1024;

const FORM_TYPE = 'application/x-www-form-urlencoded';

const validateForm = typeboxValidatorCompiler(formFields);
/**
 * Forms are validated; the logout query is documented only: its handler reads it as before (a repeated parameter is
 * no redirect), which a schema of single strings would refuse.
 */
const validatorCompiler: typeof validateForm = (route) =>
  route.httpPart === 'querystring' ? () => true : validateForm(route);

/** Answers are serialised as they are: a response schema documents, it never drops a field. */
const jsonSerializer = () => (data: unknown) => JSON.stringify(data);

/**
 * Schema failures of a form are attached to the request, not answered at once: RFC 6749's order (KubeSphere's, see
 * the token handler) authenticates the client first, so a malformed form from an unknown client is invalid_client.
 */
const formRoute = (schema: FastifySchema) => ({
  bodyLimit: OAUTH_BODY_LIMIT,
  schema,
  attachValidation: true,
});

function throwIfInvalid(request: FastifyRequest): void {
  if (request.validationError) throw request.validationError;
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/** Fastify's own client errors (413, 415, 400) in RFC 6749 shape; StatusErrors (authentication) as Status. */
function oauthErrorHandler(ctx: ServerContext) {
  return (err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    noStore(reply);
    if (err instanceof StatusError) return reply.code(err.code).type('application/json').send(err.toStatus());
    let e: OAuthError;
    if (err instanceof OAuthError) e = err;
    else if (err instanceof TokenStoreUnavailableError) {
      e = temporarilyUnavailable('the token store is unavailable; retry shortly');
    } else {
      const code = (err as FastifyError).statusCode ?? 500;
      if (code === 413) e = invalidRequest(`the request body is larger than ${OAUTH_BODY_LIMIT} bytes`, 413);
      else if (code === 415) e = invalidRequest(`the request body must be ${FORM_TYPE}`, 415);
      else if (code >= 400 && code < 500) e = invalidRequest('malformed request', code);
      else {
        ctx.logger.error({ err: err.message, path: request.requestInfo?.path }, 'oauth request failed');
        e = serverError();
      }
    }
    reply.code(e.status).type('application/json');
    for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
    return reply.send(e.toBody());
  };
}

function formOf(request: FastifyRequest): Form {
  if (request.body === undefined || request.body === null) return new Map();
  if (request.body instanceof Map) return request.body as Form;
  throw invalidRequest(`the request body must be ${FORM_TYPE}`, 415);
}

function ensureReady(oauth: OAuthService) {
  if (!oauth.isReady() || !oauth.tokens) {
    throw new OAuthError(503, 'temporarily_unavailable', 'token issuance is starting; retry shortly', {
      'retry-after': '2',
    });
  }
  return oauth.tokens;
}

const isCodeGrant = (grant: string) => grant === 'authorization_code' || grant === 'code';

/**
 * Client authentication: HTTP Basic (RFC 6749 2.3.1) or client_id/client_secret in the body, never both. With
 * `allowPublic` (the code grant), a client configured without a secret is identified by its client_id alone: its
 * codes are bound to a PKCE challenge, which stands in for the secret (RFC 7636).
 */
function authenticateClient(oauth: OAuthService, request: FastifyRequest, form: Form, allowPublic = false) {
  const id = form.get('client_id') ?? '';
  const header = request.headers.authorization;
  if (allowPublic && id && header === undefined && !form.has('client_secret')) {
    const client = oauth.clients.get(id);
    if (client?.secret === '') return client;
  }
  return authenticateConfidentialClient(oauth, request, form);
}

function authenticateConfidentialClient(oauth: OAuthService, request: FastifyRequest, form: Form) {
  const header = request.headers.authorization;
  const basic = typeof header === 'string' && /^basic\s/i.test(header) ? parseBasicAuth(header) : undefined;
  const challenge = basic ? { 'www-authenticate': 'Basic realm="kapiserver"' } : undefined;
  if (typeof header === 'string' && /^basic\s/i.test(header) && !basic) {
    throw invalidClient('malformed HTTP Basic client credentials', {
      'www-authenticate': 'Basic realm="kapiserver"',
    });
  }
  if (basic && form.has('client_secret')) {
    throw invalidRequest('client credentials were sent both in the Authorization header and in the body');
  }
  const id = basic?.id ?? form.get('client_id') ?? '';
  const secret = basic?.secret ?? form.get('client_secret') ?? '';
  if (!id || !secret) throw invalidClient('client_id and client_secret are required', challenge);
  const client = oauth.clients.authenticate(id, secret);
  if (!client) throw invalidClient(DESCRIPTIONS.invalidClientCredential, challenge);
  return client;
}

export function registerOAuthRoutes(app: FastifyInstance, ctx: ServerContext, oauth: OAuthService): void {
  void app.register(async (scope) => {
    scope.setErrorHandler(oauthErrorHandler(ctx));
    scope.setValidatorCompiler(validatorCompiler);
    scope.setSchemaErrorFormatter(oauthErrorFromValidation);
    scope.setSerializerCompiler(jsonSerializer);
    // Only forms are accepted here: any other media type is refused before its body is parsed.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { bodyLimit: OAUTH_BODY_LIMIT }, (_req, _payload, done) => {
      done(invalidRequest(`the request body must be ${FORM_TYPE}`, 415), undefined);
    });
    scope.addContentTypeParser(
      FORM_TYPE,
      { parseAs: 'buffer', bodyLimit: OAUTH_BODY_LIMIT },
      (_req, body, done) => {
        try {
          done(null, parseForm(body as Buffer));
        } catch (err) {
          done(err as Error, undefined);
        }
      },
    );

    scope.post('/oauth/token', formRoute(tokenSchema), async (request, reply) => {
      noStore(reply);
      const form = formOf(request);
      let grant = form.get('grant_type') ?? '';
      try {
        const client = authenticateClient(oauth, request, form, isCodeGrant(grant));
        // KubeSphere reads a missing grant_type as "", which no grant matches: unsupported_grant_type.
        if (!grant) throw new OAuthError(400, 'unsupported_grant_type', 'grant_type is required');
        throwIfInvalid(request);
        const tokens = ensureReady(oauth);
        if (grant === 'password') {
          const user = await oauth.passwords.authenticate(
            form.get('username') ?? '',
            form.get('password') ?? '',
            clientInfo(request),
          );
          const body = await tokens.issue(user, client);
          ctx.metrics.tokenIssued(grant, 'success');
          return body;
        }
        if (isCodeGrant(grant)) {
          const body = await oauth.flow.exchange(form, client);
          ctx.metrics.tokenIssued(grant, 'success');
          return body;
        }
        if (grant === 'refresh_token') {
          const refresh = form.get('refresh_token') ?? '';
          // Required by this grant only, and after the start-up check: not the schema's to refuse.
          if (!refresh) throw invalidRequest('refresh_token is required');
          const body = await tokens.refresh(refresh, client);
          ctx.metrics.tokenIssued(grant, 'success');
          return body;
        }
        throw unsupportedGrantType(grant);
      } catch (err) {
        if (!grant) grant = 'none';
        ctx.metrics.tokenIssued(grant, 'failure', err instanceof OAuthError ? err.error : 'server_error');
        throw err;
      }
    });

    // RFC 7009: the client authenticates; the answer is 200 whether or not the token was valid.
    scope.post('/oauth/revoke', formRoute(revokeSchema), async (request, reply) => {
      noStore(reply);
      const form = formOf(request);
      authenticateClient(oauth, request, form);
      throwIfInvalid(request); // a missing or empty token
      await ensureReady(oauth).revoke(form.get('token')!);
      return reply.code(200).type('application/json').send('{}');
    });

    // KubeSphere: revokes every token of the caller (none without credentials); 302 to post_logout_redirect_uri
    // (with state) or 200 `{"message":"success"}`. The redirect must be registered (./logout-redirect.ts): an
    // unregistered one is refused before anything is revoked.
    const logout = async (request: FastifyRequest, reply: FastifyReply) => {
      noStore(reply);
      const user = request.user;
      const q = request.query as Record<string, unknown>;
      const redirect = typeof q.post_logout_redirect_uri === 'string' ? q.post_logout_redirect_uri : '';
      let target: URL | undefined;
      if (redirect) {
        try {
          target = new URL(redirect);
        } catch {
          throw invalidRequest('post_logout_redirect_uri is not a valid URL');
        }
        if (
          !logoutRedirectAllowed(redirect, target, redirectClients(oauth, q.client_id), ownOrigin(request))
        ) {
          throw invalidRequest(
            'post_logout_redirect_uri is not registered: it must equal one of the redirectURIs of a configured OAuth client',
          );
        }
      }
      const sessionUser = await oauth.flow.endSession(request, reply);
      if (user) await ensureReady(oauth).revokeSessions(user.name);
      // The browser's sign-in session: its user's tokens go with it, as a bearer logout's do.
      if (sessionUser && sessionUser !== user?.name) await ensureReady(oauth).revokeSessions(sessionUser);
      if (!target) return reply.code(200).type('application/json').send('{"message":"success"}');
      if (typeof q.state === 'string' && q.state) target.searchParams.append('state', q.state);
      return reply.code(302).header('location', target.toString()).type('text/plain').send('');
    };
    scope.get('/oauth/logout', { schema: logoutSchema('GET') }, logout);
    scope.post('/oauth/logout', { bodyLimit: OAUTH_BODY_LIMIT, schema: logoutSchema('POST') }, logout);

    // OpenID Connect discovery, at the root (issuer https://host) and under /oauth (issuer https://host/oauth, and
    // where KubeSphere serves it).
    const discovery = async (request: FastifyRequest) => {
      const o = oauth.options().oauthOptions;
      return discoveryDocument(
        oidcEndpoints(o, ownOrigin(request)),
        o.clients.some((c) => c.allowImplicitGrant),
      );
    };
    scope.get('/.well-known/openid-configuration', { schema: discoverySchema }, discovery);
    scope.get('/oauth/.well-known/openid-configuration', { schema: discoverySchema }, discovery);
    scope.get('/oauth/keys', { schema: keysSchema }, async (_request, reply) => {
      if (!oauth.keys)
        throw new OAuthError(503, 'temporarily_unavailable', 'starting; retry shortly', {
          'retry-after': '2',
        });
      // Relying parties cache the key set; a rotation is announced by a new kid, which makes them fetch it again.
      reply.header('cache-control', 'public, max-age=300');
      return oauth.keys.jwks();
    });

    // OpenID Connect UserInfo: the standard claims of the bearer token's user; empty ones are omitted (KubeSphere).
    const userInfo = async (request: FastifyRequest) => {
      const user = request.user;
      if (!user) throw unauthorized();
      const email = oauth.users.get(user.name)?.spec?.email;
      return {
        sub: user.name,
        name: user.name,
        preferred_username: user.name,
        ...(email ? { email } : {}),
      };
    };
    scope.get('/oauth/userinfo', { schema: userInfoSchema('GET') }, userInfo);
    scope.post('/oauth/userinfo', { bodyLimit: OAUTH_BODY_LIMIT, schema: userInfoSchema('POST') }, userInfo);

    scope.get('/oauth/authorize', { schema: authorizeSchema('GET') }, (request, reply) =>
      oauth.flow.authorize(request, reply, request.query as Record<string, unknown>),
    );
    scope.post('/oauth/authorize', formRoute(authorizeSchema('POST')), (request, reply) =>
      oauth.flow.authorize(request, reply, Object.fromEntries(formOf(request))),
    );
    scope.post('/oauth/sign-in', formRoute(signInSchema), (request, reply) =>
      oauth.flow.signIn(request, reply, formOf(request)),
    );

    registerIdentityProviderRoutes(scope, ctx, oauth);
  });
}

/** The clients whose redirect URIs a logout may use: the one named by `client_id` (OIDC logout), else all. */
function redirectClients(oauth: OAuthService, clientId: unknown) {
  if (clientId === undefined) return oauth.clients.list();
  const client = typeof clientId === 'string' ? oauth.clients.get(clientId) : undefined;
  if (!client) throw invalidRequest('client_id does not name a configured OAuth client');
  return [client];
}
