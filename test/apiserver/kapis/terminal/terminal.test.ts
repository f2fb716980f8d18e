// The web terminal (terminal.kubesphere.io/v1alpha2 pod exec over WebSocket) end to end: a real kapiserver whose
// orchestrator is the recording hop in front of the dev cluster, with a fake kubelet side answering exec in the
// channel protocol (test/helpers/fake-exec.ts). Who may open one, what the console sends and sees, the shell fallback,
// impersonation, and the refusals that never upgrade.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { type DevCluster, startDevCluster } from '../../../../src/devcluster/index.ts';
import { type FakeExec, fakeExec } from '../../../helpers/fake-exec.ts';
import { bearer, createUser, devRest, eventually, login } from '../../../helpers/oauth.ts';
import { type Spy, startSpy } from '../../../helpers/spy.ts';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';

const T = '/kapis/terminal.kubesphere.io/v1alpha2';
let dir: string;
let dev: DevCluster;
let spy: Spy;
let kubelet: FakeExec;
let stack: TestStack;
let admin: string;
let viewer: string;
let operator: string;

async function grant(user: string, name: string, rules: unknown[]) {
  const rest = devRest({ dev });
  await rest.create('/apis/rbac.authorization.k8s.io/v1/namespaces/demo/roles', {
    metadata: { name, namespace: 'demo' },
    rules,
  });
  await rest.create('/apis/rbac.authorization.k8s.io/v1/namespaces/demo/rolebindings', {
    metadata: { name, namespace: 'demo' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
  });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-terminal-'));
  dev = await startDevCluster({ dataDir: join(dir, 'dev'), port: 0, seedDemoData: false });
  kubelet = fakeExec({ 'demo/web': ['bash', 'sh'], 'demo/alpine': ['sh'] });
  spy = await startSpy(dev, join(dir, 'spy'), kubelet.onUpgrade);
  stack = await startTestStack({ dev, clusterKubeconfigPath: spy.kubeconfigPath });
  admin = (await login(stack)).access_token;
  await devRest({ dev }).create('/api/v1/namespaces', { metadata: { name: 'demo' } });
  await createUser(stack, 'viewer', 'V1ewer-passw0rd');
  await createUser(stack, 'operator', 'Oper4tor-passw0rd');
  // viewer may reach the terminal path but not create an exec; operator may do both (as KubeSphere's operator role).
  await grant('viewer', 'exec-get', [{ apiGroups: ['*'], resources: ['pods/exec'], verbs: ['get'] }]);
  await grant('operator', 'exec-all', [
    { apiGroups: ['*'], resources: ['pods/exec'], verbs: ['get', 'create'] },
  ]);
  viewer = (await login(stack, 'viewer', 'V1ewer-passw0rd')).access_token;
  operator = (await login(stack, 'operator', 'Oper4tor-passw0rd')).access_token;
});
after(async () => {
  await stack?.close();
  await spy?.stop().catch(() => {});
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface StatusBody {
  kind: string;
  code: number;
  message: string;
}

interface Terminal {
  ws: WebSocket;
  /** Everything received as stdout, concatenated. */
  output: () => string;
  frames: unknown[];
  closed: Promise<{ code: number; reason: string }>;
  until(text: string): Promise<void>;
  stdin(data: string): void;
}

/** Opens the terminal as the console does (the console's server adds the Authorization header). */
function openTerminal(path: string, headers: Record<string, string>): Promise<Terminal> {
  const ws = new WebSocket(`${stack.url.replace('http', 'ws')}${path}`, { headers });
  const frames: unknown[] = [];
  let text = '';
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    frames.push(frame);
    text += frame.Data;
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => reject(Object.assign(new Error(body), { status: res.statusCode, body })));
    });
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        ws,
        frames,
        closed,
        output: () => text,
        until: (wanted) =>
          eventually(async () => text.includes(wanted), 10_000, `terminal output ${wanted}`).then(() => {}),
        stdin: (data) => ws.send(JSON.stringify({ Op: 'stdin', Data: data })),
      }),
    );
  });
}

async function refusal(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: StatusBody }> {
  try {
    const t = await openTerminal(path, headers);
    t.ws.terminate();
    throw new Error('the connection was upgraded');
  } catch (err) {
    const e = err as { status?: number; body?: string };
    if (e.status === undefined) throw err;
    return { status: e.status, body: JSON.parse(e.body ?? '') };
  }
}

