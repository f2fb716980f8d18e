// HTTP front of the dev cluster, in stages: parse the request into a request info, answer health and version,
// authenticate, impersonate, then route (discovery, OpenAPI, resources, authorized by RBAC unless the user is in
// system:masters; resource handlers decode their bodies). WebSocket watches pass the same stages. Every error
// becomes a Kubernetes Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { RbacAttributes } from '../k8s/rbac.ts';
import { forbidden, StatusError } from '../k8s/status.ts';
import { type Caller, createAuthenticator, isMaster, type UserInfo } from './http/authenticate.ts';
import { serveDiscoveryRoot, serveGroup, serveResourceList } from './http/discovery.ts';
import { impersonate } from './http/impersonate.ts';
import { serveOpenApi } from './http/openapi.ts';
import { parseRequestInfo, type RequestInfo, type Target } from './http/request-info.ts';
import { serveResource } from './http/resource.ts';
import type { ResourceDeps } from './http/resource-request.ts';
import { acceptOf, notFound, sendJson, sendStatus } from './http/respond.ts';
import { processesNotRun } from './http/subresources.ts';
import { serveWatchUpgrade } from './http/websocket-watch.ts';
import type { OidcAuthenticator } from './oidc.ts';

export const VERSION_INFO = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.1',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-05-15T00:00:00Z',
  goVersion: 'go1.24.2',
  compiler: 'gc',
  platform: `linux/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

const SELF_REVIEWS = new Set([
  'selfsubjectreviews.authentication.k8s.io',
  'selfsubjectaccessreviews.authorization.k8s.io',
  'selfsubjectrulesreviews.authorization.k8s.io',
]);

export interface HandlerDeps extends ResourceDeps {
  logger?: Logger;
  oidc?: OidcAuthenticator;
}

/** The server's `request` and `upgrade` (WebSocket watch) listeners, over the same stages. */
export interface Handlers {
  request(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export function createHandler(deps: HandlerDeps): Handlers {
  const authenticate = createAuthenticator(deps.token, deps.serviceAccounts, deps.oidc);
  // system:masters is never restricted (as kube-apiserver's authorizer bypass); everyone else gets what RBAC grants.
  const allows = (user: UserInfo, attrs: RbacAttributes) =>
    isMaster(user) || deps.serviceAccounts?.allows(user, attrs) === true;
  const identify = async (req: IncomingMessage): Promise<Caller> =>
    impersonate(req, await authenticate.request(req), allows);
  const authorize = (caller: Caller, req: IncomingMessage, t: Target, query: URLSearchParams) => {
    // Every user may review itself, as kube's bootstrap binding of system:basic-user to system:authenticated.
    if (isMaster(caller.user) || SELF_REVIEWS.has(`${t.resource}.${t.group}`)) return;
    if (!deps.serviceAccounts) throw forbidden(`User "${caller.user.name}" cannot use the dev cluster`);
    deps.serviceAccounts.authorize(caller.user, req.method ?? 'GET', t, query);
  };

  /** Answers what needs no credentials; false when the request must be authenticated first. */
  const servePublic = (res: ServerResponse, info: RequestInfo): boolean => {
    if (info.route.kind === 'health') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      return true;
    }
    if (info.route.kind === 'version') {
      sendJson(res, 200, VERSION_INFO);
      return true;
    }
    return false;
  };

  const route = async (req: IncomingMessage, res: ServerResponse, info: RequestInfo, caller: Caller) => {
    const { route, query } = info;
    const registry = deps.rest.registry;
    switch (route.kind) {
      case 'discoveryRoot':
        return serveDiscoveryRoot(res, registry, route.core, acceptOf(req));
      case 'group':
        return serveGroup(res, registry, route.group);
      case 'resourceList':
        return serveResourceList(res, registry, route.group, route.version);
      case 'resource': {
        const t = route.target;
        if (!registry.hasGroupVersion(t.group, t.version)) throw notFound();
        // Discovery stays open to every authenticated caller.
        authorize(caller, req, t, query);
        return serveResource(deps, req, res, t, query, caller, { allows, tokenUser: authenticate.token });
      }
      case 'openapi':
        return serveOpenApi(req, res, info.path, registry);
      default:
        throw notFound();
    }
  };

  const request = (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    void (async () => {
      const info = parseRequestInfo(req.url);
      if (servePublic(res, info)) return;
      await route(req, res, info, await identify(req));
    })()
      .catch((err: unknown) => {
        if (!(err instanceof StatusError))
          deps.logger?.error({ err, path: req.url?.split('?')[0] }, 'devcluster request failed');
        sendStatus(res, err);
      })
      .finally(() => {
        if (!deps.logger?.isLevelEnabled('debug')) return;
        deps.logger.debug(
          {
            method: req.method,
            path: req.url?.split('?')[0],
            status: res.statusCode,
            ms: Date.now() - started,
          },
          'devcluster request',
        );
      });
  };

  /** exec, attach and portforward arrive as SPDY or WebSocket upgrades: refused with a Status once authorized. */
  const PROCESS_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    serveWatchUpgrade(deps, req, socket, head, async (info) => {
      if (info.route.kind !== 'resource') throw notFound();
      const t = info.route.target;
      if (!deps.rest.registry.hasGroupVersion(t.group, t.version)) throw notFound();
      authorize(await identify(req), req, t, info.query);
      if (t.resource === 'pods' && t.subresource && PROCESS_SUBRESOURCES.has(t.subresource)) {
        const pods = deps.rest.registry.find(t.group, t.version, t.resource);
        if (pods) deps.rest.get(pods, t.namespace ?? '', t.name ?? '');
        throw processesNotRun(t.subresource, t.namespace ?? '', t.name ?? '');
      }
      return t;
    });

  return { request, upgrade };
}
