// /healthz, /livez, /readyz in the Kubernetes style: plain `ok`, `?verbose` lists each check.
import type { FastifyInstance } from 'fastify';
import type { Readiness } from './readiness.ts';

export function registerHealthRoutes(app: FastifyInstance, readiness: Readiness): void {
  const alive = async (request: { query: unknown }, reply: { type: (t: string) => unknown }) => {
    reply.type('text/plain; charset=utf-8');
    return 'verbose' in (request.query as object) ? '[+]ping ok\nhealthz check passed\n' : 'ok';
  };
  app.get('/healthz', alive);
  app.get('/livez', alive);
  app.get('/readyz', async (request, reply) => {
    const { ready, results } = await readiness.evaluate();
    reply.code(ready ? 200 : 503).type('text/plain; charset=utf-8');
    if ('verbose' in (request.query as object) || !ready) {
      const lines = results.map((r) => `[${r.ok ? '+' : '-'}]${r.name} ${r.ok ? 'ok' : 'failed'}`);
      return `${lines.join('\n')}\nreadyz check ${ready ? 'passed' : 'failed'}\n`;
    }
    return 'ok';
  });
}
