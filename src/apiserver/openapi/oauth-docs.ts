// Documentation of the /oauth endpoints (owned by the oauth unit, which registers them without schemas) for the
// ks-openapi swagger document. Registered only on the generator's throwaway app, never on the served one.
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';

const TAG = 'Authentication';
const OAuthError = Type.Object(
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

const notServed = async () => {
  throw new Error('documentation-only route');
};

export function registerOAuthDocs(app: FastifyInstance): void {
  app.post(
    '/oauth/token',
    {
      schema: {
        tags: [TAG],
        summary: 'Issue a token (password or refresh_token grant)',
        description:
          'Client credentials in the form (client_id, client_secret) or HTTP Basic. Errors: 401 invalid_client; 400 invalid_request, unsupported_grant_type, invalid_grant; 429 when the account is locked after repeated failures.',
        operationId: 'IssueToken',
        consumes: ['application/x-www-form-urlencoded'],
        security: [],
        body: Type.Object({
          grant_type: Type.String({ enum: ['password', 'refresh_token'] }),
          username: Type.Optional(Type.String()),
          password: Type.Optional(Type.String({ format: 'password' })),
          refresh_token: Type.Optional(Type.String()),
          client_id: Type.String(),
          client_secret: Type.String({ format: 'password' }),
        }),
        response: { 200: TokenResponse, 400: OAuthError, 401: OAuthError, 429: OAuthError },
      },
    },
    notServed,
  );
  app.post(
    '/oauth/revoke',
    {
      schema: {
        tags: [TAG],
        summary: 'Revoke a token (RFC 7009)',
        operationId: 'RevokeToken',
        consumes: ['application/x-www-form-urlencoded'],
        security: [],
        body: Type.Object({
          token: Type.String(),
          token_type_hint: Type.Optional(Type.String()),
          client_id: Type.String(),
          client_secret: Type.String({ format: 'password' }),
        }),
        response: { 200: Type.Object({}), 400: OAuthError, 401: OAuthError },
      },
    },
    notServed,
  );
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/oauth/logout',
      schema: {
        tags: [TAG],
        summary: 'Log out: revoke every token of the calling user',
        operationId: `Logout${method === 'GET' ? '' : 'Post'}`,
        querystring: Type.Object({
          post_logout_redirect_uri: Type.Optional(Type.String()),
          state: Type.Optional(Type.String()),
        }),
        response: {
          200: Type.Object({}),
          302: Type.Null({ description: 'Redirect to post_logout_redirect_uri' }),
        },
      },
      handler: notServed,
    });
  }
  app.get(
    '/oauth/.well-known/openid-configuration',
    {
      schema: {
        tags: [TAG],
        summary: 'OpenID Connect discovery document',
        operationId: 'OIDCDiscovery',
        security: [],
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    notServed,
  );
  app.get(
    '/oauth/keys',
    {
      schema: {
        tags: [TAG],
        summary: 'JSON Web Key Set of the ID-token signing key',
        operationId: 'JWKS',
        security: [],
        response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
      },
    },
    notServed,
  );
  app.get(
    '/oauth/userinfo',
    {
      schema: {
        tags: [TAG],
        summary: 'Claims of the calling user',
        operationId: 'UserInfo',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    notServed,
  );
}
