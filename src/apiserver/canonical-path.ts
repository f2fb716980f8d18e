// The first step of the filter chain: a request path must mean the same thing to every hop. Dot segments, empty
// segments, encoded dots, slashes and backslashes could be resolved differently by the router, the authorizer and the
// orchestrator, so such paths are refused (400) before anything acts on them; so are paths that do not
// percent-decode to UTF-8 (refused first of all).
import { badRequest } from '../k8s/status.ts';

/** Dot segments, doubled slashes, encoded dots/slashes/backslashes: other hops may resolve them differently. */
const NON_CANONICAL = /(^|\/)\.\.?(\/|$)|\/\/|%2e|%2f|%5c|\\/i;

/** True when `path` (raw, without query) has none of the spellings above. */
export function isCanonicalPath(path: string): boolean {
  return !NON_CANONICAL.test(path);
}

/** Throws the 400 StatusError for a raw request path (no query) that does not percent-decode to UTF-8. */
export function checkDecodablePath(path: string): void {
  try {
    decodeURIComponent(path);
  } catch {
    throw badRequest('the request path is not valid percent-encoded UTF-8');
  }
}

/** Throws the 400 StatusError for a raw request path (no query) with one of the spellings above; else returns. */
export function checkCanonicalPath(path: string): void {
  if (!isCanonicalPath(path)) {
    throw badRequest(
      'the request path must not contain dot segments, empty segments or encoded slashes or dots',
    );
  }
}
