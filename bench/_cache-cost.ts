// Memory per cached object by kind, for bench/kapis.ts: the informers kapiserver runs (entries and their namespace
// and label indexes), filled from the cluster of the kubeconfig given as the argument, in a process of their own (run
// with --expose-gc) so nothing else's memory is counted. Heap bytes (what V8's collections walk) and external bytes
// (the objects' JSON, kept outside the heap) are reported apart; both count in the process's RSS. Prints one JSON
// object: resource -> { objects, heapBytesPerObject, externalBytesPerObject }.
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterCache, ClusterConnection } from '../src/apiserver/cluster/index.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
/** Memory in use once the garbage is gone: a full collection's sweeping finishes in the background. */
async function settled() {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await sleep(200);
  }
  const { heapUsed, external } = process.memoryUsage();
  return { heapUsed, external };
}
const cluster = ClusterConnection.fromFile(process.argv[2]);
const cache = new ClusterCache(cluster, undefined, { pageSize: 5000 });
const out: Record<string, { objects: number; heapBytesPerObject: number; externalBytesPerObject: number }> =
  {};
// The informer code's first run compiles it (heap too): done on namespaces, which are not reported.
await cache.informer({ group: '', version: 'v1', resource: 'namespaces' }).waitForSync(60_000);
for (const resource of ['nodes', 'pods', 'events']) {
  const before = await settled();
  const inf = cache.informer({ group: '', version: 'v1', resource });
  if (!(await inf.waitForSync(600_000))) throw new Error(`${resource} did not sync`);
  const after = await settled();
  const per = (bytes: number) => Math.round(bytes / Math.max(1, inf.size));
  out[resource] = {
    objects: inf.size,
    heapBytesPerObject: per(after.heapUsed - before.heapUsed),
    externalBytesPerObject: per(after.external - before.external),
  };
}
await cache.close();
await cluster.close();
console.log(JSON.stringify(out));
