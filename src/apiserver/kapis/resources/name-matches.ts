// KubeSphere's `name` filter (a substring of the name) as a key set, remembered per informer until an object is added
// or removed: names never change, so updates keep the answer. A console search then pages through one answer, its
// total known, instead of scanning every name for every page.
import type { Informer } from '../../cluster/index.ts';

/** Remembered parts per informer; the oldest is forgotten first. Each set holds at most one reference per object. */
const MAX_PARTS = 8;

interface Memo {
  membership: number;
  parts: Map<string, ReadonlySet<string>>;
}

const memos = new WeakMap<Informer, Memo>();

/** Keys of the informer's objects whose name contains `part` (a live answer: do not mutate). */
export function keysWithNamePart(inf: Informer, part: string): ReadonlySet<string> {
  let memo = memos.get(inf);
  if (!memo || memo.membership !== inf.membershipGeneration) {
    memo = { membership: inf.membershipGeneration, parts: new Map() };
    memos.set(inf, memo);
  }
  let keys = memo.parts.get(part);
  if (!keys) {
    const found = new Set<string>();
    for (const e of inf.entries()) if (e.name.includes(part)) found.add(e.key);
    if (memo.parts.size >= MAX_PARTS) {
      const oldest = memo.parts.keys().next().value;
      if (oldest !== undefined) memo.parts.delete(oldest);
    }
    memo.parts.set(part, found);
    keys = found;
  }
  return keys;
}
