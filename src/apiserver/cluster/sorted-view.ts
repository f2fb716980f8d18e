// One sorted view of an informer's entries, kept in order as entries come and go: a binary search and a splice per
// change (moving at most n references), so a request pages through it instead of sorting. Ascending by name, by
// creation time, or by a numeric key computed once per entry; ties by name, then namespace, so the order is total.
import type { Entry, KubeObject } from './informer.ts';

export type SortField = 'creationTimestamp' | 'name';

/** A numeric sort key of an object (e.g. a time in ms), computed once per entry when the entry is cached. */
export type SortKeyFunc = (obj: KubeObject) => number;

/** What a view is ordered by: a field every entry carries, or a key function (the view's identity is the function). */
export type SortOrder = SortField | SortKeyFunc;

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const byName = (a: Entry, b: Entry) => cmp(a.name, b.name) || cmp(a.namespace, b.namespace);
/** KubeSphere breaks timestamp ties by name. */
const byCreation = (a: Entry, b: Entry) => a.created - b.created || byName(a, b);

export class SortedView {
  /** Ascending; readers must not mutate it. */
  readonly entries: Entry[];
  /** The view's order over any entry of its informer. */
  readonly compare: (a: Entry, b: Entry) => number;
  /** Keys of a key-function view, per entry (entries are immutable: an update brings a new entry). */
  private readonly keys?: WeakMap<Entry, number>;
  private readonly keyOf?: SortKeyFunc;

  constructor(order: SortOrder, all: Iterable<Entry>) {
    if (typeof order === 'function') {
      const keys = new WeakMap<Entry, number>();
      this.keys = keys;
      this.keyOf = order;
      this.compare = (a, b) => (keys.get(a) ?? 0) - (keys.get(b) ?? 0) || byName(a, b);
    } else {
      this.compare = order === 'name' ? byName : byCreation;
    }
    const entries: Entry[] = [];
    for (const e of all) {
      if (this.keys) this.keys.set(e, this.key(e.object()));
      entries.push(e);
    }
    this.entries = entries.sort(this.compare);
  }

  /** Inserts a new entry; `obj` is its parsed object (saves a parse for key-function views). */
  add(entry: Entry, obj: KubeObject): void {
    if (this.keys) this.keys.set(entry, this.key(obj));
    this.entries.splice(this.lowerBound(entry), 0, entry);
  }

  remove(entry: Entry): void {
    const i = this.indexOf(entry);
    if (i >= 0) this.entries.splice(i, 1);
  }

  /**
   * Puts `entry` (the new version of the object) where `old` was. An update rarely moves an object (a name or a
   * creation time never changes), so it usually takes the old slot: no splice, which would move up to n references.
   */
  replace(old: Entry, entry: Entry, obj: KubeObject): void {
    if (this.keys) this.keys.set(entry, this.key(obj));
    const i = this.indexOf(old);
    if (i >= 0 && this.compare(old, entry) === 0) {
      this.entries[i] = entry;
      return;
    }
    if (i >= 0) this.entries.splice(i, 1);
    this.entries.splice(this.lowerBound(entry), 0, entry);
  }

  private indexOf(entry: Entry): number {
    const i = this.lowerBound(entry);
    // Distinct entries never compare equal (keys are unique by name and namespace), so `i` is the entry's place.
    return this.entries[i] === entry ? i : this.entries.indexOf(entry);
  }

  private key(obj: KubeObject): number {
    try {
      const k = this.keyOf?.(obj) ?? 0;
      return Number.isFinite(k) ? k : 0;
    } catch {
      return 0;
    }
  }

  private lowerBound(e: Entry): number {
    const arr = this.entries;
    let lo = 0;
    let hi = arr.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(arr[mid], e) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
