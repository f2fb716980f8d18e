// Stage 1 of the dev cluster's front: the request path parsed once, the way the Kubernetes request-info resolver
// does, into what is asked for. Pure: whether a group or version is served is for the router to decide.
import type { ResourceTarget } from '../serviceaccounts.ts';

/** A resource request: which resource (and object, subresource) of which served group version. */
export interface Target extends ResourceTarget {
  version: string;
}

export type Route =
  | { kind: 'health' }
  | { kind: 'version' }
  /** `/api` (core) or `/apis`: the version or group list, or aggregated discovery. */
  | { kind: 'discoveryRoot'; core: boolean }
  /** `/apis/{group}` */
  | { kind: 'group'; group: string }
  /** `/api/v1`, `/apis/{group}/{version}` */
  | { kind: 'resourceList'; group: string; version: string }
  | { kind: 'resource'; target: Target }
  | { kind: 'openapi' }
  | { kind: 'notFound' };

export interface RequestInfo {
  path: string;
  query: URLSearchParams;
  route: Route;
}

export function parseRequestInfo(rawUrl: string | undefined): RequestInfo {
  const url = new URL(rawUrl ?? '/', 'https://devcluster');
  return { path: url.pathname, query: url.searchParams, route: routeOf(url.pathname) };
}

function routeOf(path: string): Route {
  if (path === '/healthz' || path === '/livez' || path === '/readyz') return { kind: 'health' };
  if (path === '/version' || path === '/version/') return { kind: 'version' };
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'api') {
    if (parts.length === 1) return { kind: 'discoveryRoot', core: true };
    if (parts[1] !== 'v1') return { kind: 'notFound' };
    if (parts.length === 2) return { kind: 'resourceList', group: '', version: 'v1' };
    return resourceRoute(parts.slice(2), '', 'v1');
  }
  if (parts[0] === 'apis') {
    if (parts.length === 1) return { kind: 'discoveryRoot', core: false };
    if (parts.length === 2) return { kind: 'group', group: parts[1] };
    if (parts.length === 3) return { kind: 'resourceList', group: parts[1], version: parts[2] };
    return resourceRoute(parts.slice(3), parts[1], parts[2]);
  }
  if (parts[0] === 'openapi') return { kind: 'openapi' };
  return { kind: 'notFound' };
}

function resourceRoute(parts: string[], group: string, version: string): Route {
  const target = parseResourcePath(parts, group, version);
  return target ? { kind: 'resource', target } : { kind: 'notFound' };
}

/** Parses a path below /api/v1 or /apis/g/v the way the Kubernetes request-info resolver does. */
function parseResourcePath(parts: string[], group: string, version: string): Target | undefined {
  let p = parts;
  let legacyWatch = false;
  if (p[0] === 'watch') {
    legacyWatch = true;
    p = p.slice(1);
  }
  if (p.length === 0) return undefined;
  let namespace: string | undefined;
  if (p[0] === 'namespaces' && p.length > 1) {
    namespace = p[1];
    if (p.length > 2 && p[2] !== 'status' && p[2] !== 'finalize') p = p.slice(2);
    else return { group, version, resource: 'namespaces', name: p[1], subresource: p[2], legacyWatch };
  }
  if (p.length > 3) return undefined;
  return { group, version, namespace, resource: p[0], name: p[1], subresource: p[2], legacyWatch };
}
