// Stage 4a: a resource request resolved to its served resource, then dispatched: review resources, TokenRequest,
// subresources, watch, or the handler of its verb.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import { httpWatchSink } from '../watch.ts';
import type { Caller } from './authenticate.ts';
import { readDecodedBody } from './body.ts';
import type { Target } from './request-info.ts';
import type { ResourceDeps, ResourceRequest } from './resource-request.ts';
import { acceptOf, checkAcceptable, notFound, sendJson } from './respond.ts';
import { type Authority, review } from './reviews.ts';
import { isTokenRequest, serveSubresource, serveTokenRequest } from './subresources.ts';
import { isWatch, VERB_HANDLERS, watch } from './verbs.ts';

export async function serveResource(
  deps: ResourceDeps,
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  query: URLSearchParams,
  caller: Caller,
  authority: Authority,
): Promise<void> {
  const d = deps.rest.registry.find(target.group, target.version, target.resource);
  // A cluster-scoped resource has no route under /namespaces/{ns}/ (the namespace itself is parsed without one).
  if (!d || (target.namespace !== undefined && !d.namespaced)) throw notFound();
  const accept = acceptOf(req);
  checkAcceptable(accept);
  const method = req.method ?? 'GET';
  const ns = d.namespaced ? target.namespace : undefined;
  const r: ResourceRequest = { req, res, method, accept, query, target, d, ns };

  if (d.virtual) {
    if (method !== 'POST' || target.name) throw methodNotAllowed();
    const body = await readDecodedBody(req);
    sendJson(res, 201, await review(d, isObj(body) ? body : {}, { ...authority, user: caller.user }));
    return;
  }
  if (isTokenRequest(deps, r)) return serveTokenRequest(deps, r);
  if (target.subresource) return serveSubresource(deps, r);
  if (isWatch(r)) return watch(deps, r, httpWatchSink(res));
  const handler = Object.hasOwn(VERB_HANDLERS, method) ? VERB_HANDLERS[method] : undefined;
  if (!handler) throw methodNotAllowed();
  await handler(deps, r);
}
