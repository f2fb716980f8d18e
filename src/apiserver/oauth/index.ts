export { ClientRegistry } from './clients.ts';
export { bearerToken } from './credentials.ts';
export { OAuthError, type OAuthErrorBody } from './errors.ts';
export { InvalidTokenError, type TokenClaims, TokenIssuer } from './jwt.ts';
export { OAUTH_BODY_LIMIT, registerOAuthRoutes } from './routes.ts';
export { type OAuthService, startOAuth } from './service.ts';
export { createTokenStore, LocalTokenStore, RedisTokenStore, type TokenStore } from './store/index.ts';
export type { TokenResponse } from './tokens.ts';
