// The /kapis fallback (reference 6.2): a request under /kapis that no route matches, naming
// `{group}/{version}/[namespaces/{ns}/]{resources}[/{name}]` of an eligible type (eligibility.ts), is served from the
// informer cache (GET) or forwarded (POST, PUT, PATCH, DELETE; write.ts). A path some route matches with another method
// is a 405; anything else a 404, always as a Status. The authorizer has already judged the request as the resource
// it names (request info derives group, resource and namespace from /kapis paths as from /apis ones).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { methodNotAllowed } from '../../../k8s/status.ts';
import type { ServerContext } from '../../context.ts';
import { def } from '../resources/defs.ts';
import { Discovery } from '../resources/discovery.ts';
import { getTarget, listTarget, syncedInformer } from './read.ts';
import { RouteTable } from './route-table.ts';
import { resolveTarget } from './target.ts';
import { writeTarget } from './write.ts';

const PREFIX = '/kapis/';
const WILDCARD = '/kapis/*';
const NAMESPACES = def('namespaces', '', 'v1', false);
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

/** Installs the fallback; call it before the other /kapis routes are registered (it records them). */
export function registerKapisFallback(app: FastifyInstance, ctx: ServerContext): void {
  const routes = new RouteTable();
  routes.track(app, PREFIX, WILDCARD);
  const discovery = new Discovery(ctx.cluster);

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const info = request.requestInfo;
    const methods = routes.methodsFor(info.path);
    if (methods.size > 0) {
      reply.header('allow', [...methods].join(', '));
      throw methodNotAllowed();
    }
    const crds = ctx.cache.informer(CRDS);
    const target = await resolveTarget(info, discovery, crds, () => syncedInformer(ctx.cache, NAMESPACES));
    reply.type('application/json; charset=utf-8');
    if (target.verb === 'list') {
      const q = request.url.indexOf('?');
      return listTarget(ctx.cache, target, q < 0 ? '' : request.url.slice(q + 1));
    }
    if (target.verb === 'get') return getTarget(ctx.cache, target, target.name ?? '');
    await writeTarget(ctx, request, target);
    return 'null';
  };

  app.register(async (scope) => {
    // PATCH bodies may come as merge patches; both are plain JSON to the fallback.
    scope.addContentTypeParser(
      'application/merge-patch+json',
      { parseAs: 'string' },
      scope.getDefaultJsonParser('error', 'error'),
    );
    scope.route({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: WILDCARD,
      schema: { hide: true },
      handler,
    });
  });
}
