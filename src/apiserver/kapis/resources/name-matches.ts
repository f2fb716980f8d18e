// KubeSphere's `name` filter (a substring of the name) as a remembered answer per informer and namespace: the
// matching keys, and on demand those keys in name or creation order. It holds until an object is added, removed or replaced by a new
// one (`membershipGeneration`): updates change neither a name nor a creation time. A console search then pages
// through one answer, its total known, instead of scanning every name for every page.
import type { Informer, SortField } from '../../cluster/index.ts';

/** Remembered answers per informer; the oldest is forgotten first. Each holds references, never copies. */
const MAX_ANSWERS = 8;

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
  /** namespace + NUL + part -> answer */
  answers: Map<string, NameMatches>;
}

const memos = new WeakMap<Informer, Memo>();

/** The informer's objects whose name contains `part` (in `namespace` only, when given). */
export function nameMatches(inf: Informer, part: string, namespace?: string): NameMatches {
  let memo = memos.get(inf);
  if (!memo || memo.membership !== inf.membershipGeneration) {
    memo = { membership: inf.membershipGeneration, answers: new Map() };
    memos.set(inf, memo);
  }
  const id = `${namespace ?? ''}\0${part}`;
  let answer = memo.answers.get(id);
  if (!answer) {
    const keys = new Set<string>();
    if (namespace === undefined) {
      for (const e of inf.entries()) if (e.name.includes(part)) keys.add(e.key);
    } else {
      for (const key of inf.keysInNamespace(namespace)) {
        if (inf.getByKey(key)?.name.includes(part)) keys.add(key);
      }
    }
    if (memo.answers.size >= MAX_ANSWERS) {
      const oldest = memo.answers.keys().next().value;
      if (oldest !== undefined) memo.answers.delete(oldest);
    }
    answer = new NameMatches(inf, keys);
    memo.answers.set(id, answer);
  }
  return answer;
}
