// The v1alpha3 list engine against a brute-force reference: every sort order KubeSphere accepts for pods (both
// directions, ties in every key), filters answered by indexes, by the remembered name answer and by predicates,
// several pages and no paging, before and after adds, updates and deletes reach the informer's sorted views.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ClusterCache, type Entry, type Informer } from '../../../../src/apiserver/cluster/index.ts';
import { parseListQuery } from '../../../../src/apiserver/kapis/query.ts';
import { RESOURCE_BY_NAME, type ResourceDef } from '../../../../src/apiserver/kapis/resources/defs.ts';
import { listPage } from '../../../../src/apiserver/kapis/resources/list.ts';
import { podStatus } from '../../../../src/apiserver/kapis/resources/status.ts';
import { startTinyApiServer, type TinyApiServer } from '../fixtures/tiny-apiserver.ts';

const PODS = RESOURCE_BY_NAME.get('pods') as ResourceDef;
const NAMESPACES = ['alpha', 'beta', 'gamma'];
const PHASES = ['Running', 'Pending', 'Succeeded', 'Failed'];

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const rnd = random(17);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
/** Few distinct times, so sort keys tie often and ties must go by name, then namespace. */
const time = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString();

let uids = 0;

/** A pod; a new object unless `same` (an update: the same uid and creation time, a new status). */
function pod(name: string, namespace: string, same?: { uid: string; creationTimestamp: string }) {
  return {
    metadata: {
      name,
      namespace,
      uid: same?.uid ?? `uid-${uids++}`,
      creationTimestamp: same?.creationTimestamp ?? time(Math.floor(rnd() * 5)),
      labels: { app: pick(['web', 'db', 'cache']) },
    },
    spec: {},
    status: { phase: pick(PHASES), ...(rnd() < 0.7 ? { startTime: time(5 + Math.floor(rnd() * 5)) } : {}) },
  };
}

let tiny: TinyApiServer;
let cache: ClusterCache;
let inf: Informer;
let sentinel = 0;
const SENTINEL = pod('sentinel', 'alpha');
const live = new Map<string, { name: string; namespace: string }>();

/**
 * Puts and deletes, then waits until the informer has seen all of them: an update of a sentinel pod, put last,
 * arrives last (an update, so it changes no membership itself).
 */
