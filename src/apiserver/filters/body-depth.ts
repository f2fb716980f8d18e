// Bodies fastify parsed (JSON and merge patches on /kapis, /oauth) are refused past MAX_BODY_DEPTH levels of nesting
// before any handler walks them: escalation checks, patch engines and JSON.stringify all recurse, and a deep enough
// value would overflow the stack (a 500) instead of getting a 400. Proxied bodies are streams and never parsed here.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { MAX_BODY_DEPTH, tooDeep, valueNestsDeeperThan } from '../../k8s/bounded-decode.ts';

export function bodyDepthFilter(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const body = request.body;
  // Only parsed JSON (plain objects and arrays): a proxied body is the request stream itself.
  const parsed =
    typeof body === 'object' &&
    body !== null &&
    (Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype);
  if (parsed && valueNestsDeeperThan(body, MAX_BODY_DEPTH)) {
    done(tooDeep());
    return;
  }
  done();
}
