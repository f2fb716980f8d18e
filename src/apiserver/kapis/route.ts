// Route registration for the aggregated APIs: every route is served under /kapis and the groupless-prefixed /kapi
// alias (seed section 1: both prefixes reach the aggregated API), carries a schema for the swagger document, and
// serialises its answer with JSON.stringify so a schema can never drop fields of a Kubernetes object.
// Route schema fields of @fastify/swagger (tags, summary, operationId, hide) on FastifySchema.
import type {} from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';

export interface KapisRoute {
  method: HTTPMethods;
  /** Path below the prefix, e.g. `/resources.kubesphere.io/v1alpha3/{resources}` written with `:param`. */
  path: string;
  schema: FastifySchema;
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

const jsonSerializer = () => (data: unknown) => JSON.stringify(data);

export function registerKapisRoute(
  app: FastifyInstance,
  route: KapisRoute,
  prefixes = ['/kapis', '/kapi'],
): void {
  for (const prefix of prefixes) {
    app.route({
      method: route.method,
      url: `${prefix}${route.path}`,
      // The /kapi alias is documented once, under /kapis.
      schema: prefix === '/kapis' ? route.schema : { ...route.schema, hide: true },
      serializerCompiler: jsonSerializer,
      // Handlers validate (queries with KubeSphere's rules, bodies field by field) and answer 400 Status.
      validatorCompiler: () => () => true,
      handler: route.handler,
    });
  }
}
