// Generic OpenID Connect upstream (redirect provider): discovery from `issuer`, the authorization-code flow with PKCE
// (S256), `state` and `nonce`, and the ID token verified before anything is believed: signature against the upstream's
// JWKS, iss (when an issuer is configured), aud (our client id; azp when there are several), exp/iat/nbf and the
// nonce. Claims are mapped with preferredUsernameKey and emailKey (KubeSphere's defaults), optionally merged with the
// userinfo answer whose `sub` must be the token's.
import { createRemoteJWKSet, customFetch, type FetchImplementation, type JWTPayload, jwtVerify } from 'jose';
import { fetch } from 'undici';
import { type ExternalIdentity, providerRefused, providerUnavailable } from './identity.ts';
import type { OAuthEndpoints, OidcSettings } from './settings.ts';
import { record, UpstreamHttp } from './upstream-http.ts';

/** How long a discovery document and key set are trusted before they are fetched again. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** Clock skew tolerated on the upstream's exp/iat/nbf. */
const CLOCK_TOLERANCE_S = 30;

export interface RedirectStart {
  state: string;
  nonce: string;
  codeChallenge: string;
}

export interface RedirectFinish {
  /** The callback's query. */
  query: Record<string, string>;
  nonce: string;
  codeVerifier: string;
}

interface Discovered {
  endpoint: OAuthEndpoints;
  basicAuth: boolean;
  at: number;
  keys: ReturnType<typeof createRemoteJWKSet>;
}

/** Scopes as the spec means them: openid first, then every configured one (KubeSphere dropped the rest). */
export function requestedScopes(configured: readonly string[], defaults: readonly string[]): string {
  const scopes = configured.length > 0 ? configured : defaults;
  return ['openid', ...scopes.filter((s) => s !== 'openid')].join(' ');
}

/** The upstream's refusal in the callback query (`error=access_denied`): said back, bounded, never trusted as HTML. */
export function upstreamError(provider: string, query: Record<string, string>) {
  if (!query.error) return undefined;
  const code = query.error.slice(0, 64).replace(/[^\x20-\x7e]/g, '');
  return providerRefused(`the identity provider "${provider}" refused the sign-in: ${code}`);
}

export class OidcIdentityProvider {
  readonly kind = 'redirect' as const;
  private readonly http: UpstreamHttp;
  private discovered?: Discovered;

  constructor(readonly settings: OidcSettings) {
    this.http = new UpstreamHttp(settings.name, settings.timeoutMs, settings.insecureSkipVerify);
  }

  get name(): string {
    return this.settings.name;
  }

