// Where kapiserver is reached from outside, for the OpenID Connect issuer and the absolute endpoint URLs of discovery.
// `oauthOptions.issuer` is KubeSphere's: the `iss` of every token, `kubesphere` by default, which is no URL. When it
// is an http(s) URL it is also the OpenID Connect issuer (https://ks.example.com/oauth, as KubeSphere's discovery
// appends /authorize, /token ... to it; or https://ks.example.com). Otherwise `oauthOptions.externalURL` says where
// kapiserver is reached and the issuer is <externalURL>/oauth; with neither, the origin the request was sent to
// (development only: the Host header is the client's to choose).
import type { OAuthOptions } from '../../config/index.ts';

export interface OidcEndpoints {
  /** The OpenID Connect issuer: `iss` of ID tokens, the prefix of its discovery document's address. */
  issuer: string;
  /** Absolute URL of kapiserver's root, without a trailing slash: endpoints are <base>/oauth/... */
  base: string;
}

const withoutTrailingSlash = (s: string) => s.replace(/\/+$/, '');

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.search && !u.hash;
  } catch {
    return false;
  }
}

export function oidcEndpoints(o: OAuthOptions, requestOrigin: string): OidcEndpoints {
  if (isHttpUrl(o.issuer)) {
    const issuer = withoutTrailingSlash(o.issuer);
    return { issuer, base: issuer.replace(/\/oauth$/, '') };
  }
  const base = withoutTrailingSlash(o.externalURL ?? requestOrigin);
  return { issuer: `${base}/oauth`, base };
}

/** The discovery document (OpenID Connect Discovery 1.0): only what kapiserver implements. */
export function discoveryDocument(e: OidcEndpoints, implicitOffered: boolean): Record<string, unknown> {
  const url = (path: string) => `${e.base}/oauth/${path}`;
  return {
    issuer: e.issuer,
    authorization_endpoint: url('authorize'),
    token_endpoint: url('token'),
    userinfo_endpoint: url('userinfo'),
    jwks_uri: url('keys'),
    revocation_endpoint: url('revoke'),
    end_session_endpoint: url('logout'),
    response_types_supported: implicitOffered ? ['code', 'token'] : ['code'],
    response_modes_supported: implicitOffered ? ['query', 'fragment'] : ['query'],
    grant_types_supported: [
      'authorization_code',
      'refresh_token',
      'password',
      ...(implicitOffered ? ['implicit'] : []),
    ],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'profile', 'email'],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'name',
      'email',
      'preferred_username',
    ],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    prompt_values_supported: ['none', 'login'],
  };
}
