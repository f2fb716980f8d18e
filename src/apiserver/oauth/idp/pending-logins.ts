// Redirect sign-ins in flight: GET /oauth/login/{idp} keeps {provider, nonce, PKCE verifier} under a random `state`
// in the token store (any replica may serve the callback) and ties the browser to it with a cookie; the callback
// takes the record once. A state that is unknown, expired, already used, for another provider or arriving in
// another browser (login CSRF: an attacker's code and state sent to a victim) is refused before the upstream is
// asked anything.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenStore } from '../store/index.ts';
import { providerRefused } from './identity.ts';

const KIND = 'idp-login';
/** Long enough to sign in upstream (a password, a second factor), short enough that a stolen state soon expires. */
export const PENDING_LOGIN_TTL_MS = 10 * 60 * 1000;
export const STATE_COOKIE = 'kapiserver_idp_state';

export interface PendingLogin {
  provider: string;
  nonce: string;
  codeVerifier: string;
  /** The pending /oauth/authorize request this sign-in continues (the sign-in page's button), if any. */
  authorization?: string;
}

const random = () => randomBytes(32).toString('base64url');
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');

export class PendingLogins {
  constructor(private readonly store: TokenStore) {}

  async begin(
    provider: string,
    authorization?: string,
  ): Promise<{ state: string; nonce: string; codeChallenge: string }> {
    const state = random();
    const pending: PendingLogin = { provider, nonce: random(), codeVerifier: random(), authorization };
    await this.store.putRecord(KIND, state, JSON.stringify(pending), PENDING_LOGIN_TTL_MS);
    return { state, nonce: pending.nonce, codeChallenge: s256(pending.codeVerifier) };
  }

  /** The pending login of `state`, removed so it works once; `cookie` is the state cookie the browser sent. */
  async take(provider: string, state: string, cookie: string | undefined): Promise<PendingLogin> {
    if (!state) throw providerRefused('the callback carries no state', 400);
    if (!cookie || !sameString(cookie, state)) {
      throw providerRefused('the sign-in was not started in this browser (state does not match)', 400);
    }
    // Taken atomically: of two callbacks racing with one state, only one continues.
    const value = await this.store.takeRecord(KIND, state);
    if (value === undefined)
      throw providerRefused('the sign-in is unknown, expired or already finished', 400);
    const pending = JSON.parse(value) as PendingLogin;
    if (pending.provider !== provider)
      throw providerRefused('the sign-in was started for another provider', 400);
    return pending;
  }
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
