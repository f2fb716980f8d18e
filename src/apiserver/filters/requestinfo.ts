// Request info: classifies a method + URL once (like KubeSphere's RequestInfoFactory, itself modelled on the
// Kubernetes apiserver's), so authentication, authorization, audit and dispatch all read the same answer.

// The types live in ../request.ts, below the filters, so nothing imports upward.
import { parseLabelSelector } from '../../k8s/selectors.ts';
import { WORKSPACE_LABEL } from '../iam/labels.ts';
import type { RequestInfo } from '../request.ts';
import { resourceScopeOf, WORKSPACE_LABELLED_RESOURCES } from '../resource-scope.ts';

const API_PREFIXES = new Set(['api', 'apis', 'kapi', 'kapis']);
const GROUPLESS_PREFIXES = new Set(['api', 'kapi']);
const KUBERNETES_PREFIXES = new Set(['api', 'apis']);
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
/** Subresources of a namespace itself: /api/v1/namespaces/{ns}/status is the namespace's status, not a resource in it. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

function nonResource(method: string, path: string): RequestInfo {
  return {
    isResourceRequest: false,
    isKubernetesRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    cluster: '',
    workspace: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    resourceScope: 'Cluster',
  };
}

function isTrue(v: string | null): boolean {
  return v === 'true' || v === '1';
}

/**
 * Parses a request. `url` is the raw request target (path + query). Segments are percent-decoded after splitting,
 * so an encoded slash stays inside its segment and cannot change how the path is classified.
 */
export function parseRequestInfo(method: string, url: string): RequestInfo {
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  let segments: string[];
  try {
    segments = rawPath
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return nonResource(method, rawPath);
  }
  const info = nonResource(method, rawPath);
  if (segments.length === 0 || !API_PREFIXES.has(segments[0])) return info;
  // Dot segments would be resolved differently by other hops; treat the path as a non-resource request
  // (which authorization then checks as a plain URL) instead of guessing.
  if (segments.some((s) => s === '.' || s === '..')) return info;

  info.apiPrefix = segments[0];
  info.isKubernetesRequest = KUBERNETES_PREFIXES.has(info.apiPrefix);
  let parts = segments.slice(1);

  if (parts[0] === 'clusters' && parts.length > 1) {
    info.cluster = parts[1];
    parts = parts.slice(2);
  }

  if (!GROUPLESS_PREFIXES.has(info.apiPrefix)) {
    if (parts.length < 3) return { ...info, isResourceRequest: false, verb: method.toLowerCase() };
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  } else if (parts.length < 2) {
    return { ...info, isResourceRequest: false, verb: method.toLowerCase() };
  }
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  info.isResourceRequest = true;

  if (parts.length > 0 && SPECIAL_VERBS.has(parts[0])) {
    if (parts.length < 2) return { ...info, isResourceRequest: false, verb: method.toLowerCase() };
    info.verb = parts[0];
    parts = parts.slice(1);
  } else {
    info.verb = METHOD_VERBS[method.toUpperCase()] ?? method.toLowerCase();
  }

  if (parts[0] === 'workspaces' && parts.length > 1) {
    info.workspace = parts[1];
    if (parts.length > 2) parts = parts.slice(2);
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1];
      // /namespaces/{ns} and /namespaces/{ns}/status name the namespace object itself.
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
    }
  }

  info.parts = parts;
  // proxy takes the rest of the path as its own, so it never has a subresource.
  if (parts.length >= 3 && info.verb !== 'proxy') info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];

  if (info.name === '' && info.verb === 'get') {
    info.verb = isTrue(query.get('watch')) ? 'watch' : 'list';
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';

  // A list or watch narrowed to one object by name is a request on that name (as Kubernetes treats it).
  if (info.verb === 'list' || info.verb === 'watch') {
    const fs = query.get('fieldSelector');
    if (fs) {
      for (const req of fs.split(',')) {
        const m = /^metadata\.name(?:==?)(.*)$/.exec(req.trim());
        if (m) info.name = m[1];
      }
    }
  }

  // A watch of one workspace's namespaces (or workspace roles, bindings, groups) is judged in that workspace.
  if (info.verb === 'watch' && info.workspace === '' && WORKSPACE_LABELLED_RESOURCES.has(info.resource)) {
    info.workspace = workspaceSelected(query.get('labelSelector'));
  }
  info.resourceScope = resourceScopeOf(info);
  return info;
}

/**
 * The one workspace a label selector requires (`kubesphere.io/workspace=WS`, `==WS` or `in (WS)`, among any other
 * requirements); '' when it requires none, several, or does not parse (the orchestrator then refuses it).
 */
function workspaceSelected(selector: string | null): string {
  if (!selector) return '';
  let requirements: ReturnType<typeof parseLabelSelector>['requirements'];
  try {
    requirements = parseLabelSelector(selector).requirements;
  } catch {
    return '';
  }
  const named = new Set<string>();
  for (const r of requirements) {
    if (r.key !== WORKSPACE_LABEL) continue;
    if ((r.operator === 'Equals' || r.operator === 'In') && r.values.length === 1) named.add(r.values[0]);
    else if (r.operator === 'In') return '';
  }
  return named.size === 1 ? [...named][0] : '';
}
