// The real kubectl renders our Tables: a small HTTPS server in the test answers discovery and serves
// toTable() output for `kubectl get nodes|pods [-o wide]`; the printed columns and cells are checked.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toTable } from '../../src/devcluster/table/index.ts';
import { ensureLocalPki } from '../../src/pki/index.ts';
import { hasKubectl, kubectlOk, NO_KUBECTL, writeKubeconfig } from '../helpers/kubectl.ts';

const TOKEN = 'table-test-token';
const created = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().replace(/\.\d{3}Z$/, 'Z');

const nodes = [
  {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'node1',
      uid: 'n1',
      resourceVersion: '3',
      creationTimestamp: created(3 * 3600_000 + 5 * 60_000),
      labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/hostname': 'node1' },
    },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.11' }],
      nodeInfo: {
        kubeletVersion: 'v1.32.2',
        osImage: 'Ubuntu 22.04 LTS',
        kernelVersion: '6.1.0',
        containerRuntimeVersion: 'containerd://1.7.13',
      },
    },
  },
];
const pods = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-0',
      namespace: 'default',
      uid: 'p1',
      resourceVersion: '4',
      creationTimestamp: created(90_000),
    },
    spec: { nodeName: 'node1', containers: [{ name: 'nginx', image: 'nginx' }] },
    status: {
      phase: 'Running',
      podIPs: [{ ip: '10.244.0.7' }],
      containerStatuses: [{ name: 'nginx', ready: true, restartCount: 0, state: { running: {} } }],
    },
  },
];

function route(path: string, accept: string, port: number): { code: number; body: unknown } {
  const wantsTable = /as=Table/.test(accept);
  const list = (kind: string, items: Record<string, unknown>[], k: { kind: string; namespaced: boolean }) =>
    wantsTable
      ? toTable({ group: '', version: 'v1', ...k }, items, { listMeta: { resourceVersion: '9' } })
      : { kind, apiVersion: 'v1', metadata: { resourceVersion: '9' }, items };
  switch (path) {
    case '/version':
      return {
        code: 200,
        body: {
          major: '1',
          minor: '32',
          gitVersion: 'v1.32.2',
          platform: 'linux/amd64',
          goVersion: 'go1.23.6',
        },
      };
    case '/api':
      return {
        code: 200,
        body: {
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }],
        },
      };
    case '/apis':
      return { code: 200, body: { kind: 'APIGroupList', apiVersion: 'v1', groups: [] } };
    case '/api/v1': {
      const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
      return {
        code: 200,
        body: {
          kind: 'APIResourceList',
          groupVersion: 'v1',
          resources: [
            {
              name: 'nodes',
              singularName: 'node',
              namespaced: false,
              kind: 'Node',
              verbs,
              shortNames: ['no'],
            },
            { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs, shortNames: ['po'] },
          ],
        },
      };
    }
    case '/api/v1/nodes':
      return { code: 200, body: list('NodeList', nodes, { kind: 'Node', namespaced: false }) };
    case '/api/v1/namespaces/default/pods':
      return { code: 200, body: list('PodList', pods, { kind: 'Pod', namespaced: true }) };
    default:
      return {
        code: 404,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
        },
      };
  }
}

describe('kubectl renders toTable output', { timeout: 120_000 }, () => {
  let dir = '';
  let server: Server | undefined;
  let kubeconfig = '';

  before(async () => {
    if (!hasKubectl) return;
    dir = mkdtempSync(join(tmpdir(), 'table-kubectl-'));
    const pki = await ensureLocalPki(dir);
    const srv = createServer({ cert: pki.serving.certPem, key: pki.serving.keyPem }, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const port = (srv.address() as AddressInfo).port;
      const { code, body } =
        req.headers.authorization === `Bearer ${TOKEN}`
          ? route(url.pathname, String(req.headers.accept ?? ''), port)
          : {
              code: 401,
              body: {
                kind: 'Status',
                apiVersion: 'v1',
                status: 'Failure',
                reason: 'Unauthorized',
                code: 401,
              },
            };
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    server = srv;
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const port = (srv.address() as AddressInfo).port;
    kubeconfig = writeKubeconfig(join(dir, 'kubeconfig'), {
      server: `https://127.0.0.1:${port}`,
      caPem: pki.caPem,
      token: TOKEN,
    });
  });

  after(() => {
    server?.closeAllConnections();
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function kubectl(...args: string[]): Promise<string> {
    return kubectlOk(['--kubeconfig', kubeconfig, ...args], {
      env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig },
    });
  }
  const words = (line: string) => line.trim().split(/\s{2,}/);

  it('kubectl get nodes shows NAME STATUS ROLES AGE VERSION', async (t) => {
    if (!hasKubectl) return t.skip(NO_KUBECTL);
    const lines = (await kubectl('get', 'nodes')).trim().split('\n');
    assert.deepEqual(words(lines[0]), ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    const row = words(lines[1]);
    assert.deepEqual([...row.slice(0, 3), row[4]], ['node1', 'Ready', 'control-plane', 'v1.32.2']);
    assert.match(row[3], /^3h[5-7]m$/, 'AGE is a human duration');
  });

  it('kubectl get nodes -o wide adds the priority-1 columns', async (t) => {
    if (!hasKubectl) return t.skip(NO_KUBECTL);
    const lines = (await kubectl('get', 'nodes', '-o', 'wide')).trim().split('\n');
    assert.deepEqual(words(lines[0]), [
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    assert.deepEqual(words(lines[1]).slice(5), [
      '10.0.0.11',
      '<none>',
      'Ubuntu 22.04 LTS',
      '6.1.0',
      'containerd://1.7.13',
    ]);
  });

  it('kubectl get pods shows READY, STATUS and RESTARTS, and IP and NODE when wide', async (t) => {
    if (!hasKubectl) return t.skip(NO_KUBECTL);
    const lines = (await kubectl('get', 'pods')).trim().split('\n');
    assert.deepEqual(words(lines[0]), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const row = words(lines[1]);
    assert.deepEqual(row.slice(0, 4), ['web-0', '1/1', 'Running', '0']);
    assert.match(row[4], /^(9\d|1\d\d)s$|^[23]m/);
    const wide = (await kubectl('get', 'pods', '-o', 'wide')).trim().split('\n');
    assert.deepEqual(words(wide[1]).slice(5), ['10.244.0.7', 'node1', '<none>', '<none>']);
  });
});
