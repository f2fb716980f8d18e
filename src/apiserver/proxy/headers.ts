// Header hygiene for everything forwarded to the orchestrator (plain requests and upgrades alike):
//  - the client's credentials (Authorization, cookies) never travel on; kapiserver's own cluster credentials do;
//  - every client-sent Impersonate-* header is dropped (a user must never borrow kapiserver's rights; kapiserver
//    applies impersonation itself, filters/impersonation.ts), as are the front-proxy identity headers (X-Remote-*) a
//    cluster might trust from kapiserver's client certificate;
//  - hop-by-hop headers (RFC 9110 7.6.1) and everything the Connection header names are dropped, and so is Expect:
//    Node's server has already answered the client's `100-continue`, so the body comes with the forwarded request
//    (undici refuses to send Expect at all);
//  - optionally the authenticated user is passed on with Impersonate-User/-Group/-Uid/-Extra-*.
import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from '../request.ts';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);
const CREDENTIALS = new Set(['authorization', 'cookie']);

export type OutgoingHeaders = Record<string, string | string[]>;

function isDropped(name: string): boolean {
  return (
    HOP_BY_HOP.has(name) ||
    CREDENTIALS.has(name) ||
    name === 'expect' ||
    name.startsWith('impersonate-') ||
    name.startsWith('x-remote-') ||
    name.startsWith(':')
  );
}

/** Names listed in the Connection header (they are hop-by-hop too). */
function connectionListed(headers: IncomingHttpHeaders): Set<string> {
  const v = headers.connection;
  const out = new Set<string>();
  for (const part of (Array.isArray(v) ? v.join(',') : (v ?? '')).split(',')) {
    const n = part.trim().toLowerCase();
    if (n) out.add(n);
  }
  return out;
}

/**
 * An extra key as a header name: percent-encoded (as client-go) wherever it is not a header token character, so any
 * key, including one a caller chose with Impersonate-Extra-%28, stays a valid header name.
 */
function extraKeyHeader(key: string): string {
  return encodeURIComponent(key)
    .replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .toLowerCase();
}

export interface ForwardIdentity {
  /** kapiserver's Authorization value for the orchestrator (undefined: client certificates or none). */
  authorization?: string;
  /** Set when impersonation is on: the user the orchestrator should act as. */
  impersonate?: UserInfo;
}

/** A Connection value that lists nothing but keep-alive (itself hop-by-hop): the usual one, nothing to parse. */
const ONLY_KEEP_ALIVE = /^[ \t]*keep-alive[ \t]*$/i;

/** connectionListed, or undefined when the Connection header names nothing the hop-by-hop rules do not drop. */
function extraConnectionListed(headers: IncomingHttpHeaders): Set<string> | undefined {
  const v = headers.connection;
  if (v === undefined || (typeof v === 'string' && ONLY_KEEP_ALIVE.test(v))) return undefined;
  return connectionListed(headers);
}

/** Whether header `name` (lower case) stays behind: dropped by the rules above, or listed in Connection. */
function staysBehind(name: string, listed: ReadonlySet<string> | undefined): boolean {
  return isDropped(name) || listed?.has(name) === true;
}

/** kapiserver's own credentials, and the impersonated identity when impersonation is on. */
function setIdentity(out: Record<string, unknown>, identity: ForwardIdentity): void {
  if (identity.authorization) out.authorization = identity.authorization;
  const user = identity.impersonate;
  if (!user) return;
  out['impersonate-user'] = user.name;
  if (user.groups.length > 0) out['impersonate-group'] = [...user.groups];
  if (user.uid) out['impersonate-uid'] = user.uid;
  for (const [k, v] of Object.entries(user.extra ?? {})) {
    out[`impersonate-extra-${extraKeyHeader(k)}`] = [...v];
  }
}

/**
 * Headers to send upstream. `keepUpgrade` keeps Connection: Upgrade + Upgrade for an upgrade tunnel (their values
 * are re-set from the client's, other Connection-listed names are still dropped). `host` is left to the caller.
 */
export function forwardHeaders(
  headers: IncomingHttpHeaders,
  identity: ForwardIdentity,
  opts: { keepUpgrade?: boolean } = {},
): OutgoingHeaders {
  const listed = connectionListed(headers);
  const out: OutgoingHeaders = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || name === 'host' || staysBehind(name, listed)) continue;
    out[name] = value;
  }
  if (opts.keepUpgrade && typeof headers.upgrade === 'string') {
    out.connection = 'Upgrade';
    out.upgrade = headers.upgrade;
  }
  setIdentity(out, identity);
  return out;
}

/**
 * forwardHeaders' rules applied in place to `copy`, a copy of the client's `original` headers that the forwarding
 * path already owns (no second object per request): names that stay behind become undefined, which undici skips;
 * `host` is left as it is. `original` still has the Connection header the copy may have lost.
 */
export function rewriteForUpstream<T extends Record<string, unknown>>(
  copy: T,
  original: IncomingHttpHeaders,
  identity: ForwardIdentity,
): T {
  const listed = extraConnectionListed(original);
  const out = copy as Record<string, unknown>;
  for (const name in out) {
    if (name !== 'host' && staysBehind(name.toLowerCase(), listed)) out[name] = undefined;
  }
  setIdentity(out, identity);
  return copy;
}

/** The same rule in place, on response headers the caller owns (pass-through.ts): hop-by-hop ones are deleted. */
export function stripResponseHopByHop(headers: Record<string, string | string[] | undefined>): void {
  const listed = extraConnectionListed(headers as IncomingHttpHeaders);
  for (const name in headers) {
    const n = name.toLowerCase();
    if (HOP_BY_HOP.has(n) || listed?.has(n) === true) delete headers[name];
  }
}

/** Response headers: hop-by-hop ones are not copied back to the client. */
export function responseHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const listed = connectionListed(headers as IncomingHttpHeaders);
  for (const [name, value] of Object.entries(headers)) {
    const n = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(n) || listed.has(n)) continue;
    out[n] = value;
  }
  return out;
}