async function change(fn: () => void): Promise<void> {
  fn();
  const seq = String(++sentinel);
  tiny.put({ ...SENTINEL, metadata: { ...SENTINEL.metadata, labels: { seq } } });
  const end = Date.now() + 10_000;
  while (inf.get('alpha', 'sentinel')?.labels?.seq !== seq) {
    if (Date.now() > end) throw new Error('the informer did not catch up');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function putPod(name: string, namespace: string): void {
  tiny.put(pod(name, namespace));
  live.set(`${namespace}/${name}`, { name, namespace });
}

before(async () => {
  tiny = await startTinyApiServer('/api/v1/pods');
  // Names share prefixes and repeat across namespaces, so name ties break by namespace.
  for (let i = 0; i < 240; i++) putPod(`pod-${Math.floor(rnd() * 120)}`, pick(NAMESPACES));
  // A rare label: with it, a name filter is checked on its few candidates instead of a remembered answer.
  for (let i = 0; i < 12; i++) {
    const p = pod(`rare-${i % 7}`, pick(NAMESPACES));
    p.metadata.labels.app = 'rare';
    tiny.put(p);
    live.set(`${p.metadata.namespace}/${p.metadata.name}`, {
      name: p.metadata.name,
      namespace: p.metadata.namespace,
    });
  }
  tiny.put(SENTINEL);
  live.set('alpha/sentinel', { name: 'sentinel', namespace: 'alpha' });
  cache = new ClusterCache(tiny.connection(), undefined, { maxBackoffMs: 200 });
  inf = cache.informer(PODS.ref);
  assert.equal(await inf.waitForSync(10_000), true);
});

after(async () => {
  await cache?.close();
  await tiny?.close();
});

/** KubeSphere's order, computed from scratch: the key, then name, then namespace; descending is the reverse. */
function reference(query: string, namespace?: string): { names: string[]; total: number } {
  const q = parseListQuery(query, PODS.sortFields);
  const keyOf = (e: Entry): number => {
    const obj = e.object();
    const status = obj.status as { startTime?: string };
    if (q.sortBy === 'startTime') return Date.parse(status.startTime ?? '') || e.created;
    return q.sortBy === 'name' ? 0 : e.created;
  };
  const matches = (e: Entry) => {
    if (namespace !== undefined && e.namespace !== namespace) return false;
    for (const [field, value] of q.filters) {
      if (field === 'name' && !e.name.includes(value)) return false;
      if (field === 'status' && podStatus(e.object()) !== value) return false;
      if (field === 'namespace' && e.namespace !== value) return false;
      if (field === 'label') {
        // KubeSphere's `key!=value` still needs the key.
        const [k, v] = value.split('=');
        const label = e.labels?.[k.replace(/!$/, '')];
        if (label === undefined || (k.endsWith('!') ? label === v : label !== v)) return false;
      }
    }
    return q.labelSelector?.matches(e.labels ?? {}) ?? true;
  };
  const all = [...inf.entries()].filter(matches);
  const str = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  all.sort((a, b) => keyOf(a) - keyOf(b) || str(a.name, b.name) || str(a.namespace, b.namespace));
  if (!q.ascending) all.reverse();
  const offset = q.limit === undefined ? 0 : (q.page - 1) * q.limit;
  const page = all.slice(offset, q.limit === undefined ? undefined : offset + q.limit);
  return { names: page.map((e) => e.key), total: all.length };
}

const SORTS = ['', 'sortBy=creationTimestamp', 'sortBy=createTime', 'sortBy=name', 'sortBy=startTime'];
const FILTERS = [
  '',
  'name=pod-1',
  'name=7',
  'name=no-such-pod',
  'status=Running',
  'status=Error',
  'label=app=web',
  'label=app!=web',
  'namespace=beta',
  'name=pod-1&status=Waiting',
  'name=2&label=app=db',
  'name=rare-1&label=app=rare',
  'name=e&label=app=rare',
  'labelSelector=app%3Dweb',
  'labelSelector=app',
  'labelSelector=app%20in%20(db)',
  'labelSelector=app%20in%20(db,web)',
  'labelSelector=app!%3Dweb',
  'labelSelector=app%3Drare,!seq&name=1',
];
const PAGES = ['limit=10', 'limit=10&page=3', 'limit=7&page=40', 'limit=1'];

function checkAll(): void {
  for (const sort of SORTS) {
    for (const ascending of ['', 'ascending=true']) {
      for (const filter of FILTERS) {
        for (const paging of [...PAGES, '']) {
          const query = [sort, ascending, filter, paging].filter(Boolean).join('&');
          for (const namespace of [undefined, 'gamma']) {
            const page = listPage(inf, PODS, parseListQuery(query, PODS.sortFields), namespace);
            const got = { names: page.entries.map((e) => e.key), total: page.total };
            assert.deepEqual(
              got,
              reference(query, namespace),
              `${query} in ${namespace ?? 'all namespaces'}`,
            );
          }
        }
      }
    }
  }
}

test('pages, orders and totals equal a full filter and sort, for every sort key and filter', () => {
  checkAll();
});

/** Keys of the pods in the informer (sentinels aside). */
const podKeys = () => [...live.keys()].filter((k) => k !== 'alpha/sentinel');

function update(key: string): void {
  const e = inf.getByKey(key);
  if (!e) throw new Error(`${key} is not cached`);
  const meta = e.object().metadata ?? {};
  tiny.put(pod(e.name, e.namespace, { uid: e.uid, creationTimestamp: String(meta.creationTimestamp) }));
}

test('the sorted views and the remembered name answers follow updates, replacements, adds and deletes', async () => {
  checkAll(); // builds every view and name answer before the changes
  // Updates only: new statuses and start times, the same objects.
  await change(() => {
    for (const key of podKeys().slice(0, 80)) update(key);
  });
  checkAll();
  // Replacements only: the same names, new objects (new uid and creation time), as a relist can show them.
  await change(() => {
    for (const key of podKeys().slice(80, 160)) {
      const { name, namespace } = live.get(key) ?? { name: '', namespace: '' };
      putPod(name, namespace);
    }
  });
  checkAll();
  await change(() => {
    for (const key of podKeys().slice(0, 40)) {
      const { name, namespace } = live.get(key) ?? { name: '', namespace: '' };
      tiny.del(name, namespace);
      live.delete(key);
    }
    for (let i = 0; i < 40; i++) putPod(`pod-1${i}`, pick(NAMESPACES));
  });
  assert.equal(inf.size, live.size);
  checkAll();
});
