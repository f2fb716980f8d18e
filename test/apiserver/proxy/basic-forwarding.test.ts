// HTTP Basic through the forwarding path, with a recording hop (spy.ts) as kapiserver's orchestrator: the client's
// Basic credentials and KubeSphere's X-KubeSphere-Authorization stand-in never reach the orchestrator (kapiserver's
// own credentials do), and upgrades (exec) authenticate Basic through the same chain.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import { request } from 'undici';
import { type DevCluster, startDevCluster } from '../../../src/devcluster/index.ts';
import { type Spy, startSpy } from '../../helpers/spy.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

let dir: string;
let dev: DevCluster;
let spy: Spy;
let stack: TestStack;
let adminBasic: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapiserver-basic-fwd-'));
  dev = await startDevCluster({ dataDir: join(dir, 'dev'), port: 0 });
  spy = await startSpy(dev, join(dir, 'spy'));
  stack = await startTestStack({ dev, clusterKubeconfigPath: spy.kubeconfigPath });
  adminBasic = `Basic ${Buffer.from(`admin:${stack.adminPassword}`).toString('base64')}`;
});

after(async () => {
  await stack?.close();
  await spy?.stop().catch(() => {});
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function forwarded(marker: string, headers: Record<string, string>) {
  const res = await request(`${stack.url}/api/v1/namespaces/default/configmaps?marker=${marker}`, {
    headers,
  });
  const body = await res.body.text();
  assert.equal(res.statusCode, 200, body);
  const seen = [...spy.seen].reverse().find((s) => s.url.includes(`marker=${marker}`));
  assert.ok(seen, 'the request reached the orchestrator');
  return seen.headers;
}

test('Basic credentials are not forwarded; kapiserver authenticates to the orchestrator', async () => {
  const h = await forwarded('basic', { authorization: adminBasic });
  assert.equal(h.authorization, `Bearer ${dev.token}`);
});

test('X-KubeSphere-Authorization stands in for Authorization and is never forwarded', async () => {
  const standIn = await forwarded('stand-in', { 'x-kubesphere-authorization': adminBasic });
  assert.equal(standIn.authorization, `Bearer ${dev.token}`);
  assert.equal(standIn['x-kubesphere-authorization'], undefined);
  const both = await forwarded('both', {
    authorization: adminBasic,
    'x-kubesphere-authorization': 'Bearer not-a-token',
  });
  assert.equal(both['x-kubesphere-authorization'], undefined);
});

/** The status line an upgrade request (exec over WebSocket, on the HTTPS port) is answered with. */
function upgradeStatus(authorization: string): Promise<string> {
  const u = new URL(stack.secureUrl);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: u.hostname, port: Number(u.port), ca: stack.caPem }, () => {
      socket.write(
        [
          'GET /api/v1/namespaces/default/pods/web/exec?command=sh&stdin=true HTTP/1.1',
          `Host: ${u.host}`,
          'Connection: Upgrade',
          'Upgrade: websocket',
          `Authorization: ${authorization}`,
          '\r\n',
        ].join('\r\n'),
      );
    });
    socket.once('data', (d: Buffer) => {
      resolve(d.toString().split('\r\n')[0]);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

test('upgrades authenticate Basic through the same chain', async () => {
  assert.equal(await upgradeStatus(adminBasic), 'HTTP/1.1 101 Switching Protocols');
  const wrong = `Basic ${Buffer.from('admin:not-the-password').toString('base64')}`;
  assert.match(await upgradeStatus(wrong), /^HTTP\/1.1 401/);
  const upgrade = [...spy.seen].reverse().find((s) => s.upgrade);
  assert.equal(upgrade?.headers.authorization, `Bearer ${dev.token}`);
});
