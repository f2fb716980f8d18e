// Route registration for the aggregated APIs: every route is served under /kapis and the groupless-prefixed /kapi
// alias (KubeSphere serves the aggregated API under both prefixes), carries a schema that documents it (swagger) and
// validates its body and path parameters (../validation.ts), and serialises its answer with JSON.stringify so a schema can never drop fields of a Kubernetes object.
// Route schema fields of @fastify/swagger (tags, summary, operationId, hide) on FastifySchema.
import type {} from '@fastify/swagger';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  HTTPMethods,
  preValidationAsyncHookHandler,
} from 'fastify';
import { notFoundMessage } from '../../k8s/status.ts';
import { statusFromValidation, typeboxValidatorCompiler } from '../validation.ts';

export interface KapisRoute {
  method: HTTPMethods;
  /** Path below the prefix, e.g. `/resources.kubesphere.io/v1alpha3/{resources}` written with `:param`. */
  path: string;
  schema: FastifySchema;
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

const jsonSerializer = () => (data: unknown) => JSON.stringify(data);

const validateSchema = typeboxValidatorCompiler();
/**
 * Bodies and path parameters are checked against the route schema (400 Status naming each field). List queries are
 * not: they follow KubeSphere's parsing rules (first value wins, its boolean spellings, unknown parameters are field
 * filters), which query.ts applies; their schema documents them.
 */
const validatorCompiler: typeof validateSchema = (route) =>
  route.httpPart === 'querystring' ? () => true : validateSchema(route);

/** A path parameter must name one object: a non-empty single segment that no hop could resolve as a path. */
function isOneSegment(value: unknown): boolean {
  return typeof value === 'string' && value !== '' && value !== '.' && value !== '..' && !value.includes('/');
}

/**
 * A check of the route's path parameters, run before its body is validated. Fastify matches `:name` to the empty
 * string, so `DELETE .../users/` would reach the handler with name "" and the orchestrator with the collection path
 * (a delete of every user): such a request names no object and is a 404, as for any unknown path.
 */
function namedParamsCheck(route: KapisRoute): preValidationAsyncHookHandler | undefined {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  if (names.length === 0) return undefined;
  return async (request) => {
    const params = request.params as Record<string, unknown>;
    if (!names.every((n) => isOneSegment(params[n]))) {
      throw notFoundMessage('the server could not find the requested resource');
    }
  };
}

export function registerKapisRoute(
  app: FastifyInstance,
  route: KapisRoute,
  prefixes = ['/kapis', '/kapi'],
): void {
  const preValidation = namedParamsCheck(route);
  for (const prefix of prefixes) {
    app.route({
      method: route.method,
      url: `${prefix}${route.path}`,
      // The /kapi alias is documented once, under /kapis.
      schema: prefix === '/kapis' ? route.schema : { ...route.schema, hide: true },
      serializerCompiler: jsonSerializer,
      validatorCompiler,
      schemaErrorFormatter: statusFromValidation,
      ...(preValidation && { preValidation }),
      handler: route.handler,
    });
  }
}
