// Where /oauth/logout may send the browser afterwards. KubeSphere follows any post_logout_redirect_uri (its default
// client registers `*`), which makes logout an open redirect: a link on kapiserver's host that lands on a phishing
// page. Here the URI must equal, character for character, a redirect URI registered for a client, or be a page of
// kapiserver's own origin. `*` and prefix patterns are never honoured for this redirect.
import type { OAuthClient } from '../../config/index.ts';

/**
 * True when `uri` (already parsed as `target`) may be redirected to: exact match with a registered URI of the
 * `clients` given, or same origin as `ownOrigin` (scheme://host[:port] the request came to).
 */
export function logoutRedirectAllowed(
  uri: string,
  target: URL,
  clients: readonly OAuthClient[],
  ownOrigin: string,
): boolean {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return false;
  if (target.origin === ownOrigin) return true;
  return clients.some((c) => c.redirectURIs.some((registered) => registered !== '*' && registered === uri));
}
