// Route schemas of the /oauth endpoints: they document the routes in the ks-openapi swagger document, and the form
// bodies of /oauth/token and /oauth/revoke are validated against them (./routes.ts says when the answer is raised).
// Only what the handlers require is required: client credentials may come as HTTP Basic instead of in the form, and
// grant-specific fields are checked by the grant (after the start-up check), as before.
// Route schema fields of @fastify/swagger (tags, summary, operationId, consumes, security) on FastifySchema.
import type {} from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import Type from 'typebox';

const TAG = 'Authentication';
const FORM = ['application/x-www-form-urlencoded'];

const OAuthErrorBody = Type.Object(
  { error: Type.String(), error_description: Type.Optional(Type.String()) },
  { description: 'RFC 6749 error' },
);
const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'JWT to send as Authorization: Bearer <token>' }),
    token_type: Type.Literal('Bearer'),
    refresh_token: Type.String(),
    expires_in: Type.Integer({ description: 'Access token lifetime in seconds (7200 by default)' }),
    id_token: Type.Optional(
      Type.String({ description: 'code grant with scope openid: RS256, verify with /oauth/keys' }),
    ),
  },
  { title: 'TokenResponse' },
);
const clientId = Type.Optional(Type.String({ description: 'Or HTTP Basic client credentials' }));
const clientSecret = Type.Optional(
  Type.String({ format: 'password', description: 'Or HTTP Basic client credentials' }),
);
const AnyObject = Type.Object({}, { additionalProperties: true });

export const tokenSchema: FastifySchema = {
  tags: [TAG],
  summary: 'Issue a token (password, refresh_token, authorization_code or code grant)',
  description:
    'Client credentials in the form (client_id, client_secret) or HTTP Basic; for the code grant a client without a secret sends client_id and code_verifier only. With scope openid the code grant also answers id_token (RS256). Errors: 401 invalid_client; 400 invalid_request, unsupported_grant_type, invalid_grant; 429 when the account is locked after repeated failures.',
  operationId: 'IssueToken',
  consumes: FORM,
  security: [],
  body: Type.Object({
    // No enum: another grant type is answered unsupported_grant_type naming it, and only once the server has
    // started (503 first), which a schema failure (raised right after client authentication) would pre-empt.
    grant_type: Type.String({
      minLength: 1,
      description:
        'password, refresh_token, authorization_code or code (KubeSphere); any other: unsupported_grant_type',
    }),
    code: Type.Optional(Type.String({ description: 'authorization_code grant' })),
    redirect_uri: Type.Optional(
      Type.String({ description: 'as in the authorization request, if it named one' }),
    ),
    code_verifier: Type.Optional(Type.String({ description: 'PKCE verifier of the code_challenge' })),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String({ format: 'password' })),
    refresh_token: Type.Optional(Type.String()),
    client_id: clientId,
    client_secret: clientSecret,
  }),
  response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
};

export const revokeSchema: FastifySchema = {
  tags: [TAG],
  summary: 'Revoke a token (RFC 7009)',
  operationId: 'RevokeToken',
  consumes: FORM,
  security: [],
  body: Type.Object({
    token: Type.String({ minLength: 1 }),
    token_type_hint: Type.Optional(Type.String()),
    client_id: clientId,
    client_secret: clientSecret,
  }),
  response: { 200: Type.Object({}), 400: OAuthErrorBody, 401: OAuthErrorBody },
};

export function logoutSchema(method: 'GET' | 'POST'): FastifySchema {
  return {
    tags: [TAG],
    summary: 'Log out: revoke every token of the calling user (no token: nothing to revoke, still success)',
    operationId: `Logout${method === 'GET' ? '' : 'Post'}`,
    querystring: Type.Object({
      post_logout_redirect_uri: Type.Optional(Type.String()),
      state: Type.Optional(Type.String()),
    }),
    response: {
      200: Type.Object({ message: Type.Literal('success') }),
      302: Type.Null({ description: 'Redirect to post_logout_redirect_uri' }),
    },
  };
}

