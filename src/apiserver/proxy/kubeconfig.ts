// GET /kapis/resources.kubesphere.io/v1alpha2/users/{user}/kubeconfig (and the /kapi alias): a kubeconfig that
// points kubectl at kapiserver's HTTPS port, with the CA when kapiserver generated its own, and a credential of its
// own: a long-lived `kubeconfig` token (oauth/kubeconfig-credential.ts: a year, revoked with the user's other tokens,
// the same one on every download until then), never the caller's 2-hour access token. KubeSphere issues a client
// certificate instead; this is the same idea, revocable.
// The route needs `get users/kubeconfig` (own user: every user's role grants it); the credential is minted for the
// caller's own kubeconfig, or for another user's only when the caller may also `impersonate` that user (a right that
// already lets it act as them). Without it, and for any impersonated request, the kubeconfig has no credentials.
// Answered as YAML text, like KubeSphere.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { stringify } from 'yaml';
import { notFound, serviceUnavailable } from '../../k8s/status.ts';
import type { ServerContext } from '../context.ts';
import { mayImpersonateUser } from '../filters/impersonation.ts';
import type { UserObject } from '../iam/users.ts';
import { TokenStoreUnavailableError } from '../oauth/store/index.ts';

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
      // Authorization already ran (own user, or a role granting users/kubeconfig); the user must exist.
      const target = ctx.oauth.users.get(user);
      if (!target) throw notFound('iam.kubesphere.io', 'users', user);
      const endpoint = ctx.secureEndpoint;
      if (!endpoint) throw notFound('', 'kubeconfig', 'kapiserver serves no HTTPS port');
      const token = (await mayMint(ctx, request, user)) ? await mint(ctx, target) : undefined;
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

/** Whether the caller gets a working credential for `user`'s kubeconfig. Impersonated requests never mint. */
async function mayMint(ctx: ServerContext, request: FastifyRequest, user: string): Promise<boolean> {
  const caller = request.user;
  if (!caller || request.impersonator) return false;
  return caller.name === user || mayImpersonateUser(ctx, caller, user);
}

async function mint(ctx: ServerContext, user: UserObject): Promise<string> {
  const tokens = ctx.oauth.tokens;
  if (!tokens) throw serviceUnavailable('token issuance is starting; retry shortly');
  try {
    return await tokens.kubeconfigToken(user);
  } catch (err) {
    if (err instanceof TokenStoreUnavailableError) throw serviceUnavailable('the token store is unavailable');
    throw err;
  }
}
