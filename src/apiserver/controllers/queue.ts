// A work queue of object keys, like client-go's workqueue: a key waiting is queued once however often it is added;
// a key being processed is not handed out twice, and one added meanwhile is processed again afterwards; failures
// come back with a per-key exponential backoff; keys can be added after a delay.
const BASE_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 30_000;
/** setTimeout's limit: a longer delay would fire at once. A key due later is looked at again at least this often. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly waiting = new Set<string>();
  private readonly processing = new Set<string>();
  /** Added while processing: queued again by done(). */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  /** Keys added after a delay: each one's timer and when it fires (epoch ms). */
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private wake?: () => void;
  private shutdown = false;

  add(key: string): void {
    if (this.shutdown) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    this.queue.push(key);
    this.wake?.();
  }

  /** Adds `key` after `ms` (an earlier pending delay for the same key wins). */
  addAfter(key: string, ms: number): void {
    if (this.shutdown) return;
    const delay = Math.min(ms, MAX_DELAY_MS);
    const due = Date.now() + delay;
    const pending = this.timers.get(key);
    if (pending) {
      if (pending.due <= due) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delay);
    timer.unref();
    this.timers.set(key, { timer, due });
  }

  /** Adds `key` again after its next backoff (100 ms, doubling, at most 30 s). */
  retry(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, Math.min(BASE_BACKOFF_MS * 2 ** n, MAX_BACKOFF_MS));
  }

  /** The key succeeded: its backoff starts over. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** The next key to process, or undefined once shut down. */
  async get(): Promise<string | undefined> {
    while (this.queue.length === 0) {
      if (this.shutdown) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
    const key = this.queue.shift() as string;
    this.waiting.delete(key);
    this.processing.add(key);
    return key;
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }

  get length(): number {
    return this.queue.length;
  }

  shutDown(): void {
    this.shutdown = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.queue.length = 0;
    this.waiting.clear();
    this.wake?.();
  }
}
