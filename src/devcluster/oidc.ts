// OIDC trust, as kube-apiserver's --oidc-* flags: a bearer token that is a JWT from the configured issuer, signed by
// a key of the issuer's JWKS (found through its discovery document, fetched on first use, cached, fetched again when
// a token names an unknown `kid`), with `iss` the issuer, `aud` containing the client id and `exp` in the future,
// authenticates as the user its username claim names. Tokens from other issuers are not ours and fall through.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createLocalJWKSet, decodeJwt, errors, type JWTPayload, jwtVerify } from 'jose';
import type { Logger } from 'pino';
import type { UserInfo } from './http/authenticate.ts';

export interface OidcOptions {
  issuerUrl: string;
  clientId: string;
  /** Default `sub`. */
  usernameClaim?: string;
  /** Default `<issuer>#` unless the username claim is `email`; `-` for none. */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  /** PEM bundle to trust for the issuer instead of the system's roots. */
  caFile?: string;
}

const FETCH_TIMEOUT_MS = 5000;
const MAX_DOCUMENT_BYTES = 1 << 20;
/** A token naming an unknown kid refetches the JWKS at most this often (a stream of bogus kids costs nothing). */
const REFETCH_COOLDOWN_MS = 10_000;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA'];

type Keys = ReturnType<typeof createLocalJWKSet>;

/** Checks the options as kube-apiserver does at start-up; throws a message naming the flag. */
export function checkOidcOptions(o: OidcOptions): void {
  let url: URL;
  try {
    url = new URL(o.issuerUrl);
  } catch {
    throw new Error(`--oidc-issuer-url: not a URL: ${o.issuerUrl}`);
  }
  if (url.protocol !== 'https:') throw new Error('--oidc-issuer-url must use the https scheme');
  if (!o.clientId) throw new Error('--oidc-client-id is required with --oidc-issuer-url');
}

export class OidcAuthenticator {
  private readonly ca: string | undefined;
  private keys: Keys | undefined;
  private loading: Promise<Keys> | undefined;
  private fetchedAt = 0;

  constructor(
    private readonly opts: OidcOptions,
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
  ) {
    checkOidcOptions(opts);
    this.ca = opts.caFile ? readFileSync(opts.caFile, 'utf8') : undefined;
  }

  /** The user a bearer token proves, or undefined (not from this issuer, or not valid). */
  async authenticate(token: string): Promise<UserInfo | undefined> {
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return undefined;
    }
    if (iss !== this.opts.issuerUrl) return undefined;
    try {
      return this.userOf(await this.verify(token));
    } catch (err) {
      // The reason, never the token.
      this.logger?.info({ reason: (err as Error).message }, 'oidc token refused');
      return undefined;
    }
  }

  private async verify(token: string): Promise<JWTPayload> {
    const options = { issuer: this.opts.issuerUrl, audience: this.opts.clientId, algorithms: ALGORITHMS };
    const keys = this.keys ?? (await this.load());
    try {
      return (await jwtVerify(token, keys, options)).payload;
    } catch (err) {
      const stale = this.now() - this.fetchedAt >= REFETCH_COOLDOWN_MS;
      if (!(err instanceof errors.JWKSNoMatchingKey) || !stale) throw err;
      return (await jwtVerify(token, await this.load(), options)).payload;
    }
  }

  /** Discovery, then the JWKS; concurrent callers share one fetch. */
  private load(): Promise<Keys> {
    this.loading ??= (async () => {
      try {
        const discovery = await this.getJson(
          `${this.opts.issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`,
        );
        if (discovery.issuer !== this.opts.issuerUrl)
          throw new Error(`discovery names issuer ${String(discovery.issuer)}, not ${this.opts.issuerUrl}`);
        if (typeof discovery.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
        const jwks = await this.getJson(discovery.jwks_uri);
        this.keys = createLocalJWKSet(jwks as unknown as Parameters<typeof createLocalJWKSet>[0]);
        this.fetchedAt = this.now();
        return this.keys;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  private getJson(url: string): Promise<Record<string, unknown>> {
    if (!url.startsWith('https://')) return Promise.reject(new Error(`refusing to fetch ${url}: not https`));
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { ca: this.ca, timeout: FETCH_TIMEOUT_MS, headers: { Accept: 'application/json' } },
        (res) => {
          let size = 0;
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_DOCUMENT_BYTES) req.destroy(new Error(`${url}: document too large`));
            else chunks.push(c);
          });
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`${url}: HTTP ${res.statusCode}`));
            try {
              const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
              if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
                throw new Error('not an object');
              resolve(doc as Record<string, unknown>);
            } catch (err) {
              reject(new Error(`${url}: ${(err as Error).message}`));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${url}: no answer in ${FETCH_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  private userOf(claims: JWTPayload): UserInfo {
    const o = this.opts;
    const claim = o.usernameClaim ?? 'sub';
    const name = claims[claim];
    if (typeof name !== 'string' || name === '') throw new Error(`claim ${claim} is missing or not a string`);
    if (claim === 'email' && claims.email_verified !== undefined && claims.email_verified !== true)
      throw new Error('email not verified');
    const prefix =
      o.usernamePrefix === '-' ? '' : (o.usernamePrefix ?? (claim === 'email' ? '' : `${o.issuerUrl}#`));
    const raw = o.groupsClaim ? claims[o.groupsClaim] : undefined;
    const groups =
      typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw.filter((g) => typeof g === 'string') : [];
    return {
      name: `${prefix}${name}`,
      groups: [...groups.map((g) => `${o.groupsPrefix ?? ''}${g}`), 'system:authenticated'],
    };
  }
}
