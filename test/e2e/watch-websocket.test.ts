// A watch over WebSocket through kapiserver to the embedded dev cluster (what KubeSphere's console opens): a token in
// the Authorization header upgrades and events arrive as text messages; a token only in the query string, or none,
// is refused 401 before any upgrade.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { bearer, devRest, login } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

let stack: TestStack;
let token: string;
const PATH = '/api/v1/namespaces/default/configmaps?watch=1';

before(async () => {
  stack = await startTestStack();
  token = (await login(stack)).access_token;
});
after(async () => {
  await stack?.close();
});

/** Resolves with 101 once upgraded (closing the socket), or the refusing status. */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.on('error', reject);
  });
}

test('events of a WebSocket watch arrive through kapiserver, one JSON event per text message', async () => {
  const ws = new WebSocket(`${stack.url.replace('http', 'ws')}${PATH}`, { headers: bearer(token) });
  const names: string[] = [];
  const seen = new Promise<void>((resolve, reject) => {
    ws.on('message', (data, isBinary) => {
      assert.equal(isBinary, false);
      const event = JSON.parse(String(data)) as { type: string; object: { metadata: { name: string } } };
      names.push(`${event.type} ${event.object.metadata.name}`);
      if (names.includes('ADDED through-kapiserver')) resolve();
    });
    ws.on('unexpected-response', (_req, res) => reject(new Error(`not upgraded: ${res.statusCode}`)));
    ws.on('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`not upgraded: ${res.statusCode}`)));
  });
  await devRest(stack).create('/api/v1/namespaces/default/configmaps', {
    metadata: { name: 'through-kapiserver' },
  });
  const timeout = new Promise<never>((_r, reject) =>
    setTimeout(() => reject(new Error(`no event; got ${names.join(', ')}`)), 10_000).unref(),
  );
  await Promise.race([seen, timeout]);
  ws.close();
});

test('a token in the query string, or none, is refused 401', async () => {
  const base = `${stack.url.replace('http', 'ws')}${PATH}`;
  assert.equal(await upgradeStatus(`${base}&access_token=${encodeURIComponent(token)}`, {}), 401);
  assert.equal(await upgradeStatus(base, {}), 401);
  assert.equal(await upgradeStatus(base, bearer(token)), 101);
});
