// kapiserver's side of a pod exec: a WebSocket to the orchestrator's `pods/{pod}/exec` in Kubernetes' channel protocol
// (`v5.channel.k8s.io`, else `v4.channel.k8s.io`: every binary message starts with its channel byte), with
// kapiserver's own credentials and, when `authorization.impersonate` is on, as the user (Impersonate-* headers).
import WebSocket from 'ws';
import type { ServerContext } from '../../context.ts';
import { forwardHeaders } from '../../proxy/headers.ts';
import type { UserInfo } from '../../request.ts';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

/** The channel byte of each message (k8s.io/apimachinery/pkg/util/remotecommand). */
export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** The largest message the orchestrator may send us: a burst of terminal output. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const HANDSHAKE_TIMEOUT_MS = 30_000;

export interface ExecTarget {
  namespace: string;
  pod: string;
  /** Empty: the pod's default container. */
  container: string;
  command: string;
}

/** The exec URL, a TTY with stdin and stdout (the kubelet merges stderr into a TTY). */
export function execUrl(server: string, t: ExecTarget): URL {
  const url = new URL(server);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/$/, '')}/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods/${encodeURIComponent(t.pod)}/exec`;
  const q = url.searchParams;
  if (t.container) q.set('container', t.container);
  q.set('command', t.command);
  q.set('stdin', 'true');
  q.set('stdout', 'true');
  q.set('tty', 'true');
  return url;
}

/** Opens the exec WebSocket (not yet open when returned). */
export function openExec(ctx: ServerContext, target: ExecTarget, user: UserInfo): WebSocket {
  const url = execUrl(ctx.cluster.server, target);
  const headers = forwardHeaders(
    {},
    {
      authorization: ctx.cluster.authorization(),
      impersonate: ctx.config.current().authorization.impersonate ? user : undefined,
    },
  );
  const tls = ctx.cluster.tls;
  return new WebSocket(url, EXEC_PROTOCOLS, {
    headers: headers as Record<string, string>,
    handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    ca: tls.ca,
    cert: tls.cert,
    key: tls.key,
    rejectUnauthorized: !tls.insecureSkipVerify,
  });
}
