// Login-record retention (reference 4.2): a user keeps at most loginHistoryMaximumEntries records, none older than
// loginHistoryRetentionPeriod (pruned within PRUNE_WITHIN_MS of a new record, the records of a burst together); the
// user is requeued for the moment its oldest remaining record expires. Keys are user
// names (the `iam.kubesphere.io/user-ref` label); a deleted user's records go with it (users.ts).
import type { AuthenticationOptions } from '../../config/index.ts';
import type { Clock } from '../clock.ts';
import { type ClusterCache, type Entry, isNotFound, type KubeRest } from '../cluster/index.ts';
import { USER_REF_LABEL } from '../iam/labels.ts';
import { LOGIN_RECORDS, objectPath } from './resources.ts';
import { type Controller, enqueueKeys } from './runner.ts';

/** Creation times have one-second precision: a record counts as created at the end of its second. */
const CREATION_PRECISION_MS = 1000;

/** Newest first: creation time, then resourceVersion (the later write within a second). */
function newestFirst(a: Entry, b: Entry): number {
  const t = b.created - a.created;
  if (t !== 0) return t;
  const ra = a.resourceVersion;
  const rb = b.resourceVersion;
  return rb.length - ra.length || (rb > ra ? 1 : rb < ra ? -1 : 0);
}

/**
 * A user's records are pruned at most this long after the first of a burst is added, together: during a login storm
 * one reconcile deletes the records of many logins, which costs kapiserver and the cluster less per record than a
 * reconcile per login (bench/oauth). A user may hold this long's records beyond the maximum.
 */
const PRUNE_WITHIN_MS = 500;

/** Beyond this many records over the maximum, they are sorted rather than picked out one pass each. */
const FEW = 8;

/**
 * The `count` oldest of `records` (by newestFirst). A login adds one record at a time, so usually one is over the
 * maximum: it is found in one pass instead of sorting every record of the user on every login.
 */
export function oldest(records: readonly Entry[], count: number): Set<Entry> {
  if (count <= 0) return new Set();
  if (count > FEW) return new Set([...records].sort(newestFirst).slice(Math.max(0, records.length - count)));
  const picked = new Set<Entry>();
  while (picked.size < Math.min(count, records.length)) {
    let old: Entry | undefined;
    for (const r of records) if (!picked.has(r) && (!old || newestFirst(r, old) > 0)) old = r;
    picked.add(old as Entry);
  }
  return picked;
}

export function loginRecordController(
  cache: ClusterCache,
  rest: KubeRest,
  options: () => AuthenticationOptions,
  clock: Clock,
): Controller {
  const records = cache.informer(LOGIN_RECORDS);
  return {
    name: 'loginrecord',
    informers: [records],
    watch(enqueue) {
      // A record that goes never calls for pruning: the deletes this controller makes (one per login once a user is
      // at the maximum) need no reconcile of their own.
      const { onAdd, onUpdate } = enqueueKeys(
        (user) => enqueue(user, PRUNE_WITHIN_MS),
        (o) => [o.metadata?.labels?.[USER_REF_LABEL] ?? ''].filter(Boolean),
      );
      return [records.addEventHandler({ onAdd, onUpdate })];
    },
    async reconcile(user) {
      const { loginHistoryRetentionPeriod: retentionMs, loginHistoryMaximumEntries: maxEntries } = options();
      const now = clock.now();
      const expiry = (r: Entry) => r.created + CREATION_PRECISION_MS + retentionMs;
      // Every login adds a record: the cached entries' fields suffice, no record is parsed (and no array copied).
      const own: Entry[] = [];
      for (const key of records.keysWithLabel(USER_REF_LABEL, user)) {
        const r = records.getByKey(key);
        if (r?.name) own.push(r);
      }
      const over = oldest(own, own.length - maxEntries);
      let nextExpiry = Infinity;
      for (const r of own) {
        if (!over.has(r) && expiry(r) > now) {
          nextExpiry = Math.min(nextExpiry, expiry(r));
          continue;
        }
        try {
          await rest.delete(objectPath(LOGIN_RECORDS, r.name));
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      return nextExpiry === Infinity ? undefined : { requeueAfterMs: nextExpiry - now };
    },
  };
}
