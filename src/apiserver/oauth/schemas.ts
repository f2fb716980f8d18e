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
  summary: 'Issue a token (password or refresh_token grant)',
  description:
    'Client credentials in the form (client_id, client_secret) or HTTP Basic. Errors: 401 invalid_client; 400 invalid_request, unsupported_grant_type, invalid_grant; 429 when the account is locked after repeated failures.',
  operationId: 'IssueToken',
  consumes: FORM,
  security: [],
  body: Type.Object({
    // No enum: another grant type is answered unsupported_grant_type naming it, and only once the server has
    // started (503 first), which a schema failure (raised right after client authentication) would pre-empt.
    grant_type: Type.String({
      minLength: 1,
      description: 'password or refresh_token (any other: unsupported_grant_type)',
    }),
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
  summary: 'OpenID Connect discovery document',
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

export const userInfoSchema: FastifySchema = {
  tags: [TAG],
  summary: 'Claims of the calling user',
  operationId: 'UserInfo',
  response: { 200: AnyObject },
};
