// HTTP front of the dev cluster, in stages: parse the request into a request info, answer health and version,
// authenticate, then route (discovery, OpenAPI, resources; resource handlers decode their bodies). Every error
// becomes a Kubernetes Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { StatusError } from '../k8s/status.ts';
import { type Caller, createAuthenticator } from './http/authenticate.ts';
import { serveDiscoveryRoot, serveGroup, serveResourceList } from './http/discovery.ts';
import { openApiDocument } from './http/openapi.ts';
import { parseRequestInfo, type RequestInfo } from './http/request-info.ts';
import { serveResource } from './http/resource.ts';
import type { ResourceDeps } from './http/resource-request.ts';
import { acceptOf, notFound, sendJson, sendStatus } from './http/respond.ts';

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

export interface HandlerDeps extends ResourceDeps {
  logger?: Logger;
}

export function createHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const authenticate = createAuthenticator(deps.token, deps.serviceAccounts);

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
        // Service accounts get what RBAC grants them; discovery stays open to every authenticated caller.
        if (caller.serviceAccount)
          deps.serviceAccounts?.authorize(caller.serviceAccount, req.method ?? 'GET', t, query);
        return serveResource(deps, req, res, t, query);
      }
      case 'openapi': {
        const doc = openApiDocument(info.path, registry);
        if (!doc) throw notFound();
        return sendJson(res, 200, doc);
      }
      default:
        throw notFound();
    }
  };

  return (req, res) => {
    const started = Date.now();
    void (async () => {
      const info = parseRequestInfo(req.url);
      if (servePublic(res, info)) return;
      const caller = authenticate(req);
      await route(req, res, info, caller);
    })()
      .catch((err: unknown) => {
        if (!(err instanceof StatusError))
          deps.logger?.error({ err, path: req.url?.split('?')[0] }, 'devcluster request failed');
        sendStatus(res, err);
      })
      .finally(() => {
        deps.logger?.debug(
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
}
