// terminal.kubesphere.io/v1alpha2 over plain HTTP: the terminal itself is a WebSocket (./upgrade.ts), so a plain GET
// that passes authorization answers 400, as ks-apiserver's failed upgrade does (the console probes the path with
// one, and falls back to an older path only on 404). The node shell is not offered (501).
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { badRequest } from '../../../k8s/status.ts';
import type { ServerContext } from '../../context.ts';
import { registerKapisRoute } from '../route.ts';
import { errors } from '../schemas.ts';
import { authorizeExec, podTerminalOf, TERMINAL_GROUP } from './target.ts';

const BASE = `/${TERMINAL_GROUP}/v1alpha2`;
const TAG = `${TERMINAL_GROUP}/v1alpha2`;

export function registerTerminalRoutes(app: FastifyInstance, ctx: ServerContext): void {
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/namespaces/:namespace/pods/:pod/exec`,
    schema: {
      tags: [TAG],
      summary: 'Open a shell in a pod container (WebSocket)',
      description:
        'Upgrade to a WebSocket (Authorization header only). Messages in: {"Op":"stdin","Data":"..."}, {"Op":"resize","Cols":c,"Rows":r}; out: {"Op":"stdout","Data":"..."}. Needs create on pods/exec in the namespace. shell: bash or sh (default: bash, then sh). Without an upgrade: 400.',
      operationId: 'HandleTerminalSession',
      params: Type.Object({ namespace: Type.String(), pod: Type.String() }),
      querystring: Type.Object({
        container: Type.Optional(Type.String({ description: 'default: the pod’s default container' })),
        shell: Type.Optional(Type.String({ description: 'bash or sh; anything else: bash, then sh' })),
      }),
      response: { 101: Type.Null({ description: 'Switching Protocols' }), ...errors(400, 404) },
    },
    handler: async (request) => {
      const url = new URL(request.url, 'http://terminal');
      const target = podTerminalOf(request.requestInfo, url.searchParams);
      await authorizeExec(ctx, request.user!, target);
      throw badRequest('the terminal is a WebSocket: GET with Upgrade: websocket');
    },
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/nodes/:node/exec`,
    schema: {
      tags: [TAG],
      summary: 'Open a shell on a node: not supported by kapiserver (501)',
      operationId: 'HandleShellAccessToNode',
      // Answers only that it is not offered: nothing to document.
      hide: true,
      params: Type.Object({ node: Type.String() }),
      response: errors(501),
    },
    // podTerminalOf answers a node path with the 501 Status, as the upgrade does.
    handler: async (request) => podTerminalOf(request.requestInfo, new URLSearchParams()),
  });
}
