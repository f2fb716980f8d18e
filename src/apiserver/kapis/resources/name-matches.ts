// KubeSphere's `name` filter (a substring of the name) as a remembered answer per informer: the matching keys, and
// on demand those keys in name or creation order. It holds until an object is added, removed or replaced by a new
// one (`membershipGeneration`): updates change neither a name nor a creation time. A console search then pages
// through one answer, its total known, instead of scanning every name for every page.
import type { Informer, SortField } from '../../cluster/index.ts';

/** Remembered parts per informer; the oldest is forgotten first. Each answer holds references, never copies. */
const MAX_PARTS = 8;

export class NameMatches {
  private readonly ordered = new Map<SortField, string[]>();

  constructor(
    private readonly inf: Informer,
    /** Keys of the objects whose name contains the part (do not mutate). */
    readonly keys: ReadonlySet<string>,
  ) {}

  /** The keys in ascending order of `by` (a walk of the informer's view, once). */
  inOrder(by: SortField): readonly string[] {
    let keys = this.ordered.get(by);
    if (!keys) {
      keys = [];
      for (const e of this.inf.sorted(by)) if (this.keys.has(e.key)) keys.push(e.key);
      this.ordered.set(by, keys);
    }
    return keys;
  }
}

interface Memo {
  membership: number;
  parts: Map<string, NameMatches>;
}

const memos = new WeakMap<Informer, Memo>();

/** The informer's objects whose name contains `part`. */
export function nameMatches(inf: Informer, part: string): NameMatches {
  let memo = memos.get(inf);
  if (!memo || memo.membership !== inf.membershipGeneration) {
    memo = { membership: inf.membershipGeneration, parts: new Map() };
    memos.set(inf, memo);
  }
  let answer = memo.parts.get(part);
  if (!answer) {
    const keys = new Set<string>();
    for (const e of inf.entries()) if (e.name.includes(part)) keys.add(e.key);
    if (memo.parts.size >= MAX_PARTS) {
      const oldest = memo.parts.keys().next().value;
      if (oldest !== undefined) memo.parts.delete(oldest);
    }
    answer = new NameMatches(inf, keys);
    memo.parts.set(part, answer);
  }
  return answer;
}
