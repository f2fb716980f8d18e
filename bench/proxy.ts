// Forwarding overhead benchmark (loopback only, bounded), all in one run:
//  - requests/s and p99 latency for GET /api/v1/nodes and for a ~1 MB list (configmaps), through kapiserver's HTTPS
//    port (token authentication + RBAC authorization + forwarding), straight to the dev cluster's HTTPS port, and
//    through a bare undici forwarder (HTTPS with the same certificate, one pool, no authentication: the floor of what
//    forwarding costs in Node); targets: kapiserver >= 0.6 of direct and >= 0.9 of the bare forwarder;
//  - the latency a watch event gains through kapiserver: two watches (direct and through kapiserver) see the same
//    writes; the difference of their arrival times per event.
// kapiserver runs as its own process, as `npm start` runs it (node dist/main.js after npm run build: the figures are
// what users get; BENCH_KAPISERVER_DIR=<checkout> runs another checkout's, e.g. a worktree of an earlier revision, for
// before/after figures from one bench), logging requests at info to a pipe this process drains. The dev cluster runs
// as its own process; autocannon runs as its own process for every target, so the load generator never shares a core
// with what it measures any differently between them. Direct and kapiserver runs
// alternate for BENCH_ROUNDS rounds (medians reported), so drift in the machine's load hits both alike.
// Where /proc exists, each run also records the CPU time per request of every process involved (dev cluster,
// the forwarder: kapiserver's process or, for the bare forwarder, this one; autocannon): when all of them share few
// cores, throughput follows CPU per request, and `cpuBoundRatio` is the ratio those costs alone permit on this
// machine's cores. Prints JSON + a summary.
// BENCH_TARGETS=nodes,bigList runs only those; BENCH_CPU_PROF=<dir>: kapiserver runs with --cpu-prof and writes its
// profile (its whole life: start-up, then mostly the load) under <dir> when it exits.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, Pool, request } from 'undici';
import { ensureLocalPki } from '../src/pki/index.ts';
import { startDevClusterProcess } from '../test/helpers/devcluster.ts';
import { login } from '../test/helpers/oauth.ts';
import {
  autocannon,
  cpuSeconds,
  type Load,
  median,
  medianOf,
  ownChild,
  productionCommand,
  spawnKapiserver,
} from './_helpers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const WATCH_EVENTS = Number(process.env.BENCH_WATCH_EVENTS ?? 60);
const TARGET = { ofDirect: 0.6, ofBareForwarder: 0.9 };
const CPU_PROF = process.env.BENCH_CPU_PROF;
const ONLY_TARGETS = process.env.BENCH_TARGETS?.split(',');
const KAPISERVER_DIR = resolve(process.env.BENCH_KAPISERVER_DIR ?? resolve(import.meta.dirname, '..'));

/** Microseconds of CPU per request of each process during one run. */
type CpuPerRequest = Record<'devcluster' | 'kapiserver' | 'autocannon', number>;

interface Measured {
  load: Load;
  cpu?: CpuPerRequest;
}

/** The load every run of this benchmark applies: GET `url` with a bearer token. */
function applyLoad(url: string, token: string, caFile: string): Promise<Load> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    seconds: SECONDS,
    headers: { authorization: `Bearer ${token}` },
    caFile,
  });
}

/** As kapiserver's pass-through (proxy/pass-through.ts): reading upstream pauses once this much waits for the client. */
const BARE_PAUSE_AT_BYTES = 256 * 1024;

/**
 * The least a Node forwarder does: one HTTPS server, one undici pool to the dev cluster sized to the load, the
 * request's path and headers passed on with the cluster's token in place of the client's, and the upstream body
 * streamed straight into the response. No authentication, no authorization, no hooks. It does less than a correct
 * forwarder must (only Connection and Host are dropped upstream, no Status on errors: costs per request, not per
 * byte). It runs in this process: a heap of ~16 MB after loading (tsx, helpers; undici alone ~10 MB, kapiserver's
 * ~35 MB), which counts for a large answer, where V8's full collections, growing with the heap, are much of the cost.
 * It streams through undici's dispatch handler API and pauses reading upstream once 256 KiB wait for the client, as
 * kapiserver's pass-through does (its earlier stream-API version paused at every 16 KiB chunk and allocated more).
 */
