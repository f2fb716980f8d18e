// Watches over WebSocket against the dev cluster, as kube-apiserver serves them: one JSON event per text message, a
// normal close at the watch's end, the same authentication, authorization and parameter checks as the plain GET
// (refusals are HTTP answers before any upgrade), and no credential-bearing subprotocol echoed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { devRequest, startTestDevCluster, type TestDevCluster } from '../helpers/devcluster.ts';

type Event = { type: string; object: { kind: string; metadata: { name: string; resourceVersion: string } } };

interface Opened {
  ws: WebSocket;
  events: Event[];
  raw: string[];
  closed: Promise<number>;
  next(count: number): Promise<Event[]>;
}

/** Opens a WebSocket to the dev cluster; resolves once upgraded, rejects with the HTTP status when refused. */
function open(
  dev: TestDevCluster,
  path: string,
  opts: { token?: string | null; protocols?: string[] } = {},
): Promise<Opened> {
  const token = opts.token === undefined ? dev.token : opts.token;
  const ws = new WebSocket(`${dev.url.replace('https', 'wss')}${path}`, opts.protocols ?? [], {
    ca: dev.caPem,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  const events: Event[] = [];
  const raw: string[] = [];
  let wake = () => {};
  ws.on('message', (data, isBinary) => {
    assert.equal(isBinary, false, 'events are text messages');
    raw.push(data.toString());
    events.push(JSON.parse(data.toString()) as Event);
    wake();
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const next = (count: number) =>
    new Promise<Event[]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${events.length} events: ${raw.join('')}`)),
        10_000,
      );
      wake = () => {
        if (events.length < count) return;
        clearTimeout(timer);
        resolve(events.slice(0, count));
      };
      wake();
    });
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, events, raw, closed, next }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c;
      });
      res.on('end', () => reject(Object.assign(new Error(body), { status: res.statusCode, body })));
    });
    ws.on('error', reject);
  });
}

const refusal = async (p: Promise<unknown>) => {
  const err = (await p.then(
    () => assert.fail('upgraded'),
    (e: unknown) => e,
  )) as { status: number; body: string };
  return {
    status: err.status,
    body: JSON.parse(err.body) as { kind: string; reason: string; message: string },
  };
};

describe('watch over WebSocket', { timeout: 60_000 }, () => {
  let dev: TestDevCluster;
  const cm = (name: string) =>
    devRequest(dev, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } });

  before(async () => {
    dev = await startTestDevCluster();
    assert.equal((await cm('before')).status, 201);
  });
  after(() => dev?.close());

  it('streams the initial state and then changes, one JSON event (and newline) per text message', async () => {
    const w = await open(dev, '/api/v1/namespaces/default/configmaps?watch=1');
    const initial = await w.next(1);
    assert.ok(initial.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'before'));
    const count = w.events.length;
    assert.equal((await cm('after')).status, 201);
    const all = await w.next(count + 1);
    assert.deepEqual(
      { type: all[count].type, kind: all[count].object.kind, name: all[count].object.metadata.name },
      { type: 'ADDED', kind: 'ConfigMap', name: 'after' },
    );
    assert.ok(w.raw.every((m) => m.endsWith('}\n')));
    w.ws.close();
    await w.closed;
  });

  it('serves /watch/ paths and resumes from a resourceVersion; the end of the watch is a normal close', async () => {
    const list = await devRequest(dev, 'GET', '/api/v1/namespaces/default/configmaps');
    const rv = (list.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const w = await open(
      dev,
      `/api/v1/watch/namespaces/default/configmaps?resourceVersion=${rv}&timeoutSeconds=1`,
    );
    assert.equal((await cm('resumed')).status, 201);
    const [e] = await w.next(1);
    assert.equal(e.object.metadata.name, 'resumed');
    assert.equal(await w.closed, 1000);
  });

  it('echoes a requested subprotocol, never a bearer-token one', async () => {
    const w = await open(dev, '/api/v1/namespaces/default/configmaps?watch=1', {
      protocols: ['base64url.bearer.authorization.k8s.io.c2VjcmV0', 'base64.binary.k8s.io'],
    });
    assert.equal(w.ws.protocol, 'base64.binary.k8s.io');
    w.ws.close();
  });

  it('refuses before upgrading: no token 401, no permission 403, bad selector 400, not a watch 400', async () => {
    const none = await refusal(open(dev, '/api/v1/namespaces/default/configmaps?watch=1', { token: null }));
    assert.deepEqual([none.status, none.body.reason], [401, 'Unauthorized']);
    assert.equal(
      (
        await devRequest(dev, 'POST', '/api/v1/namespaces/default/serviceaccounts', {
          metadata: { name: 'w' },
        })
      ).status,
      201,
    );
    const issued = await devRequest(dev, 'POST', '/api/v1/namespaces/default/serviceaccounts/w/token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    const saToken = (issued.body as { status: { token: string } }).status.token;
    const denied = await refusal(open(dev, '/api/v1/namespaces/default/secrets?watch=1', { token: saToken }));
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /cannot watch resource "secrets"/);
    const bad = await refusal(
      open(dev, '/api/v1/namespaces/default/configmaps?watch=1&labelSelector=a%20in'),
    );
    assert.deepEqual([bad.status, bad.body.kind], [400, 'Status']);
    const plainGet = await refusal(open(dev, '/api/v1/namespaces/default/configmaps'));
    assert.equal(plainGet.status, 400);
    const missing = await refusal(open(dev, '/apis/nothing.example/v1/things?watch=1'));
    assert.equal(missing.status, 404);
  });

  it('impersonation applies to WebSocket watches as to the plain GET', async () => {
    const ws = new WebSocket(`${dev.url.replace('https', 'wss')}/api/v1/namespaces/default/secrets?watch=1`, {
      ca: dev.caPem,
      headers: { Authorization: `Bearer ${dev.token}`, 'Impersonate-User': 'nobody' },
    });
    const status = await new Promise<number | undefined>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('open', () => resolve(101));
    });
    assert.equal(status, 403);
  });
});
