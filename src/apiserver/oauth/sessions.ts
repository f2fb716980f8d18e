// Browser state of the sign-in page, server-side in the token store (every replica sees it, a restart keeps it):
//  - a pending authorization: the checked /oauth/authorize request waiting for the user to sign in, with the CSRF
//    token its form must send back (also set as a cookie: double submit, bound to this record);
//  - a sign-in session: who signed in and when, named by an HttpOnly cookie, so a later /oauth/authorize from the
//    same browser needs no password. A session is also recorded as a token of its user, so logout, a password
//    change, a disable or a deletion (revokeAll) ends it on every replica; and it is bound to the user's uid and
//    credentials like a token.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { UserObject, Users } from '../iam/users.ts';
import type { AuthorizeRequest } from './authorize-request.ts';
import { credentialGeneration } from './credentials.ts';
import type { TokenStore } from './store/index.ts';

/** How long the sign-in page's form stays usable. */
export const PENDING_TTL_MS = 10 * 60_000;
/** Sessions are short: they only spare a second password prompt to the same browser. */
export const SESSION_TTL_MS = 60 * 60_000;
export const SESSION_COOKIE = 'kapiserver_session';
export const CSRF_COOKIE = 'kapiserver_csrf';

export interface PendingAuthorization {
  request: AuthorizeRequest;
  csrf: string;
}

export interface SignInSession {
  username: string;
  uid?: string;
  cred: string;
  /** Epoch seconds of the sign-in. */
  authTime: number;
}

const newId = () => randomBytes(32).toString('base64url');

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export class SignInState {
  constructor(
    private readonly store: TokenStore,
    private readonly users: Users,
  ) {}

  /** Records a request awaiting sign-in; returns its id (in the form) and CSRF token (form and cookie). */
  async addPending(request: AuthorizeRequest): Promise<{ id: string; csrf: string }> {
    const id = newId();
    const csrf = newId();
    await this.store.putRecord('pending', id, JSON.stringify({ request, csrf }), PENDING_TTL_MS);
    return { id, csrf };
  }

  async pending(id: string): Promise<PendingAuthorization | undefined> {
    const v = id ? await this.store.getRecord('pending', id) : undefined;
    return v ? (JSON.parse(v) as PendingAuthorization) : undefined;
  }

  /** Ends the pending authorization and returns it; exactly one caller gets it, even when two sign-ins race. */
  async takePending(id: string): Promise<PendingAuthorization | undefined> {
    const v = id ? await this.store.takeRecord('pending', id) : undefined;
    return v ? (JSON.parse(v) as PendingAuthorization) : undefined;
  }

  async createSession(user: UserObject, now: number): Promise<string> {
    const id = newId();
    const session: SignInSession = {
      username: user.metadata.name,
      uid: user.metadata.uid,
      cred: credentialGeneration(user),
      authTime: Math.floor(now / 1000),
    };
    await this.store.putRecord('session', id, JSON.stringify(session), SESSION_TTL_MS);
    await this.store.add(session.username, id, SESSION_TTL_MS);
    return id;
  }

  /** The session and its user while both are valid: not revoked, same uid and credentials, not disabled. */
  async session(id: string): Promise<{ session: SignInSession; user: UserObject } | undefined> {
    const v = id ? await this.store.getRecord('session', id) : undefined;
    if (!v) return undefined;
    const session = JSON.parse(v) as SignInSession;
    if (!(await this.store.isActive(session.username, id))) return undefined;
    const user = this.users.get(session.username);
    if (!user || user.metadata.uid !== session.uid || credentialGeneration(user) !== session.cred)
      return undefined;
    if (user.status?.state === 'Disabled') return undefined;
    return { session, user };
  }

  async endSession(id: string): Promise<void> {
    const v = await this.store.getRecord('session', id);
    if (v) await this.store.revoke((JSON.parse(v) as SignInSession).username, id);
    await this.store.deleteRecord('session', id);
  }
}

/** The value of cookie `name` in a Cookie header, or ''. */
export function cookieValue(header: string | undefined, name: string): string {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}

/** A Set-Cookie value for /oauth: HttpOnly, SameSite=Lax, Secure over HTTPS; `maxAgeMs` 0 deletes it. */
export function setCookie(name: string, value: string, maxAgeMs: number, secure: boolean): string {
  const attrs = [
    `${name}=${value}`,
    'Path=/oauth',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
  ];
  if (secure) attrs.push('Secure');
  return attrs.join('; ');
}
