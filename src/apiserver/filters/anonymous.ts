// The anonymous allow-list: the ONLY paths served without a bearer token. Everything else gets 401 without one.
// To add a public path, add ONE line below (exact path in ANONYMOUS_PATHS, or a prefix ending in `/` in
// ANONYMOUS_PREFIXES). Matching is on the raw request path (no query), exact and case-sensitive.

/** Exact paths. */
export const ANONYMOUS_PATHS: readonly string[] = [
  '/oauth/token', // token issuance: the client authenticates with its own credentials
  '/oauth/revoke', // RFC 7009 revocation: the client authenticates with its own credentials
  '/oauth/keys', // public keys (JWKS)
  '/healthz',
  '/livez',
  '/readyz',
  '/version',
  '/kapis/version',
  '/kapi/version',
  '/swagger-ui', // Swagger UI page
];

/** Prefixes: every path that starts with one of these (each ends with `/`). */
export const ANONYMOUS_PREFIXES: readonly string[] = [
  '/oauth/.well-known/', // OIDC discovery
  '/swagger-ui/', // Swagger UI assets and the two swagger documents
];

const EXACT = new Set(ANONYMOUS_PATHS);

/**
 * True when `path` (raw, without query) may be served anonymously. Paths with dot segments or encoded dots/slashes
 * never match, so `/healthz/../api/v1/secrets`-style tricks cannot borrow an allowed prefix.
 */
export function isAnonymousPath(path: string): boolean {
  if (EXACT.has(path)) return true;
  if (/(^|\/)\.\.?(\/|$)|%2e|%2f|%5c|\\/i.test(path)) return false;
  return ANONYMOUS_PREFIXES.some((p) => path.startsWith(p));
}
