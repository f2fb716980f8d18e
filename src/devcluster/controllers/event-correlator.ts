// What an event recorder does before it writes an Event, as client-go's record.EventCorrelator (events_cache.go):
//   1. aggregation: the 10th distinct message of "similar" events (same source, involved object, type and reason)
//      within 10 minutes of the previous one becomes one event "(combined from similar events): <message>", counted
//      from then on;
//   2. counting: an event identical to one recorded before (same source, involved object and field path, type,
//      reason, message) increments that Event's count and lastTimestamp instead of creating another object;
//   3. spam filter: a token bucket per source and involved object (burst 25, one more every 5 minutes) drops the
//      excess, counted updates included.
// Each cache keeps its 4,096 most recently used keys, as client-go's LRUs do.

export interface EventFacts {
  component: string;
  host: string;
  involved: {
    kind: string;
    namespace: string;
    name: string;
    uid: string;
    apiVersion: string;
    fieldPath: string;
  };
  type: string;
  reason: string;
  message: string;
}

/** What to write: nothing (spam), a new Event, or `count` and `message` of the existing Event `name`. */
export type Correlation =
  | { skip: true }
  | {
      skip: false;
      /** The Event's name: the one given for a new Event, the existing one's for a repeat. */
      name: string;
      /** True when an Event of this name was recorded before (count > 1). */
      repeat: boolean;
      message: string;
      count: number;
      /** First occurrence, ms. */
      firstMs: number;
    };

const CACHE_ENTRIES = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_REFILL_PER_MS = 1 / 300_000;
const COMBINED_PREFIX = '(combined from similar events): ';

/** A Map that forgets its least recently used key beyond `max` entries. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

const sep = '\u0000';
const objectKey = (f: EventFacts) => [
  f.component,
  f.host,
  f.involved.kind,
  f.involved.namespace,
  f.involved.name,
  f.involved.uid,
  f.involved.apiVersion,
];

export class EventCorrelator {
  private readonly similar = new Lru<{ messages: Set<string>; lastMs: number }>(CACHE_ENTRIES);
  private readonly seen = new Lru<{ name: string; count: number; firstMs: number }>(CACHE_ENTRIES);
  private readonly buckets = new Lru<{ tokens: number; atMs: number }>(CACHE_ENTRIES);

  /** `name` is what a new Event would be called. */
  correlate(f: EventFacts, nowMs: number, name: string): Correlation {
    const { message, key } = this.aggregate(f, nowMs);
    const last = this.seen.get(key);
    const next = last ? { ...last, count: last.count + 1 } : { name, count: 1, firstMs: nowMs };
    // Recorded before the spam filter, as client-go does: a dropped repeat still counts for the next one.
    this.seen.set(key, next);
    if (!this.allow(objectKey(f).join(sep), nowMs)) return { skip: true };
    return { skip: false, ...next, repeat: last !== undefined, message };
  }

  private aggregate(f: EventFacts, nowMs: number): { message: string; key: string } {
    const similarKey = [...objectKey(f), f.type, f.reason].join(sep);
    const exactKey = [...objectKey(f), f.involved.fieldPath, f.type, f.reason, f.message].join(sep);
    let rec = this.similar.get(similarKey);
    if (!rec || nowMs - rec.lastMs > AGGREGATE_INTERVAL_MS) rec = { messages: new Set(), lastMs: nowMs };
    rec.messages.add(f.message);
    rec.lastMs = nowMs;
    this.similar.set(similarKey, rec);
    if (rec.messages.size < AGGREGATE_MAX_EVENTS) return { message: f.message, key: exactKey };
    // Keep the set at its threshold, so every further similar event is combined too.
    rec.messages.delete(rec.messages.values().next().value as string);
    return { message: COMBINED_PREFIX + f.message, key: similarKey };
  }

  /** Token bucket per source and object: full at first, refilled continuously. */
  private allow(key: string, nowMs: number): boolean {
    const b = this.buckets.get(key) ?? { tokens: SPAM_BURST, atMs: nowMs };
    b.tokens = Math.min(SPAM_BURST, b.tokens + Math.max(0, nowMs - b.atMs) * SPAM_REFILL_PER_MS);
    b.atMs = nowMs;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    this.buckets.set(key, b);
    return ok;
  }
}
