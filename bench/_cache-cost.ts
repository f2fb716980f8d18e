// Heap bytes per cached object by kind, for bench/kapis.ts: the informers kapiserver runs (entries and their namespace
// and label indexes), filled from the cluster of the kubeconfig given as the argument, in a process of their own (run
// with --expose-gc) so nothing else's heap is counted. Prints one JSON object: resource -> { objects, heapBytesPerObject }.
import { ClusterCache, ClusterConnection } from '../src/apiserver/cluster/index.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const cluster = ClusterConnection.fromFile(process.argv[2]);
const cache = new ClusterCache(cluster, undefined, { pageSize: 5000 });
const out: Record<string, { objects: number; heapBytesPerObject: number }> = {};
// The informer code's first run compiles it (heap too): done on namespaces, which are not reported.
await cache.informer({ group: '', version: 'v1', resource: 'namespaces' }).waitForSync(60_000);
for (const resource of ['nodes', 'pods', 'events']) {
  gc();
  const before = process.memoryUsage().heapUsed;
  const inf = cache.informer({ group: '', version: 'v1', resource });
  if (!(await inf.waitForSync(600_000))) throw new Error(`${resource} did not sync`);
  gc();
  const bytes = process.memoryUsage().heapUsed - before;
  out[resource] = { objects: inf.size, heapBytesPerObject: Math.round(bytes / Math.max(1, inf.size)) };
}
await cache.close();
await cluster.close();
console.log(JSON.stringify(out));
