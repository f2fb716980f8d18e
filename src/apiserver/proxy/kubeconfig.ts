// GET /kapis/resources.kubesphere.io/v1alpha2/users/{user}/kubeconfig (and the /kapi alias): a kubeconfig that
// points kubectl at kapiserver's HTTPS port, with the CA when kapiserver generated its own, and the caller's own
// bearer token when the caller asks for their own kubeconfig (as KubeSphere serves it to the logged-in user). Others'
// kubeconfigs need a role that grants `get users/kubeconfig`; they come without a token (kapiserver never mints or
// hands out another user's credentials). Answered as YAML text, like KubeSphere.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { stringify } from 'yaml';
import { notFound } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { USERS_REF } from '../iam/users.ts';
import { bearerToken } from '../oauth/credentials.ts';

export const KUBECONFIG_PATH = '/resources.kubesphere.io/v1alpha2/users/:user/kubeconfig';

/** host[:port] the client used, with the port replaced by the secure port. */
function serverUrl(request: FastifyRequest, securePort: number): string {
  const host = request.hostname || '127.0.0.1';
  // request.hostname may carry the port (fastify 5 keeps it in request.host; hostname strips it)
  const bare = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return `https://${bare}:${securePort}`;
}

export function buildKubeconfig(opts: {
  server: string;
  caPem?: string;
  user: string;
  token?: string;
}): string {
  const cluster: Record<string, string> = { server: opts.server };
  if (opts.caPem) cluster['certificate-authority-data'] = Buffer.from(opts.caPem).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kapiserver', cluster }],
    users: [{ name: opts.user, user: opts.token ? { token: opts.token } : {} }],
    contexts: [{ name: `${opts.user}@kapiserver`, context: { cluster: 'kapiserver', user: opts.user } }],
    'current-context': `${opts.user}@kapiserver`,
    preferences: {},
  });
}

export function registerKubeconfigRoute(app: FastifyInstance, ctx: ServerContext): void {
  for (const prefix of ['/kapis', '/kapi']) {
    app.get(`${prefix}${KUBECONFIG_PATH}`, { schema: { hide: true } }, async (request, reply) => {
      const { user } = request.params as { user: string };
      const caller = request.user;
      // Authorization already ran (own user, or a role granting users/kubeconfig); the user must exist.
      if (!(await userExists(ctx, user))) throw notFound('iam.kubesphere.io', 'users', user);
      const endpoint = ctx.secureEndpoint;
      if (!endpoint) throw notFound('', 'kubeconfig', 'kapiserver serves no HTTPS port');
      // The caller's own token, only for their own kubeconfig: an impersonator's token never goes into another's.
      const own = caller?.name === user && !request.impersonator;
      const token = own ? bearerToken(request.headers.authorization) : undefined;
      reply.type('text/plain; charset=utf-8');
      return buildKubeconfig({
        server: serverUrl(request, endpoint.port),
        caPem: endpoint.caPem,
        user,
        token,
      });
    });
  }
}

async function userExists(ctx: ServerContext, name: string): Promise<boolean> {
  const inf = ctx.cache.informer(USERS_REF);
  await inf.waitForSync(10_000);
  return inf.get('', name) !== undefined;
}
