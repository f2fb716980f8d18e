// Route registration for the aggregated APIs: every route is served under /kapis and the groupless-prefixed /kapi
// alias (KubeSphere serves the aggregated API under both prefixes), carries a schema for the swagger document, and
// serialises its answer with JSON.stringify so a schema can never drop fields of a Kubernetes object.
// Route schema fields of @fastify/swagger (tags, summary, operationId, hide) on FastifySchema.
import type {} from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import { notFoundMessage } from '../../k8s/status.ts';

export interface KapisRoute {
  method: HTTPMethods;
  /** Path below the prefix, e.g. `/resources.kubesphere.io/v1alpha3/{resources}` written with `:param`. */
  path: string;
  schema: FastifySchema;
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

const jsonSerializer = () => (data: unknown) => JSON.stringify(data);

/** A path parameter must name one object: a non-empty single segment that no hop could resolve as a path. */
function isOneSegment(value: unknown): boolean {
  return typeof value === 'string' && value !== '' && value !== '.' && value !== '..' && !value.includes('/');
}

/**
 * The route's handler behind a check of its path parameters. Fastify matches `:name` to the empty string, so
 * `DELETE .../users/` would reach the handler with name "" and the orchestrator with the collection path (a delete
 * of every user): such a request names no object and is a 404, as for any unknown path.
 */
function withNamedParams(route: KapisRoute): KapisRoute['handler'] {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  if (names.length === 0) return route.handler;
  return (request, reply) => {
    const params = request.params as Record<string, unknown>;
    if (!names.every((n) => isOneSegment(params[n]))) {
      return Promise.reject(notFoundMessage('the server could not find the requested resource'));
    }
    return route.handler(request, reply);
  };
}

export function registerKapisRoute(
  app: FastifyInstance,
  route: KapisRoute,
  prefixes = ['/kapis', '/kapi'],
): void {
  const handler = withNamedParams(route);
  for (const prefix of prefixes) {
    app.route({
      method: route.method,
      url: `${prefix}${route.path}`,
      // The /kapi alias is documented once, under /kapis.
      schema: prefix === '/kapis' ? route.schema : { ...route.schema, hide: true },
      serializerCompiler: jsonSerializer,
      // Handlers validate (queries with KubeSphere's rules, bodies field by field) and answer 400 Status.
      validatorCompiler: () => () => true,
      handler,
    });
  }
}