export const discoverySchema: FastifySchema = {
  tags: [TAG],
  summary: 'OpenID Connect discovery document (absolute URLs; see oauthOptions.issuer and externalURL)',
  operationId: 'OIDCDiscovery',
  security: [],
  response: { 200: AnyObject },
};

export const keysSchema: FastifySchema = {
  tags: [TAG],
  summary: 'JSON Web Key Set of the ID-token signing key',
  operationId: 'JWKS',
  security: [],
  response: { 200: Type.Object({ keys: Type.Array(AnyObject) }) },
};

export function userInfoSchema(method: 'GET' | 'POST'): FastifySchema {
  return {
    tags: [TAG],
    summary:
      "OpenID Connect UserInfo: claims of the bearer token's user (sub, name, preferred_username, email)",
    operationId: `UserInfo${method === 'GET' ? '' : 'Post'}`,
    response: { 200: AnyObject },
  };
}

const AuthorizeParams = Type.Object({
  response_type: Type.String({ description: 'code; token only for a client with allowImplicitGrant' }),
  client_id: Type.String(),
  redirect_uri: Type.Optional(
    Type.String({
      description: 'must equal a registered redirect URI; optional when the client has exactly one',
    }),
  ),
  scope: Type.Optional(
    Type.String({ description: 'space-separated; openid adds an ID token to the code exchange' }),
  ),
  state: Type.Optional(Type.String({ description: 'returned unchanged with the code, token or error' })),
  nonce: Type.Optional(Type.String({ description: 'copied into the ID token' })),
  code_challenge: Type.Optional(
    Type.String({ description: 'PKCE (RFC 7636); required for clients without a secret' }),
  ),
  code_challenge_method: Type.Optional(Type.Literal('S256')),
  prompt: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('login')])),
});

export function authorizeSchema(method: 'GET' | 'POST'): FastifySchema {
  return {
    tags: [TAG],
    summary:
      'OAuth 2.0 / OpenID Connect authorization endpoint (code flow with PKCE S256; implicit where enabled)',
    description:
      'Signed in by a bearer token, Basic credentials or a sign-in session: 302 to the redirect URI with code (or, ' +
      'implicit, a fragment with access_token) and state. Otherwise 200 with the sign-in page. An unknown client or ' +
      'unregistered redirect URI is a 400 page (JSON unless Accept names text/html), never a redirect; later errors ' +
      'are 302 to the redirect URI with error, error_description and state.',
    operationId: `Authorize${method === 'GET' ? '' : 'Post'}`,
    ...(method === 'GET' ? { querystring: AuthorizeParams } : { consumes: FORM, body: AuthorizeParams }),
    security: [],
    response: {
      200: Type.String({ description: 'the sign-in page (text/html)' }),
      302: Type.Null({ description: 'redirect to the client' }),
      400: OAuthErrorBody,
    },
  };
}

export const signInSchema: FastifySchema = {
  tags: [TAG],
  summary:
    "The sign-in page's form (same origin only; CSRF token bound to the pending authorization and a cookie)",
  operationId: 'SignIn',
  consumes: FORM,
  security: [],
  body: Type.Object({
    pending: Type.String(),
    csrf: Type.String(),
    username: Type.String(),
    password: Type.String({ format: 'password' }),
    provider: Type.Optional(
      Type.String({
        description: 'a password identity provider (LDAP) to check with; empty: the local account',
      }),
    ),
  }),
  response: {
    302: Type.Null({ description: 'signed in: redirect to the client with its code or token' }),
    400: Type.String({ description: 'the sign-in page again, with the error' }),
    403: Type.String({ description: 'cross-site or stale form' }),
    429: Type.String({ description: 'too many failures' }),
    503: Type.String({ description: 'the identity provider did not answer in time' }),
  },
};
