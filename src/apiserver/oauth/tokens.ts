// Issuing, refreshing, checking and revoking token pairs, on top of the JWT issuer and the token store.
import type { AuthenticationOptions, OAuthClient } from '../../config/index.ts';
import { groupsConferredBy } from '../iam/user-groups.ts';
import { UNINITIALIZED_ANNOTATION, type UserObject, type Users } from '../iam/users.ts';
import type { UserInfo } from '../request.ts';
import { DESCRIPTIONS, invalidGrant } from './errors.ts';
import { InvalidTokenError, type TokenIssuer } from './jwt.ts';
import type { TokenStore } from './store/index.ts';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  refresh_token: string;
  expires_in: number;
}

export class TokenService {
  constructor(
    private readonly issuer: TokenIssuer,
    private readonly store: TokenStore,
    private readonly users: Users,
    private readonly options: () => AuthenticationOptions,
  ) {}

  /** Issues a new pair for the user; with multipleLogin false, every older token of the user is revoked first. */
  async issue(user: UserObject, client: OAuthClient): Promise<TokenResponse> {
    const o = this.options().oauthOptions;
    const accessMs = client.accessTokenMaxAge ?? o.accessTokenMaxAge;
    const inactivityMs = client.accessTokenInactivityTimeout ?? o.accessTokenInactivityTimeout;
    const refreshMs = accessMs === 0 ? 0 : accessMs + inactivityMs;
    const username = user.metadata.name;
    const extra =
      user.metadata.annotations?.[UNINITIALIZED_ANNOTATION] === 'true'
        ? { [UNINITIALIZED_ANNOTATION]: ['true'] }
        : undefined;
    if (!this.options().multipleLogin) await this.store.revokeAll(username);
    const access = await this.issuer.issue({ username, tokenType: 'access_token', ttlMs: accessMs, extra });
    const refresh = await this.issuer.issue({ username, tokenType: 'refresh_token', ttlMs: refreshMs });
    await this.store.add(username, access.token, accessMs);
    await this.store.add(username, refresh.token, refreshMs);
    return {
      access_token: access.token,
      token_type: 'Bearer',
      refresh_token: refresh.token,
      expires_in: Math.round(accessMs / 1000),
    };
  }

  /**
   * Rotation: a refresh token works once. A second use of the same token means it leaked (or the client is
   * confused), so every token of that user is revoked (OAuth 2.0 Security BCP, refresh token reuse detection).
   */
  async refresh(refreshToken: string, client: OAuthClient): Promise<TokenResponse> {
    let claims: Awaited<ReturnType<TokenIssuer['verify']>>;
    try {
      claims = await this.issuer.verify(refreshToken);
    } catch (err) {
      throw invalidGrant(
        err instanceof InvalidTokenError ? `invalid refresh token: ${err.reason}` : 'invalid refresh token',
      );
    }
    if (claims.tokenType !== 'refresh_token')
      throw invalidGrant('invalid refresh token: not a refresh token');
    if (!(await this.store.consume(claims.username, refreshToken))) {
      await this.store.revokeAll(claims.username);
      throw invalidGrant('invalid refresh token: already used or revoked');
    }
    const user = this.users.get(claims.username);
    if (!user) throw invalidGrant('invalid refresh token: the user no longer exists');
    const state = user.status?.state;
    if (state !== undefined && state !== 'Active') throw invalidGrant(DESCRIPTIONS.notActive);
    return this.issue(user, client);
  }

  /** Resolves a bearer token to its user, or throws InvalidTokenError with a reason safe to return. */
  async authenticate(token: string): Promise<UserInfo> {
    const claims = await this.issuer.verify(token);
    if (claims.tokenType !== 'access_token')
      throw new InvalidTokenError('a refresh token is not an access token');
    if (!(await this.store.isActive(claims.username, token))) {
      throw new InvalidTokenError('token has been revoked or is unknown');
    }
    const user = this.users.get(claims.username);
    if (!user) throw new InvalidTokenError('the user no longer exists');
    if (user.status?.state === 'Disabled') throw new InvalidTokenError(DESCRIPTIONS.notActive);
    const groups = [
      ...groupsConferredBy(user.spec?.groups),
      'system:authenticated',
    ];
    const info: UserInfo = { name: user.metadata.name, groups };
    if (user.metadata.uid) info.uid = user.metadata.uid;
    if (claims.extra && Object.keys(claims.extra).length > 0) info.extra = claims.extra;
    return info;
  }

  /** RFC 7009: revokes the token if it is one of ours; anything else is silently ignored. */
  async revoke(token: string): Promise<void> {
    try {
      const claims = await this.issuer.verify(token);
      await this.store.revoke(claims.username, token);
    } catch {
      // Invalid, expired or foreign tokens need no revocation (RFC 7009 section 2.2).
    }
  }

  revokeAll(username: string): Promise<void> {
    return this.store.revokeAll(username);
  }
}
