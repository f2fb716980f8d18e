// An /oauth/authorize request (RFC 6749 4.1.1 and 4.2.1, RFC 7636, OpenID Connect Core 3.1.2.1), checked in the
// order that keeps it from being an open redirect (KubeSphere's item 8): the client and its redirect URI first, and
// until both are known to be registered, errors are shown to the user (AuthorizePageError), never redirected. Only
// then are errors sent back to the client's redirect URI (AuthorizeRedirectError).
import type { OAuthClient } from '../../config/index.ts';
import type { ClientRegistry } from './clients.ts';

export type ResponseType = 'code' | 'token';

export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  /** Whether the request named its redirect_uri (then the token request must name the same, RFC 6749 4.1.3). */
  redirectUriGiven: boolean;
  responseType: ResponseType;
  scopes: string[];
  state?: string;
  nonce?: string;
  /** The PKCE S256 challenge (RFC 7636). */
  codeChallenge?: string;
  /** OpenID Connect `prompt`: `none` (never show the sign-in page) or `login` (always). */
  prompt?: 'none' | 'login';
}

/** An error about the client or the redirect URI itself: answered on a page (or JSON), never redirected. */
export class AuthorizePageError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
    this.name = 'AuthorizePageError';
  }
}

/** An error sent back to the client's (registered) redirect URI with `error`, `error_description` and `state`. */
export class AuthorizeRedirectError extends Error {
  constructor(
    readonly request: Pick<AuthorizeRequest, 'redirectUri' | 'responseType' | 'state'>,
    readonly error: string,
    description: string,
  ) {
    super(description);
    this.name = 'AuthorizeRedirectError';
  }
}

/** Longest parameter value accepted (a state or nonce is a few dozen characters; URIs stay under this). */
const MAX_PARAM_LENGTH = 2048;
/** RFC 7636 4.2: BASE64URL(SHA256(verifier)) is 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
] as const;
type Param = (typeof PARAMS)[number];

/**
 * The parameters as single strings. A repeated parameter is refused (RFC 6749 3.1) before anything else, on the
 * page: which of two redirect URIs would be trusted?
 */
function singleValued(raw: Record<string, unknown>): Partial<Record<Param, string>> {
  const out: Partial<Record<Param, string>> = {};
  for (const name of PARAMS) {
    const v = raw[name];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw new AuthorizePageError(400, 'invalid_request', `${name} is repeated`);
    if (v.length > MAX_PARAM_LENGTH)
      throw new AuthorizePageError(400, 'invalid_request', `${name} is too long`);
    if (v !== '') out[name] = v;
  }
  return out;
}

/**
 * The registered redirect URI the request names, or the only one registered when it names none (RFC 6749 3.1.2.3).
 * Comparison is exact, character for character. A `*` entry (KubeSphere's chart default) counts only when the
 * operator allowed it (`allowWildcardRedirectURIs`), and then for http(s) URIs the request names.
 */
export function registeredRedirectUri(
  client: OAuthClient,
  requested: string | undefined,
  allowWildcard: boolean,
): string | undefined {
  const exact = client.redirectURIs.filter((u) => u !== '*' && URL.canParse(u) && !u.includes('#'));
  if (requested === undefined) return exact.length === 1 ? exact[0] : undefined;
  if (exact.includes(requested)) return requested;
  if (allowWildcard && client.redirectURIs.includes('*') && URL.canParse(requested)) {
    const u = new URL(requested);
    if ((u.protocol === 'https:' || u.protocol === 'http:') && !u.hash) return requested;
  }
  return undefined;
}

export function parseAuthorizeRequest(
  raw: Record<string, unknown>,
  clients: ClientRegistry,
  allowWildcard: boolean,
): AuthorizeRequest {
  const p = singleValued(raw);
  if (!p.client_id) throw new AuthorizePageError(400, 'invalid_request', 'client_id is required');
  const client = clients.get(p.client_id);
  if (!client) throw new AuthorizePageError(400, 'invalid_client', 'the OAuth client was not found');
  const redirectUri = registeredRedirectUri(client, p.redirect_uri, allowWildcard);
  if (!redirectUri) {
    throw new AuthorizePageError(
      400,
      'invalid_request',
      p.redirect_uri
        ? 'redirect_uri is not registered for this client'
        : 'redirect_uri is required: the client has no single registered redirect URI',
    );
  }
  const responseType = p.response_type === 'token' ? 'token' : 'code';
  const back = { redirectUri, responseType, state: p.state } as const;
  const refuse = (error: string, description: string) => new AuthorizeRedirectError(back, error, description);
  if (!p.response_type) throw refuse('invalid_request', 'response_type is required');
  if (p.response_type !== 'code' && p.response_type !== 'token') {
    throw refuse(
      'unsupported_response_type',
      'response_type must be code (or token where the client allows it)',
    );
  }
  if (responseType === 'token' && !client.allowImplicitGrant) {
    throw refuse('unauthorized_client', 'this client may not use the implicit grant (response_type=token)');
  }
  if (p.prompt !== undefined && p.prompt !== 'none' && p.prompt !== 'login') {
    throw refuse('invalid_request', 'prompt must be none or login');
  }
  const request: AuthorizeRequest = {
    clientId: client.name,
    redirectUri,
    redirectUriGiven: p.redirect_uri !== undefined,
    responseType,
    scopes: (p.scope ?? '').split(' ').filter(Boolean),
    ...(p.state !== undefined ? { state: p.state } : {}),
    ...(p.nonce !== undefined ? { nonce: p.nonce } : {}),
    ...(p.prompt !== undefined ? { prompt: p.prompt } : {}),
  };
  if (responseType === 'code') {
    // Absent, the method is `plain` (RFC 7636 4.3), which is refused: it protects nothing against a reader of the URL.
    if (p.code_challenge !== undefined && p.code_challenge_method !== 'S256') {
      throw refuse('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');
    }
    if (p.code_challenge === undefined && p.code_challenge_method !== undefined) {
      throw refuse('invalid_request', 'code_challenge is required with code_challenge_method');
    }
    if (p.code_challenge !== undefined && !S256_CHALLENGE.test(p.code_challenge)) {
      throw refuse('invalid_request', 'code_challenge must be 43 base64url characters (S256)');
    }
    // A client without a secret cannot authenticate at the token endpoint: PKCE is its only proof.
    if (p.code_challenge === undefined && client.secret === '') {
      throw refuse('invalid_request', 'code_challenge (PKCE, S256) is required for this client');
    }
    if (p.code_challenge !== undefined) request.codeChallenge = p.code_challenge;
  }
  return request;
}

/** The redirect URI with the answer added: in the query for the code flow, in the fragment for the implicit one. */
export function redirectWith(
  request: Pick<AuthorizeRequest, 'redirectUri' | 'responseType' | 'state'>,
  params: Record<string, string>,
): string {
  const all = new URLSearchParams(params);
  if (request.state !== undefined) all.set('state', request.state);
  if (request.responseType === 'token') return `${request.redirectUri.split('#')[0]}#${all.toString()}`;
  const url = new URL(request.redirectUri);
  for (const [k, v] of all) url.searchParams.set(k, v);
  return url.toString();
}
