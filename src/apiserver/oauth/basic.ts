// HTTP Basic credentials on API calls, as ks-apiserver v3 accepts them on every path (KubeSphere's Go client and e2e
// tooling send `Authorization: Basic` on every call). The password is checked by the password grant's own
// authenticator (./authenticator.ts): login by user name or e-mail, per-user lockout and per-source throttling,
// failures recorded as LoginRecords of type Password; a disabled account is only revealed to someone who knows its
// password. Successful calls record nothing (KubeSphere's behaviour; a record per call would flood the cluster).
// Verified credentials are cached (./verified-credentials.ts); a hit stands only while the live User still has the
// uid and password it was verified against, is Active and is not locked out, checked on every call.
import { unauthorized } from '../../k8s/status.ts';
import { groupsConferredBy } from '../iam/user-groups.ts';
import type { UserObject, Users } from '../iam/users.ts';
import type { UserInfo } from '../request.ts';
import type { ClientInfo, PasswordAuthenticator } from './authenticator.ts';
import { credentialGeneration } from './credentials.ts';
import { DESCRIPTIONS, OAuthError } from './errors.ts';
import type { VerifiedCredentials } from './verified-credentials.ts';

export interface BasicCredentials {
  login: string;
  password: string;
}

const BASIC = /^Basic(?: +(.*?))? *$/is;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const refused = (problem: string) => unauthorized(`Unauthorized: Basic credentials: ${problem}`);

/** True when the Authorization header names the Basic scheme (any case), whatever follows. */
export function isBasic(header: string): boolean {
  return BASIC.test(header);
}

/**
 * The login and password of an `Authorization: Basic` header (RFC 7617: standard base64 of UTF-8 `login:password`,
 * split at the first colon). Throws a 401 StatusError naming what is wrong with it.
 */
export function parseBasic(header: string): BasicCredentials {
  const encoded = BASIC.exec(header)?.[1] ?? '';
  if (encoded === '') throw refused('missing after "Basic"');
  if (!BASE64.test(encoded)) throw refused('not valid base64');
  let decoded: string;
  try {
    decoded = UTF8.decode(Buffer.from(encoded, 'base64'));
  } catch {
    throw refused('not valid UTF-8');
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) throw refused('no ":" between user name and password');
  const login = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (login === '') throw refused('empty user name');
  if (password === '') throw refused('empty password');
  return { login, password };
}

/** What a User confers on a request: its name, uid and groups (never a system: one) plus system:authenticated. */
function userInfo(user: UserObject): UserInfo {
  const info: UserInfo = {
    name: user.metadata.name,
    groups: [...groupsConferredBy(user.spec?.groups), 'system:authenticated'],
  };
  if (user.metadata.uid) info.uid = user.metadata.uid;
  return info;
}

const isActive = (user: UserObject) => (user.status?.state ?? 'Active') === 'Active';

export class BasicAuthenticator {
  constructor(
    private readonly users: Users,
    private readonly passwords: PasswordAuthenticator,
    private readonly verified: VerifiedCredentials,
  ) {}

  /**
   * The user the credentials belong to; throws a 401 StatusError (`Unauthorized: <reason>`, KubeSphere's reasons,
   * also for a lockout) or, when the token store is down, its TokenStoreUnavailableError.
   */
  async authenticate(credentials: BasicCredentials, client: ClientInfo): Promise<UserInfo> {
    const digest = this.verified.digest(credentials.login, credentials.password);
    const user =
      (await this.cached(digest, credentials.login)) ?? (await this.verify(digest, credentials, client));
    return userInfo(user);
  }

  /** The user of a cache hit that still stands, or undefined (the hit, if any, is dropped). */
  private async cached(digest: string, login: string): Promise<UserObject | undefined> {
    const hit = await this.verified.find(digest);
    if (!hit) return undefined;
    // Looked up by the login again: a user renamed in e-mail no longer answers to the old address.
    const user = this.users.lookup(login);
    const stands =
      user !== undefined &&
      user.metadata.name === hit.username &&
      user.metadata.uid === hit.uid &&
      credentialGeneration(user) === hit.generation &&
      isActive(user) &&
      (await this.passwords.lockedUntil(login, user)) === undefined;
    if (stands) return user;
    this.verified.forget(digest);
    return undefined;
  }

  private async verify(digest: string, c: BasicCredentials, client: ClientInfo): Promise<UserObject> {
    let user: UserObject;
    try {
      user = await this.passwords.authenticate(c.login, c.password, client, 'basic');
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      // KubeSphere answers every refusal of Basic credentials, a lockout included, with 401 and the reason. A colon
      // meant to be part of the user name ends up in the password (RFC 7617 splits at the first one): say so.
      const hint =
        err.message === DESCRIPTIONS.incorrectPassword && c.password.includes(':')
          ? ' (Basic credentials are split at the first ":", so a user name cannot contain one)'
          : '';
      throw unauthorized(`Unauthorized: ${err.message}${hint}`);
    }
    if (isActive(user)) await this.verified.remember(digest, user);
    return user;
  }
}
