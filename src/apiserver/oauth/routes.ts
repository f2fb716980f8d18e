// /oauth/* endpoints. Errors are RFC 6749 JSON (`{"error", "error_description"}`) with KubeSphere's status codes;
// a failed bearer check on an authenticated /oauth endpoint is still a Kubernetes Status (from the filter).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusError, unauthorized } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import {
  DESCRIPTIONS,
  invalidClient,
  invalidRequest,
  OAuthError,
  serverError,
  temporarilyUnavailable,
  unsupportedGrantType,
} from './errors.ts';
import { type Form, parseBasicAuth, parseForm } from './form.ts';
import { logoutRedirectAllowed } from './logout-redirect.ts';
import type { OAuthService } from './service.ts';
import { TokenStoreUnavailableError } from './store/index.ts';

/** Token requests are a few hundred bytes; anything this large is not one. */
export const OAUTH_BODY_LIMIT = 64 * 1024;

const FORM_TYPE = 'application/x-www-form-urlencoded';

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

function clientInfo(request: FastifyRequest) {
  const ua = request.headers['user-agent'];
  return {
    sourceIP: request.socket.remoteAddress ?? request.ip,
    userAgent: typeof ua === 'string' ? ua : '',
  };
}

function ensureReady(oauth: OAuthService) {
  if (!oauth.isReady() || !oauth.tokens) {
    throw new OAuthError(503, 'temporarily_unavailable', 'token issuance is starting; retry shortly', {
      'retry-after': '2',
    });
  }
  return oauth.tokens;
}

/** Client authentication: HTTP Basic (RFC 6749 2.3.1) or client_id/client_secret in the body, never both. */
function authenticateClient(oauth: OAuthService, request: FastifyRequest, form: Form) {
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
    const routeOpts = { bodyLimit: OAUTH_BODY_LIMIT };

    scope.post('/oauth/token', routeOpts, async (request, reply) => {
      noStore(reply);
      const form = formOf(request);
      let grant = form.get('grant_type') ?? '';
      try {
        const client = authenticateClient(oauth, request, form);
        if (!grant) throw invalidRequest('grant_type is required');
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
        if (grant === 'refresh_token') {
          const refresh = form.get('refresh_token') ?? '';
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
    scope.post('/oauth/revoke', routeOpts, async (request, reply) => {
      noStore(reply);
      const form = formOf(request);
      authenticateClient(oauth, request, form);
      const token = form.get('token') ?? '';
      if (!token) throw invalidRequest('token is required');
      await ensureReady(oauth).revoke(token);
      return reply.code(200).type('application/json').send('{}');
    });

    // KubeSphere: revokes every token of the caller; 302 to post_logout_redirect_uri (with state) or 200 `{}`.
    // The redirect must be registered (./logout-redirect.ts): an unregistered one is refused before anything is revoked.
    const logout = async (request: FastifyRequest, reply: FastifyReply) => {
      noStore(reply);
      const user = request.user;
      if (!user) throw unauthorized('Unauthorized: logout needs a bearer token');
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
      await ensureReady(oauth).revokeAll(user.name);
      if (!target) return reply.code(200).type('application/json').send('{}');
      if (typeof q.state === 'string' && q.state) target.searchParams.append('state', q.state);
      return reply.code(302).header('location', target.toString()).type('text/plain').send('');
    };
    scope.get('/oauth/logout', logout);
    scope.post('/oauth/logout', routeOpts, logout);

    scope.get('/oauth/userinfo', async (request) => {
      const user = request.user;
      if (!user) throw unauthorized();
      const u = oauth.users.get(user.name);
      return {
        sub: user.name,
        name: user.name,
        preferred_username: user.name,
        email: u?.spec?.email ?? '',
      };
    });

    scope.get('/oauth/.well-known/openid-configuration', async (request) => {
      const host = request.headers.host ?? 'localhost';
      const base = `${request.protocol}://${host}`;
      return {
        issuer: oauth.options().oauthOptions.issuer,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
        userinfo_endpoint: `${base}/oauth/userinfo`,
        end_session_endpoint: `${base}/oauth/logout`,
        jwks_uri: `${base}/oauth/keys`,
        grant_types_supported: ['password', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        response_types_supported: ['token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      };
    });
    // No RSA ID-token key is configured (access tokens are HS256, never published): an empty key set.
    scope.get('/oauth/keys', async () => ({ keys: [] }));
  });
}

/** The clients whose redirect URIs a logout may use: the one named by `client_id` (OIDC logout), else all. */
function redirectClients(oauth: OAuthService, clientId: unknown) {
  if (clientId === undefined) return oauth.clients.list();
  const client = typeof clientId === 'string' ? oauth.clients.get(clientId) : undefined;
  if (!client) throw invalidRequest('client_id does not name a configured OAuth client');
  return [client];
}

/** scheme://host[:port] this request was sent to ('' when the Host header is not a valid host). */
function ownOrigin(request: FastifyRequest): string {
  try {
    return new URL(`${request.protocol}://${request.headers.host ?? ''}`).origin;
  } catch {
    return '';
  }
}
