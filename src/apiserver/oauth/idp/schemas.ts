// Route schemas of the identity-provider endpoints (documentation in the ks-openapi swagger document; the login
// form is validated against its schema).
import type {} from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import Type from 'typebox';

const TAG = 'Authentication';
const OAuthErrorBody = Type.Object(
  { error: Type.String(), error_description: Type.Optional(Type.String()) },
  { description: 'RFC 6749 error' },
);
const Tokens = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    refresh_token: Type.String(),
    expires_in: Type.Integer(),
  },
  { description: 'The token pair of the KubeSphere user the identity maps to' },
);
const params = Type.Object({ idp: Type.String({ description: 'name of a configured identity provider' }) });
const errors = {
  400: OAuthErrorBody,
  401: OAuthErrorBody,
  404: OAuthErrorBody,
  409: OAuthErrorBody,
  503: OAuthErrorBody,
};

export const passwordLoginSchema: FastifySchema = {
  tags: [TAG],
  summary: 'Sign in through a password identity provider (LDAP)',
  description:
    'No client credentials. The identity is mapped to a user by mappingMethod (auto: created on first login). Errors as the password grant (400 invalid_grant "incorrect password", 429 after repeated failures); 503 when the directory does not answer in time.',
  operationId: 'LoginByIdentityProvider',
  consumes: ['application/x-www-form-urlencoded'],
  security: [],
  params,
  body: Type.Object({
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String({ format: 'password' })),
  }),
  response: { 200: Tokens, 429: OAuthErrorBody, ...errors },
};

export const redirectLoginSchema: FastifySchema = {
  tags: [TAG],
  summary: 'Start signing in through a redirect identity provider (OIDC, GitHub)',
  description:
    'kapiserver only: redirects the browser to the provider with state, nonce and PKCE, and sets a cookie that ties the callback to this browser.',
  operationId: 'StartIdentityProviderLogin',
  security: [],
  params,
  querystring: Type.Object({
    pending: Type.Optional(
      Type.String({
        description: "the sign-in page's pending authorization, continued after the provider's login",
      }),
    ),
  }),
  response: {
    302: Type.Null({ description: "Redirect to the provider's authorization endpoint" }),
    ...errors,
  },
};

export const callbackSchema: FastifySchema = {
  tags: [TAG],
  summary: "Callback of a redirect identity provider: exchanges the code and answers the user's tokens",
  operationId: 'IdentityProviderCallback',
  security: [],
  params,
  querystring: Type.Object({
    code: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
  }),
  response: { 200: Tokens, ...errors },
};
