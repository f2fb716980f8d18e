// The v1alpha3 list engine alone (no HTTP, no authentication): CPU time of one limit=10 page (query parsing, filters,
// sort, page, serialisation) over an informer of 100 objects and one of 10,000, for the node pages bench/kapis.ts
// requests and pods by their own sort key (startTime). It shows what the engine itself adds per request as the cache grows; bench/kapis.ts measures whole
// requests. Pods are listed in namespace `default`, as the console lists them, beside as many kube-system pods (one
// per node, as kube-proxy's DaemonSet makes) that started before and after all of them: a page of `default` must not
// cost a walk past those. Both informers are fed over HTTP by the tiny list+watch server the informer tests use. Median of
// BENCH_ROUNDS (5) rounds, each page's sizes measured alternately. Prints JSON and a one-line summary.
import { ClusterCache, type Informer } from '../src/apiserver/cluster/index.ts';
import { parseListQuery } from '../src/apiserver/kapis/query.ts';
import { RESOURCE_BY_NAME, type ResourceDef } from '../src/apiserver/kapis/resources/defs.ts';
import { listBody, listPage } from '../src/apiserver/kapis/resources/list.ts';
import { startTinyApiServer } from '../test/apiserver/kapis/fixtures/tiny-apiserver.ts';
import { benchNode, median } from './_helpers.ts';

const LARGE = Number(process.env.BENCH_NODES ?? 10_000);
const SMALL = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TARGET = 1.2;
const NODES = RESOURCE_BY_NAME.get('nodes') as ResourceDef;
const PODS = RESOURCE_BY_NAME.get('pods') as ResourceDef;
/** Page name -> the type, the query, and the route's namespace. */
const PAGES: Record<string, [ResourceDef, string, string?]> = {
  page3: [NODES, 'limit=10&page=3'],
  createTimeAscending: [NODES, 'limit=10&page=3&sortBy=createTime&ascending=true'],
  name: [NODES, 'limit=10&page=3&sortBy=name'],
  nameAscending: [NODES, 'limit=10&page=3&sortBy=name&ascending=true'],
  nameFilter: [NODES, 'limit=10&name=bench-node-1&sortBy=name'],
  nameFilterByCreation: [NODES, 'limit=10&name=bench-node-1'],
  statusFilter: [NODES, 'limit=10&status=running&sortBy=name'],
  podsStartTime: [PODS, 'limit=10&page=2&sortBy=startTime', 'default'],
  podsStartTimeAscending: [PODS, 'limit=10&page=2&sortBy=startTime&ascending=true', 'default'],
  podsNameFilter: [PODS, 'limit=10&name=bench-pod-1&sortBy=createTime', 'default'],
};

const at = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();

function pod(i: number) {
  return {
    metadata: { name: `bench-pod-${i}`, namespace: 'default', creationTimestamp: at(i) },
    spec: { nodeName: `bench-node-${i}` },
    status: { phase: 'Running', startTime: at(i + ((i * 7919) % 600)) },
  };
}

/** Node `i`'s kube-proxy pod of `size` nodes: the first half started before every bench pod, the rest after. */
function proxyPod(i: number, size: number) {
  const start = i < size / 2 ? -size + i : 2 * size + 600 + i;
  return {
    metadata: { name: `kube-proxy-${i}`, namespace: 'kube-system', creationTimestamp: at(start) },
    spec: { nodeName: `bench-node-${i}` },
    status: { phase: 'Running', startTime: at(start) },
  };
}

async function informerOf(def: ResourceDef, size: number) {
  const tiny = await startTinyApiServer(def === NODES ? '/api/v1/nodes' : '/api/v1/pods');
  for (let i = 0; i < size; i++) {
    if (def === PODS) {
      tiny.put(pod(i));
      tiny.put(proxyPod(i, size));
      continue;
    }
    const node = benchNode(i) as { metadata: Record<string, unknown> };
    node.metadata.creationTimestamp = at(i);
    tiny.put(node as never);
  }
  const cache = new ClusterCache(tiny.connection());
  const inf = cache.informer(def.ref);
  if (!(await inf.waitForSync(60_000))) throw new Error('the informer did not sync');
  return {
    inf,
    close: async () => {
      await cache.close();
      await tiny.close();
    },
  };
}

/** CPU microseconds per page, over about `ms` of calls. */
function cpuPerPage(inf: Informer, def: ResourceDef, query: string, namespace?: string, ms = 200): number {
  const start = process.cpuUsage();
  const end = performance.now() + ms;
  let calls = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 20; i++)
      listBody(listPage(inf, def, parseListQuery(query, def.sortFields), namespace));
    calls += 20;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const informers = new Map<ResourceDef, { small: Informer; large: Informer }>();
const closers: (() => Promise<void>)[] = [];
for (const def of [NODES, PODS]) {
  const small = await informerOf(def, SMALL);
  const large = await informerOf(def, LARGE);
  closers.push(small.close, large.close);
  informers.set(def, { small: small.inf, large: large.inf });
}
try {
  const results: Record<string, { smallUs: number; largeUs: number; ratio: number }> = {};
  for (const [name, [def, query, namespace]] of Object.entries(PAGES)) {
    const pair = informers.get(def);
    if (!pair) throw new Error(`no informers of ${def.name}`);
    // Warm-up: builds the views and answers the page needs and lets the JIT settle.
    cpuPerPage(pair.small, def, query, namespace, 100);
    cpuPerPage(pair.large, def, query, namespace, 100);
    const s: number[] = [];
    const l: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      s.push(cpuPerPage(pair.small, def, query, namespace));
      l.push(cpuPerPage(pair.large, def, query, namespace));
    }
    const smallUs = median(s);
    const largeUs = median(l);
    results[name] = {
      smallUs: Number(smallUs.toFixed(1)),
      largeUs: Number(largeUs.toFixed(1)),
      ratio: Number((largeUs / smallUs).toFixed(2)),
    };
  }
  console.log(
    JSON.stringify(
      { benchmark: 'kapis list engine', objects: { small: SMALL, large: LARGE }, results },
      null,
      2,
    ),
  );
  const line = Object.entries(results)
    .map(([k, r]) => `${k} ${r.ratio} (${r.smallUs} -> ${r.largeUs} us)`)
    .join(', ');
  console.log(`kapis engine: limit=10 page CPU ${LARGE}/${SMALL} objects (target <= ${TARGET}): ${line}`);
} finally {
  for (const close of closers) await close();
}