  private async discover(): Promise<Discovered> {
    const s = this.settings;
    if (this.discovered && Date.now() - this.discovered.at < DISCOVERY_TTL_MS) return this.discovered;
    let endpoint = s.endpoint;
    let basicAuth = true;
    if (s.issuer) {
      const url = `${s.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
      const { status, body } = await this.http.get(url);
      const doc = record(body);
      // OIDC Discovery 4.3: the document's issuer must be exactly the one configured.
      if (status !== 200 || !doc || doc.issuer !== s.issuer) {
        throw providerUnavailable(
          s.name,
          new Error(`no valid discovery document at ${url} (HTTP ${status})`),
        );
      }
      const pick = (configured: string, key: string) =>
        configured || (typeof doc[key] === 'string' ? (doc[key] as string) : '');
      endpoint = {
        authURL: pick(s.endpoint.authURL, 'authorization_endpoint'),
        tokenURL: pick(s.endpoint.tokenURL, 'token_endpoint'),
        userInfoURL: pick(s.endpoint.userInfoURL, 'userinfo_endpoint'),
        jwksURL: pick(s.endpoint.jwksURL, 'jwks_uri'),
      };
      const methods = doc.token_endpoint_auth_methods_supported;
      basicAuth = !Array.isArray(methods) || methods.includes('client_secret_basic');
    }
    if (!endpoint.authURL || !endpoint.tokenURL || !endpoint.jwksURL) {
      throw providerUnavailable(s.name, new Error('no authorization, token or key endpoint'));
    }
    const viaUpstream: FetchImplementation = (url, options) =>
      fetch(url, {
        method: options.method,
        headers: Object.fromEntries(options.headers.entries()),
        redirect: 'error',
        signal: options.signal,
        dispatcher: this.http.dispatcher,
      }) as unknown as Promise<Response>;
    const keys = createRemoteJWKSet(new URL(endpoint.jwksURL), {
      timeoutDuration: s.timeoutMs,
      [customFetch]: viaUpstream,
    });
    this.discovered = { endpoint, basicAuth, at: Date.now(), keys };
    return this.discovered;
  }

  /** Where to send the browser. */
  async authorizeURL(start: RedirectStart): Promise<string> {
    const s = this.settings;
    const { endpoint } = await this.discover();
    const url = new URL(endpoint.authURL);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', s.clientID);
    url.searchParams.set('redirect_uri', s.redirectURL);
    url.searchParams.set('scope', requestedScopes(s.scopes, ['profile', 'email']));
    url.searchParams.set('state', start.state);
    url.searchParams.set('nonce', start.nonce);
    url.searchParams.set('code_challenge', start.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  /** Exchanges the callback's code and returns the verified identity. */
  async finish(f: RedirectFinish): Promise<ExternalIdentity> {
    const s = this.settings;
    const refusal = upstreamError(s.name, f.query);
    if (refusal) throw refusal;
    if (!f.query.code) throw providerRefused('the callback carries no code', 400);
    const d = await this.discover();
    const form: Record<string, string> = {
      grant_type: 'authorization_code',
      code: f.query.code,
      redirect_uri: s.redirectURL,
      code_verifier: f.codeVerifier,
    };
    const headers: Record<string, string> = {};
    if (d.basicAuth) {
      // RFC 6749 2.3.1: each part form-encoded before base64.
      const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
      headers.authorization = `Basic ${Buffer.from(`${enc(s.clientID)}:${enc(s.clientSecret)}`).toString('base64')}`;
    } else {
      form.client_id = s.clientID;
      form.client_secret = s.clientSecret;
    }
    const { status, body } = await this.http.postForm(d.endpoint.tokenURL, form, headers);
    const token = record(body);
    if (status !== 200 || !token || typeof token.id_token !== 'string') {
      const code = typeof token?.error === 'string' ? `: ${token.error.slice(0, 64)}` : '';
      throw providerRefused(`the identity provider "${s.name}" did not exchange the code${code}`);
    }
    const claims = await this.verify(d, token.id_token, f.nonce);
    if (s.getUserInfo && d.endpoint.userInfoURL && typeof token.access_token === 'string') {
      const info = await this.http.get(d.endpoint.userInfoURL, {
        authorization: `Bearer ${token.access_token}`,
      });
      const extra = record(info.body);
      // OIDC Core 5.3.2: a userinfo answer about another subject is discarded.
      if (info.status === 200 && extra && extra.sub === claims.sub)
        Object.assign(claims, extra, { sub: claims.sub });
    }
    return this.identityOf(claims);
  }

  private async verify(d: Discovered, idToken: string, nonce: string): Promise<JWTPayload> {
    const s = this.settings;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, d.keys, {
        issuer: s.issuer || undefined,
        audience: s.clientID,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['sub', 'exp', 'iat'],
        algorithms: [
          'RS256',
          'RS384',
          'RS512',
          'PS256',
          'PS384',
          'PS512',
          'ES256',
          'ES384',
          'ES512',
          'EdDSA',
        ],
      }));
    } catch (err) {
      const reason = (err as { code?: string }).code ?? 'ERR_JWT_INVALID';
      if (reason === 'ERR_JWKS_TIMEOUT') throw providerUnavailable(s.name, err);
      throw providerRefused(`the ID token from "${s.name}" is not valid (${reason})`);
    }
    // OIDC Core 3.1.3.7: with several audiences, azp must be us.
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== s.clientID) {
      throw providerRefused(`the ID token from "${s.name}" is not valid (azp)`);
    }
    if (payload.nonce !== nonce) throw providerRefused(`the ID token from "${s.name}" is not valid (nonce)`);
    return payload;
  }

  private identityOf(claims: JWTPayload): ExternalIdentity {
    const s = this.settings;
    const str = (k: string) => (typeof claims[k] === 'string' ? (claims[k] as string) : '');
    const uid = str('sub');
    const username = str(s.preferredUsernameKey) || str('name');
    if (!uid || !username)
      throw providerRefused(`the ID token from "${this.name}" names no subject or user name`);
    return { uid, username, email: str(s.emailKey) };
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
