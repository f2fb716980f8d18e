// The web terminal's WebSocket (`GET /kapis/terminal.kubesphere.io/v1alpha2/namespaces/{ns}/pods/{pod}/exec`,
// reference 9). Node serves upgrades outside fastify, so this runs the same filter chain (filters/chain.ts): only
// the Authorization header authenticates (a token in the query string is refused), the chain authorizes the path,
// then `create pods/exec` on the pod is checked, and only then is the connection upgraded and the exec opened to
// the orchestrator with kapiserver's credentials (./exec-client.ts). Every refusal is an ordinary HTTP answer with a
// Status body and no upgrade.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { badRequest, serviceUnavailable } from '../../../k8s/status.ts';
import type { ServerContext } from '../../context.ts';
import { asStatusError } from '../../errors.ts';
import { auditRawRequest } from '../../filters/audit.ts';
import { runChain } from '../../filters/chain.ts';
import { endWithStatus } from '../../raw-response.ts';
import { openExec } from './exec-client.ts';
import { runSession, shellsFor } from './session.ts';
import { authorizeExec, podTerminalOf, refuseQueryCredentials } from './target.ts';

/** The console sends keystrokes and sizes: small messages. */
const MAX_CLIENT_MESSAGE_BYTES = 1024 * 1024;

export function terminalUpgradeHandler(ctx: ServerContext) {
  // No subprotocol (the console asks for none); any Origin, as only the Authorization header authenticates.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_CLIENT_MESSAGE_BYTES,
    perMessageDeflate: false,
  });
  ctx.onClose(async () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
  });
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    handle(ctx, wss, req, socket, head).catch((err: Error) => {
      ctx.logger.error({ err: err.message }, 'terminal: request failed');
      socket.destroy();
    });
  };
}

async function handle(
  ctx: ServerContext,
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const startedAt = performance.now();
  const url = new URL(req.url ?? '/', 'http://terminal');
  const chain = await runChain(ctx, req, {
    beforeAuthentication: () => refuseQueryCredentials(url),
  });
  const record = (code: number) => {
    const latencyMs = performance.now() - startedAt;
    ctx.metrics.observeRequest(chain.info, code, latencyMs / 1000);
    auditRawRequest(ctx.audit, req, chain, code, latencyMs);
  };
  const refuse = (err: unknown, headers: Record<string, string> = {}) => {
    const status =
      asStatusError(err) ?? serviceUnavailable('the request could not be checked; retry shortly');
    endWithStatus(socket, status, headers);
    record(status.code);
  };
  if (chain.refusal) return refuse(chain.refusal.error, chain.refusal.headers);
  const user = chain.user;
  if (!user) return refuse(badRequest('the terminal needs an authenticated user'));
  let target: ReturnType<typeof podTerminalOf>;
  try {
    target = podTerminalOf(chain.info, url.searchParams);
    await authorizeExec(ctx, user, target);
    const isWebSocket = String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
    if (req.method !== 'GET' || !isWebSocket)
      throw badRequest('the terminal is a WebSocket: GET with Upgrade: websocket');
  } catch (err) {
    return refuse(err);
  }
  if (socket.destroyed) return;
  wss.handleUpgrade(req, socket, head, (client) => {
    record(101);
    ctx.logger.info(
      { user: user.name, namespace: target.namespace, pod: target.pod, container: target.container },
      'terminal session opened',
    );
    runSession(client, {
      shells: shellsFor(target.shell),
      open: (command) => openExec(ctx, { ...target, command }, user),
      logger: ctx.logger,
    });
  });
}