/** The status of an upgrade request sent with its path as written. */
function rawUpgrade(path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(stack.url);
    const req = http.request({
      hostname,
      port,
      path,
      headers: {
        ...bearer(token),
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

test('a session: the console’s frames in, stdout frames out, resize reaches the exec, exit closes', async () => {
  const before = kubelet.sessions.length;
  const t = await openTerminal(
    `${T}/namespaces/demo/pods/web/exec?container=app&shell=bash`,
    bearer(operator),
  );
  await t.until('$ ');
  t.ws.send(JSON.stringify({ Op: 'resize', Cols: 120, Rows: 40 }));
  t.stdin('whoami\r');
  await t.until('root');
  t.stdin('err\r');
  await t.until('something on stderr');
  assert.deepEqual(t.frames[0], { Op: 'stdout', Data: '$ ', Rows: 0, Cols: 0 });
  const session = kubelet.sessions[before];
  assert.equal(session.query.get('command'), 'bash');
  assert.equal(session.query.get('container'), 'app');
  assert.equal(session.query.get('tty'), 'true');
  assert.equal(session.query.get('stdin'), 'true');
  assert.ok(['v5.channel.k8s.io', 'v4.channel.k8s.io'].includes(session.protocol), session.protocol);
  assert.deepEqual(session.sizes, [{ Width: 120, Height: 40 }]);
  // kapiserver's own credentials reach the orchestrator, never the user's; no impersonation unless configured.
  assert.equal(session.headers.authorization, `Bearer ${dev.token}`);
  assert.equal(session.headers['impersonate-user'], undefined);
  t.stdin('exit\r');
  const { code } = await t.closed;
  assert.equal(code, 1000);
  await eventually(async () => session.closed, 5_000, 'the exec closed');
});

test('no shell or an unknown one: bash, then sh; what was typed reaches sh', async () => {
  const before = kubelet.sessions.length;
  const t = await openTerminal(`${T}/namespaces/demo/pods/alpine/exec?shell=zsh`, bearer(operator));
  t.stdin('whoami\r');
  await t.until('root');
  const tried = kubelet.sessions.slice(before).map((s) => s.query.get('command'));
  assert.deepEqual(tried, ['bash', 'sh']);
  assert.ok(!t.output().includes('executable file not found'), 'the failed bash is not shown');
  t.ws.close();
  await eventually(
    async () => kubelet.sessions.at(-1)?.closed,
    5_000,
    'closing the browser side closes the exec',
  );
});

test('a chosen shell the pod lacks: its error reaches the browser as output, then a close', async () => {
  const t = await openTerminal(`${T}/namespaces/demo/pods/alpine/exec?shell=bash`, bearer(operator));
  const { code, reason } = await t.closed;
  assert.equal(code, 1000);
  assert.match(reason, /executable file not found/);
  assert.match(t.output(), /executable file not found/);
});

test('an exec the orchestrator refuses (no such pod): its Status message, then a close, not a hang', async () => {
  const t = await openTerminal(`${T}/namespaces/demo/pods/missing/exec`, bearer(admin));
  const { reason } = await t.closed;
  assert.match(t.output(), /pods "missing" not found/);
  assert.match(reason, /not found/);
});

test('an unreadable or unknown message ends the session', async () => {
  for (const bad of ['not json', JSON.stringify({ Op: 'toast', Data: 'x' }), JSON.stringify([1])]) {
    const t = await openTerminal(`${T}/namespaces/demo/pods/web/exec?shell=sh`, bearer(operator));
    await t.until('$ ');
    t.ws.send(bad);
    const { code } = await t.closed;
    assert.equal(code, 1003, bad);
  }
});

test('who may open it: create pods/exec in the namespace; refusals are Status answers with no upgrade', async () => {
  const path = `${T}/namespaces/demo/pods/web/exec`;
  const before = kubelet.sessions.length;
  const none = await refusal(path, {});
  assert.equal(none.status, 401);
  assert.equal(none.body.kind, 'Status');
  const query = await refusal(`${path}?access_token=${operator}`, {});
  assert.equal(query.status, 401, 'a token in the query string is refused');
  assert.match(query.body.message, /query string/);
  const both = await refusal(`${path}?token=${operator}`, bearer(operator));
  assert.equal(both.status, 401, 'even beside a good header');
  const forged = await refusal(path, bearer(`${operator.slice(0, -4)}AAAA`));
  assert.equal(forged.status, 401);
  const getOnly = await refusal(path, bearer(viewer));
  assert.equal(getOnly.status, 403, 'get on the terminal path is not enough');
  assert.match(getOnly.body.message, /create/);
  const otherNamespace = await refusal(`${T}/namespaces/kube-system/pods/web/exec`, bearer(operator));
  assert.equal(otherNamespace.status, 403);
  const node = await refusal(`${T}/nodes/node-1/exec`, bearer(admin));
  assert.equal(node.status, 501);
  assert.match(node.body.message, /node shells/);
  // Sent verbatim (a WebSocket client would resolve the dot segments itself).
  const tricky = await rawUpgrade(`${T}/namespaces/demo/pods/web/exec/../../../../../../api/v1/nodes`, admin);
  assert.equal(tricky, 400);
  assert.equal(kubelet.sessions.length, before, 'nothing reached the orchestrator');
});

test('a plain GET (the console’s probe) answers 400 once authorized, 403 or 401 otherwise', async () => {
  const get = (token?: string) =>
    fetch(`${stack.url}${T}/namespaces/demo/pods/web/exec?container=app`, {
      headers: token ? bearer(token) : {},
    });
  const probe = await get(operator);
  assert.equal(probe.status, 400);
  assert.match((await probe.json()).message, /WebSocket/);
  assert.equal((await get(viewer)).status, 403);
  assert.equal((await get()).status, 401);
  assert.equal((await fetch(`${stack.url}${T}/nodes/n1/exec`, { headers: bearer(admin) })).status, 501);
});

test('with authorization.impersonate on, the exec carries the user’s identity', async () => {
  const source = stack.api.context.config;
  const original = source.current();
  source.set({ ...original, authorization: { ...original.authorization, impersonate: true } });
  try {
    const before = kubelet.sessions.length;
    const t = await openTerminal(`${T}/namespaces/demo/pods/web/exec?shell=sh`, bearer(operator));
    await t.until('$ ');
    const session = kubelet.sessions[before];
    assert.equal(session.headers['impersonate-user'], 'operator');
    assert.match(String(session.headers['impersonate-group']), /system:authenticated/);
    t.ws.close();
  } finally {
    source.set(original);
  }
});
