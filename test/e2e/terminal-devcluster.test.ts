// The web terminal against the embedded dev cluster, which runs no processes: whatever the dev cluster answers an
// exec with (a Status), the browser side gets it as output and then a close, never a hang.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { bearer, devRest, login } from '../helpers/oauth.ts';
import { startTestStack, type TestStack } from '../helpers/stack.ts';

let stack: TestStack;
let token: string;

before(async () => {
  stack = await startTestStack();
  token = (await login(stack)).access_token;
  await devRest(stack).create('/api/v1/namespaces/default/pods', {
    metadata: { name: 'shell' },
    spec: { containers: [{ name: 'app', image: 'alpine:3.20' }] },
  });
});
after(async () => {
  await stack?.close();
});

test('a terminal to a dev-cluster pod ends with the cluster’s reason as output and a close', async () => {
  const ws = new WebSocket(
    `${stack.url.replace('http', 'ws')}/kapis/terminal.kubesphere.io/v1alpha2/namespaces/default/pods/shell/exec?container=app&shell=sh`,
    { headers: bearer(token) },
  );
  let output = '';
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    assert.equal(frame.Op, 'stdout');
    output += frame.Data;
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve, reject) => {
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`not upgraded: ${res.statusCode}`)));
    ws.on('error', reject);
  });
  const timeout = new Promise<never>((_r, reject) =>
    setTimeout(() => reject(new Error('the session hung')), 15_000).unref(),
  );
  const { code, reason } = await Promise.race([closed, timeout]);
  assert.equal(code, 1000);
  assert.ok(output.trim().length > 0, 'the reason is shown in the terminal');
  assert.ok(output.includes(reason.slice(0, 40)), `${output} / ${reason}`);
});