async function startBareForwarder(
  dev: { url: string; token: string; caPem: string },
  tls: { cert: string; key: string },
): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new Pool(dev.url, { connect: { ca: dev.caPem }, connections: CONNECTIONS });
  const server = createHttpsServer(tls, (req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${dev.token}` };
    delete headers.host;
    delete headers.connection;
    pool.dispatch(
      {
        path: req.url ?? '/',
        method: req.method as 'GET',
        headers: headers as Record<string, string | string[]>,
        body: req,
      },
      {
        onRequestStart() {},
        onResponseStart(_c, statusCode, upstream) {
          delete upstream['transfer-encoding'];
          delete upstream.connection;
          delete upstream['keep-alive'];
          res.writeHead(statusCode, upstream as Record<string, string | string[]>);
        },
        onResponseData(controller, chunk) {
          if (res.write(chunk) || res.writableLength < BARE_PAUSE_AT_BYTES) return;
          controller.pause();
          res.once('drain', () => controller.resume());
        },
        onResponseEnd() {
          res.end();
        },
        onResponseError() {
          res.destroy();
        },
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.close();
    },
  };
}

/**
 * One autocannon run with the CPU each process spent on it; `forwarder`: the process that forwards (kapiserver's, or
 * this one for the bare forwarder), none for direct runs (its column is 0).
 */
async function measure(
  url: string,
  token: string,
  caFile: string,
  devPid: number,
  forwarder: number | 'self' | undefined,
): Promise<Measured> {
  const dev0 = cpuSeconds(devPid);
  const self0 = cpuSeconds('self');
  const fwd0 = forwarder === undefined ? undefined : cpuSeconds(forwarder);
  const load = await applyLoad(url, token, caFile);
  const fwd1 = forwarder === undefined ? undefined : cpuSeconds(forwarder);
  const dev1 = cpuSeconds(devPid);
  const self1 = cpuSeconds('self');
  if (!dev0 || !dev1 || !self0 || !self1 || load.requests === 0) return { load };
  const us = (seconds: number) => Math.round((seconds / load.requests) * 1e6);
  return {
    load,
    cpu: {
      devcluster: us(dev1.self - dev0.self),
      kapiserver: fwd0 && fwd1 ? us(fwd1.self - fwd0.self) : 0,
      autocannon: us(self1.children - self0.children),
    },
  };
}

/**
 * Requests/s a pipeline of single-threaded processes can sustain on this machine's cores when CPU is the only limit:
 * all of them share the cores, and none can use more than one.
 */
function cpuCapacity(usPerRequest: number[]): number {
  const total = usPerRequest.reduce((a, b) => a + b, 0);
  return Math.min(availableParallelism() / total, 1 / Math.max(...usPerRequest)) * 1e6;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Opens a watch and records the arrival time of each event by object name. */
function watch(url: string, token: string, ca: string, arrivals: Map<string, number>): Promise<() => void> {
  return new Promise((res, rej) => {
    const req = httpsRequest(url, { headers: { authorization: `Bearer ${token}` }, ca }, (r) => {
      if (r.statusCode !== 200) return rej(new Error(`watch ${url}: ${r.statusCode}`));
      let buf = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => {
        const now = performance.now();
        buf += d;
        let nl = buf.indexOf('\n');
        while (nl !== -1) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const name = /"name":"(bench-watch-\d+)"/.exec(line)?.[1];
          if (name && !arrivals.has(name)) arrivals.set(name, now);
          nl = buf.indexOf('\n');
        }
      });
      r.on('error', () => {});
      res(() => req.destroy());
    });
    req.on('error', () => {});
    req.end();
  });
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'kapiserver-bench-proxy-'));
  const dev = await startDevClusterProcess(dataDir);
  ownChild(dev.child);
  // Same data dir: kapiserver's serving certificate comes from the dev cluster's local CA, one CA file for both.
  const { node, described } = productionCommand(KAPISERVER_DIR);
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;
  const kapiserver = spawnKapiserver({
    label: 'proxy',
    cwd: KAPISERVER_DIR,
    node,
    flags: [
      ...['--kubeconfig', dev.kubeconfigPath, '--data-dir', dataDir],
      ...['--bind-address', '127.0.0.1', '--port', '0', '--secure-port', '0'],
    ],
    env: { KAPISERVER_ADMIN_PASSWORD: adminPassword },
    profileDir: CPU_PROF && resolve(CPU_PROF),
  });
  const ports = await kapiserver.listening.catch(async (err) => {
    await dev.close();
    throw err;
  });
  const stack = {
    url: `http://127.0.0.1:${ports.port}`,
    secureUrl: `https://127.0.0.1:${ports.securePort}`,
    adminPassword,
  };
  const caFile = join(dataDir, 'bench-ca.pem');
  writeFileSync(caFile, dev.caPem);
  const agent = new Agent({ connect: { ca: dev.caPem } });
  const { serving } = await ensureLocalPki(dataDir);
  const bare = await startBareForwarder(dev, { cert: serving.certPem, key: serving.keyPem });
  try {
    const token = (await login(stack)).access_token;
    const kapiserverPid = kapiserver.child.pid ?? 0;
    // ~1 MB list: 100 ConfigMaps of ~10 KB in their own namespace.
    const devHeaders = { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const r = await request(`${dev.url}${path}`, {
        method: 'POST',
        dispatcher: agent,
        headers: devHeaders,
        body: JSON.stringify(body),
      });
      await r.body.text();
      if (r.statusCode >= 300 && r.statusCode !== 409) throw new Error(`POST ${path}: ${r.statusCode}`);
    };
    await post('/api/v1/namespaces', { metadata: { name: 'bench' } });
    for (let i = 0; i < 100; i++) {
      await post('/api/v1/namespaces/bench/configmaps', {
        metadata: { name: `big-${i}` },
        data: { payload: 'x'.repeat(10_000) },
      });
    }
    const bigList = await request(`${dev.url}/api/v1/namespaces/bench/configmaps`, {
      dispatcher: agent,
      headers: devHeaders,
    });
    const listBytes = (await bigList.body.arrayBuffer()).byteLength;

    const targets = {
      nodes: '/api/v1/nodes',
      bigList: '/api/v1/namespaces/bench/configmaps',
    };
    interface Result {
      direct: Load;
      bareForwarder: Load;
      kapiserver: Load;
      /** kapiserver / direct */
      ratio: number;
      /** kapiserver / bare forwarder */
      ratioToBare: number;
      cpuUsPerRequest?: { direct: CpuPerRequest; bareForwarder: CpuPerRequest; kapiserver: CpuPerRequest };
      cpuBoundRatio?: number;
      /** kapiserver's CPU per request over the bare forwarder's (median of each round's pair): its own overhead. */
      cpuToBare?: number;
    }
    const results: Record<string, Result> = {};
    const devPid = dev.child.pid ?? 0;
    for (const [name, path] of Object.entries(targets)) {
      if (ONLY_TARGETS && !ONLY_TARGETS.includes(name)) continue;
      // Warm every path (connections, caches), then alternate direct, bare forwarder and kapiserver runs.
      const paths = {
        direct: [`${dev.url}${path}`, dev.token],
        bareForwarder: [`${bare.url}${path}`, 'unused'],
        kapiserver: [`${stack.secureUrl}${path}`, token],
      } as const;
      type Path = keyof typeof paths;
      for (const [url, bearer] of Object.values(paths)) {
        await applyLoad(url, bearer, caFile).catch(() => undefined);
      }
      const runs: Record<Path, Measured[]> = { direct: [], bareForwarder: [], kapiserver: [] };
      for (let r = 0; r < ROUNDS; r++) {
        for (const [name, [url, bearer]] of Object.entries(paths) as [Path, readonly [string, string]][]) {
          const forwarder = { direct: undefined, bareForwarder: 'self', kapiserver: kapiserverPid } as const;
          runs[name].push(await measure(url, bearer, caFile, devPid, forwarder[name]));
        }
      }
      const direct = medianOf(runs.direct.map((m) => m.load));
      const bareForwarder = medianOf(runs.bareForwarder.map((m) => m.load));
      const kapiserver = medianOf(runs.kapiserver.map((m) => m.load));
      // Each round's ratio compares runs that were adjacent in time; the median of those resists drift best.
      const ratioOf = (base: Path) =>
        median(runs[base].map((b, i) => runs.kapiserver[i].load.rps / b.load.rps));
      const result: Result = {
        direct,
        bareForwarder,
        kapiserver,
        ratio: ratioOf('direct'),
        ratioToBare: ratioOf('bareForwarder'),
      };
      const cpuOf = (name: Path) =>
        runs[name].map((m) => m.cpu).filter((c): c is CpuPerRequest => c !== undefined);
      const cpuDirect = cpuOf('direct');
      const cpuBare = cpuOf('bareForwarder');
      const cpuThrough = cpuOf('kapiserver');
      if (cpuDirect.length > 0 && cpuBare.length > 0 && cpuThrough.length > 0) {
        const d = medianOf(cpuDirect);
        const k = medianOf(cpuThrough);
        result.cpuUsPerRequest = {
          direct: d,
          bareForwarder: medianOf(cpuBare),
          kapiserver: k,
        };
        result.cpuBoundRatio =
          cpuCapacity([k.devcluster, k.kapiserver, k.autocannon]) / cpuCapacity([d.devcluster, d.autocannon]);
        if (cpuBare.length === cpuThrough.length)
          result.cpuToBare = median(cpuThrough.map((c, i) => c.kapiserver / cpuBare[i].kapiserver));
      }
      results[name] = result;
    }

    // Watch event latency: the same writes observed directly and through kapiserver.
    const direct = new Map<string, number>();
    const through = new Map<string, number>();
    const watchPath = '/api/v1/namespaces/bench/configmaps?watch=true&resourceVersion=0';
    const stopDirect = await watch(`${dev.url}${watchPath}`, dev.token, dev.caPem, direct);
    const stopThrough = await watch(`${stack.secureUrl}${watchPath}`, token, dev.caPem, through);
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < WATCH_EVENTS; i++) {
      await post('/api/v1/namespaces/bench/configmaps', { metadata: { name: `bench-watch-${i}` } });
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 1000));
    stopDirect();
    stopThrough();
    const added = [...direct]
      .filter(([n]) => through.has(n))
      .map(([n, t]) => through.get(n)! - t)
      .sort((a, b) => a - b);

    const report = {
      benchmark: 'proxy',
      kapiserver: described,
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      cores: availableParallelism(),
      listBytes,
      nodes: results.nodes,
      bigList: results.bigList,
      watch: {
        events: WATCH_EVENTS,
        seenBoth: added.length,
        addedLatencyMsP50: Number(percentile(added, 50).toFixed(2)),
        addedLatencyMsP99: Number(percentile(added, 99).toFixed(2)),
      },
      target: TARGET,
    };
    console.log(JSON.stringify(report, null, 2));
    const f = (x: number) => x.toFixed(0);
    const cpu = (r: Result) =>
      r.cpuUsPerRequest
        ? `; CPU/req kapiserver ${r.cpuUsPerRequest.kapiserver.kapiserver} us, bare forwarder ${r.cpuUsPerRequest.bareForwarder.kapiserver} us, dev cluster ${r.cpuUsPerRequest.direct.devcluster} us, kapiserver/bare CPU ${r.cpuToBare?.toFixed(2)}, CPU-bound ratio ${r.cpuBoundRatio?.toFixed(2)}`
        : '';
    const line = (r: Result | undefined) =>
      r === undefined
        ? 'not run'
        : `kapiserver/direct/bare ${f(r.kapiserver.rps)}/${f(r.direct.rps)}/${f(r.bareForwarder.rps)} req/s, ` +
          `ratio to direct ${r.ratio.toFixed(2)} (target >= ${TARGET.ofDirect}), ` +
          `to bare forwarder ${r.ratioToBare.toFixed(2)} (target >= ${TARGET.ofBareForwarder}), ` +
          `p99 ${r.kapiserver.p99}/${r.direct.p99}/${r.bareForwarder.p99} ms${cpu(r)}`;
    console.log(
      `proxy (kapiserver: ${described}): nodes ${line(results.nodes)}; ${(listBytes / 1e6).toFixed(2)} MB list ${line(results.bigList)}; ` +
        `watch event +${report.watch.addedLatencyMsP50} ms p50, +${report.watch.addedLatencyMsP99} ms p99 (${added.length}/${WATCH_EVENTS} events)`,
    );
  } finally {
    await bare.close();
    await agent.close();
    const exited = new Promise((r) => kapiserver.child.once('exit', r));
    kapiserver.child.kill('SIGTERM');
    await exited;
    await dev.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
