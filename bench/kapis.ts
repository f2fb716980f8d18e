// Node list benchmark (loopback only, bounded): authenticated GET /kapis/resources.kubesphere.io/v1alpha3/nodes
// with 100 and with 10,000 nodes in the dev cluster: req/s and p50/p99 for the full list and for limit=10 pages,
// the 10k/100 page-latency ratio for every sort key KubeSphere accepts (both orders) and with a `name` filter
// (target <= 1.2: pages come from sorted views, node annotations from an incremental index), and the RSS of the
// kapiserver process with 10,000 nodes and 20,000 pods cached, with the memory per cached object it implies.
// kapiserver runs as its own process (so its RSS is its own) against a dev cluster in this process.
// Prints one JSON document and a one-line summary. Sizes: BENCH_NODES (10000), BENCH_PODS (20000), BENCH_SECONDS (5).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { ClusterConnection } from '../src/apiserver/cluster/index.ts';
import { startTestDevCluster } from '../test/helpers/devcluster.ts';
import { login } from '../test/helpers/oauth.ts';
import { benchNode, fill, freePort, rssMiB, waitFor } from './_helpers.ts';

const NODES = Number(process.env.BENCH_NODES ?? 10_000);
const PODS = Number(process.env.BENCH_PODS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROOT = resolve(import.meta.dirname, '..');
const NODES_PATH = '/kapis/resources.kubesphere.io/v1alpha3/nodes';
const PAGE_RATIO_TARGET = 1.2;
/** The limit=10 pages measured at both sizes: each sortBy KubeSphere accepts, both orders, and a name filter. */
const PAGES: Record<string, string> = {
  page3: 'limit=10&page=3',
  creationTimestamp: 'limit=10&page=3&sortBy=creationTimestamp',
  createTimeAscending: 'limit=10&page=3&sortBy=createTime&ascending=true',
  name: 'limit=10&page=3&sortBy=name',
  nameAscending: 'limit=10&page=3&sortBy=name&ascending=true',
  nameFilter: 'limit=10&name=bench-node-1&sortBy=name',
  statusFilter: 'limit=10&status=running&sortBy=name',
};

async function main() {
  const dev = await startTestDevCluster();
  const cluster = ClusterConnection.fromFile(dev.kubeconfigPath);
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/main.ts',
      '--kubeconfig',
      dev.kubeconfigPath,
      '--bind-address',
      '127.0.0.1',
      '--port',
      String(port),
      '--secure-port',
      String(await freePort()),
      '--data-dir',
      `${dev.dataDir}/kapiserver`,
      '--log-level',
      'warn',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, KAPISERVER_ADMIN_PASSWORD: adminPassword },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const cleanup = async () => {
    child.kill('SIGTERM');
    await cluster.close();
    await dev.close();
  };
  try {
    await waitFor('kapiserver /readyz', async () => (await fetch(`${url}/readyz`)).status === 200, 120_000);
    const token = (await login({ url, adminPassword })).access_token;
    const auth = { authorization: `Bearer ${token}` };
    const total = async (path: string) =>
      ((await (await fetch(`${url}${path}`, { headers: auth })).json()) as { totalItems: number }).totalItems;

    // Writes to the dev cluster, 16 at a time.
    const post = async (path: string, body: unknown) => {
      const res = await request(`${cluster.server}${path}`, {
        method: 'POST',
        dispatcher: cluster.dispatcher,
        headers: { authorization: cluster.authorization() ?? '', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.body.text();
      if (res.statusCode !== 201 && res.statusCode !== 409)
        throw new Error(`POST ${path}: ${res.statusCode}`);
    };
    const node = (i: number) => post('/api/v1/nodes', benchNode(i));
    const pod = (i: number) =>
      post('/api/v1/namespaces/default/pods', {
        metadata: { name: `bench-pod-${i}`, labels: { app: `bench-${i % 50}` } },
        spec: {
          nodeName: `bench-node-${i % NODES}`,
          containers: [
            { name: 'c', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
          ],
        },
      });

    const existing = await total(NODES_PATH);
    const measure = async (nodes: number) => {
      await waitFor(
        `${nodes} nodes in kapiserver`,
        async () => (await total(`${NODES_PATH}?limit=1`)) >= nodes,
        600_000,
      );
      const run = async (path: string, connections: number, duration = SECONDS) => {
        const r = await autocannon({ url: `${url}${path}`, headers: auth, connections, duration });
        if (r.non2xx > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers`);
        return {
          reqPerSec: r.requests.average,
          meanMs: r.latency.average,
          p50ms: r.latency.p50,
          p99ms: r.latency.p99,
          requests: r.requests.total,
        };
      };
      const pages: Record<string, Awaited<ReturnType<typeof run>>> = {};
      // A short unmeasured run of each query first: the first one measured would otherwise pay for the JIT.
      for (const query of Object.values(PAGES)) await run(`${NODES_PATH}?${query}`, 8, 1);
      for (const [name, query] of Object.entries(PAGES)) pages[name] = await run(`${NODES_PATH}?${query}`, 8);
      return { nodes, fullList: await run(NODES_PATH, 2), pages };
    };

    const t0 = performance.now();
    await fill(0, Math.max(0, 100 - existing), node);
    const small = await measure(100);
    await new Promise((r) => setTimeout(r, 3000));
    const rssSmall = child.pid ? rssMiB(child.pid) : -1;
    await fill(100 - existing, NODES - existing, node);
    await fill(0, PODS, pod);
    const seedSeconds = (performance.now() - t0) / 1000;
    await waitFor(
      `${PODS} pods in kapiserver`,
      async () =>
        (await total('/kapis/resources.kubesphere.io/v1alpha3/namespaces/default/pods?limit=1')) >= PODS,
      600_000,
    );
    const large = await measure(NODES);
    // Let garbage collection settle before reading RSS.
    await new Promise((r) => setTimeout(r, 3000));
    const rss = child.pid ? rssMiB(child.pid) : -1;
    // Mean latency: autocannon's percentiles are whole milliseconds, too coarse for a ~1 ms page.
    const pageRatios = Object.fromEntries(
      Object.keys(PAGES).map((k) => [
        k,
        Number((large.pages[k].meanMs / Math.max(0.01, small.pages[k].meanMs)).toFixed(2)),
      ]),
    );
    const added = NODES - 100 + PODS;
    const result = {
      benchmark: 'kapis node list',
      seconds: SECONDS,
      small,
      large,
      pageLatencyRatio10kTo100: pageRatios,
      target: { pageLatencyRatio10kTo100: PAGE_RATIO_TARGET },
      kapiserverRssMiB: { at100Nodes: rssSmall, atLarge: rss },
      // RSS growth over the objects added between the two measurements (nodes and pods alike).
      rssBytesPerCachedObject: Math.round(((rss - rssSmall) * 1024 * 1024) / added),
      cached: { nodes: NODES, pods: PODS },
      seedSeconds: Number(seedSeconds.toFixed(1)),
    };
    console.log(JSON.stringify(result, null, 2));
    const ratios = Object.entries(pageRatios)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    console.log(
      `kapis: full list ${small.fullList.reqPerSec} req/s @100 nodes, ${large.fullList.reqPerSec} req/s @${NODES} (p99 ${large.fullList.p99ms} ms); ` +
        `limit=10 page 10k/100 mean-latency ratios (target <= ${PAGE_RATIO_TARGET}): ${ratios}; ` +
        `RSS ${rssSmall} -> ${rss} MiB with ${NODES} nodes + ${PODS} pods cached (~${result.rssBytesPerCachedObject} bytes per object)`,
    );
  } finally {
    await cleanup();
  }
}

await main();
