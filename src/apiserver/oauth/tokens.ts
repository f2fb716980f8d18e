// Issuing, refreshing, checking and revoking token pairs, on top of the JWT issuer and the token store.
import type { AuthenticationOptions, OAuthClient } from '../../config/index.ts';
import { type Clock, systemClock } from '../clock.ts';
import { groupsConferredBy } from '../iam/user-groups.ts';
import { UNINITIALIZED_ANNOTATION, type UserObject, type Users } from '../iam/users.ts';
import type { UserInfo } from '../request.ts';
import { credentialGeneration, keptTokensOwner, kubeconfigTokensOwner } from './credentials.ts';
import { DESCRIPTIONS, invalidGrant } from './errors.ts';
import { InvalidTokenError, type TokenClaims, type TokenIssuer } from './jwt.ts';
import { KubeconfigCredentials } from './kubeconfig-credential.ts';
import type { TokenStore } from './store/index.ts';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  refresh_token: string;
  expires_in: number;
}

export class TokenService {
  private readonly kubeconfigCredentials: KubeconfigCredentials;

  constructor(
    private readonly issuer: TokenIssuer,
    private readonly store: TokenStore,
    private readonly users: Users,
    private readonly options: () => AuthenticationOptions,
    private readonly clock: Clock = systemClock,
  ) {
    this.kubeconfigCredentials = new KubeconfigCredentials(issuer, store, clock);
  }

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
    const binding = { uid: user.metadata.uid, cred: credentialGeneration(user) };
    const access = await this.issuer.issue({
      username,
      tokenType: 'access_token',
      ttlMs: accessMs,
      extra,
      ...binding,
    });
    const refresh = await this.issuer.issue({
      username,
      tokenType: 'refresh_token',
      ttlMs: refreshMs,
      ...binding,
    });
    // Both recorded before either is answered, in one step (one SQLite transaction, one Redis script), which with
    // multipleLogin false also revokes every older token of the user.
    await this.store.addTokens(
      username,
      [
        { token: access.token, ttlMs: accessMs },
        { token: refresh.token, ttlMs: refreshMs },
      ],
      !this.options().multipleLogin,
    );
    return {
      access_token: access.token,
      token_type: 'Bearer',
      refresh_token: refresh.token,
      expires_in: Math.round(accessMs / 1000),
    };
  }

  /**
   * The credential of a downloaded kubeconfig: a token of its own kind (never the caller's access token, never a
   * refresh token), bound to the user's uid and credentials and recorded in the store like any other, so every
   * revocation of the user's tokens revokes it. Every download returns the same one until it is revoked
   * (./kubeconfig-credential.ts).
   */
  kubeconfigToken(user: UserObject): Promise<string> {
    return this.kubeconfigCredentials.tokenFor(user);
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
    // The binding first: a refresh token outdated by a credential change, a deletion or a recreation is refused
    // without counting as reuse (which would also end a session kept across a password change).
    const user = this.users.get(claims.username);
    if (!user || user.metadata.uid !== claims.uid) {
      throw invalidGrant('invalid refresh token: the user no longer exists');
    }
    if (credentialGeneration(user) !== claims.cred) {
      throw invalidGrant("invalid refresh token: the user's credentials have changed; log in again");
    }
    // A lockout (AuthLimitExceeded) is about new password logins, often by someone else: sessions go on.
    if (user.status?.state === 'Disabled') throw invalidGrant(DESCRIPTIONS.notActive);
    if (!(await this.store.consume(claims.username, refreshToken))) {
      await this.store.revokeAll(claims.username);
      throw invalidGrant('invalid refresh token: already used or revoked');
    }
    return this.issue(user, client);
  }

  /** Resolves a bearer token to its user, or throws InvalidTokenError with a reason safe to return. */
  async authenticate(token: string): Promise<UserInfo> {
    const claims = await this.issuer.verify(token);
    if (claims.tokenType === 'refresh_token')
      throw new InvalidTokenError('a refresh token is not an access token');
    if (!(await this.store.isActive(storeOwner(claims), token))) {
      throw new InvalidTokenError('token has been revoked or is unknown');
    }
    const user = this.users.get(claims.username);
    if (!user || user.metadata.uid !== claims.uid) throw new InvalidTokenError('the user no longer exists');
    if (user.status?.state === 'Disabled') throw new InvalidTokenError(DESCRIPTIONS.notActive);
    await this.checkCredentials(user, claims, token);
    const groups = [...groupsConferredBy(user.spec?.groups), 'system:authenticated'];
    const info: UserInfo = { name: user.metadata.name, groups };
    if (user.metadata.uid) info.uid = user.metadata.uid;
    if (claims.extra && Object.keys(claims.extra).length > 0) info.extra = claims.extra;
    if (claims.tokenType === 'kubeconfig') info.tokenKind = 'kubeconfig';
    return info;
  }

  /**
   * Whether the token is, or claims to be, kapiserver's (so it must never be shown to the orchestrator). `claims`:
   * its unverified claims (jwt.ts unverifiedClaims), when the caller has them already.
   */
  isOwn(token: string, claims?: Record<string, unknown>): boolean {
    return this.issuer.claimsToBeOurs(token, claims);
  }

  /** RFC 7009: revokes the token if it is one of ours; anything else is silently ignored. */
  async revoke(token: string): Promise<void> {
    try {
      const claims = await this.issuer.verify(token);
      await this.store.revoke(storeOwner(claims), token);
    } catch {
      // Invalid, expired or foreign tokens need no revocation (RFC 7009 section 2.2).
    }
  }

  /** Ends the user's sessions (logout): their access and refresh tokens; kubeconfig credentials stay. */
  revokeSessions(username: string): Promise<void> {
    return this.store.revokeAll(username);
  }

  /** Every token of the user, kubeconfig credentials included (a disable, a deletion). */
  async revokeAll(username: string): Promise<void> {
    await Promise.all([
      this.store.revokeAll(username),
      this.store.revokeAll(kubeconfigTokensOwner(username)),
    ]);
  }

  /**
   * After a password change, a disable or a deletion: revokes every token of the user in the store, so the change
   * holds at once on every replica sharing it, before any informer has seen the new User (the uid and credential
   * checks then hold for good). `keep`: an access token of this user to leave working (a self-service password
   * change that asked for it); `user` is the User as written, its new credentials are those the token is re-admitted
   * for. The kept token's refresh token is not kept: when the access token expires, the user logs in again.
   */
  async revokeAfterCredentialChange(user: UserObject, keep?: string): Promise<void> {
    const name = user.metadata.name;
    const keptLifeMs = keep ? await this.activeAccessTokenLife(name, keep) : undefined;
    await this.revokeAll(name);
    if (keep === undefined || keptLifeMs === undefined) return;
    await this.store.add(keptTokensOwner(name, credentialGeneration(user)), keep, keptLifeMs);
    await this.store.add(name, keep, keptLifeMs);
  }

  /** Remaining lifetime (ms; 0 = until revoked) of an active access token of `username`; undefined for any other. */
  private async activeAccessTokenLife(username: string, token: string): Promise<number | undefined> {
    const claims = await this.issuer.verify(token).catch(() => undefined);
    if (claims?.username !== username || claims.tokenType !== 'access_token') return undefined;
    if (!(await this.store.isActive(username, token))) return undefined;
    if (claims.expiresAt === undefined) return 0;
    const ms = claims.expiresAt * 1000 - this.clock.now();
    return ms > 0 ? ms : undefined;
  }

  /**
   * The token must have been issued for the user's current credentials, or have been kept across their change.
   * (The uid was checked by the caller.)
   */
  private async checkCredentials(user: UserObject, claims: TokenClaims, token: string): Promise<void> {
    const generation = credentialGeneration(user);
    if (claims.cred === generation) return;
    if (await this.store.isActive(keptTokensOwner(user.metadata.name, generation), token)) return;
    throw new InvalidTokenError("the user's credentials have changed; log in again");
  }
}

/** The store entry a token of these claims is recorded under. */
function storeOwner(claims: TokenClaims): string {
  return claims.tokenType === 'kubeconfig' ? kubeconfigTokensOwner(claims.username) : claims.username;
}
