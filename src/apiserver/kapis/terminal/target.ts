// What a terminal request asks for, and whether its user may have it: exec in a pod is `create pods/exec` in the pod's
// namespace (core group), checked on top of the chain's `get` on the terminal path itself, as ks-apiserver does.
import { badRequest, notFoundMessage, StatusError } from '../../../k8s/status.ts';
import type { ServerContext } from '../../context.ts';
import { authorizeRequest } from '../../filters/authorization.ts';
import { parseRequestInfo } from '../../filters/requestinfo.ts';
import type { RequestInfo, UserInfo } from '../../request.ts';

export const TERMINAL_GROUP = 'terminal.kubesphere.io';

export interface PodTerminal {
  namespace: string;
  pod: string;
  container: string;
  shell: string;
}

/** True for paths of the terminal API, under /kapis or the /kapi alias. */
export function isTerminalPath(path: string): boolean {
  return path.startsWith(`/kapis/${TERMINAL_GROUP}/`) || path.startsWith(`/kapi/${TERMINAL_GROUP}/`);
}

/** Query parameters that would carry a credential: refused, so no token ends up in a URL (and its logs). */
const CREDENTIAL_PARAMS = ['access_token', 'token', 'authorization'];

export function refuseQueryCredentials(url: URL): void {
  if (CREDENTIAL_PARAMS.some((p) => url.searchParams.has(p))) {
    throw new StatusError(
      401,
      'Unauthorized',
      'Unauthorized: credentials in the query string are not accepted; send the Authorization header',
    );
  }
}

/** The pod terminal a request names; 404 for any other terminal path, 501 for the node shell. */
export function podTerminalOf(info: RequestInfo, query: URLSearchParams): PodTerminal {
  const isExec =
    info.apiGroup === TERMINAL_GROUP && info.apiVersion === 'v1alpha2' && info.subresource === 'exec';
  if (isExec && info.resource === 'nodes' && info.name) {
    throw new StatusError(
      501,
      'NotImplemented',
      'node shells are not supported by kapiserver: open a terminal in a pod instead',
    );
  }
  if (!isExec || info.resource !== 'pods' || !info.namespace || !info.name || info.parts.length !== 3) {
    throw notFoundMessage('the server could not find the requested resource');
  }
  const container = query.get('container') ?? '';
  if (container.includes('/')) throw badRequest('container must be a container name');
  return { namespace: info.namespace, pod: info.name, container, shell: query.get('shell') ?? '' };
}

/** Throws 403 unless `user` may create pods/exec on the pod. */
export async function authorizeExec(ctx: ServerContext, user: UserInfo, t: PodTerminal): Promise<void> {
  const path = `/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods/${encodeURIComponent(t.pod)}/exec`;
  await authorizeRequest(ctx, user, parseRequestInfo('POST', path));
}
