// GET /metrics (Kubernetes convention) and GET /kapis/metrics (where KubeSphere serves them). Both go through the
// whole filter chain: a caller needs a token whose user may `get` the non-resource URL, as on kube-apiserver.
import type { FastifyInstance } from 'fastify';
import type { ApiMetrics } from './index.ts';

export const METRICS_PATHS = ['/metrics', '/kapis/metrics'] as const;

export function registerMetricsRoutes(app: FastifyInstance, metrics: ApiMetrics): void {
  for (const path of METRICS_PATHS) {
    app.get(path, async (_request, reply) => {
      const text = await metrics.render();
      reply.type(metrics.registry.contentType);
      return text;
    });
  }
}
