// Runs one controller: level-triggered reconciles of object keys. Informer events (and the replay of every cached
// object on start) put keys on a work queue; one worker takes them one at a time and calls `reconcile`, which reads
// the cache and writes idempotently. A failure is retried with backoff (a 409 is expected: the cache was behind);
// `requeueAfterMs` asks for another look later (a lockout or a retention period ending).
import type { Logger } from 'pino';
import { type EventHandler, type Informer, isConflict, type KubeObject } from '../cluster/index.ts';
import { WorkQueue } from './queue.ts';

export interface ReconcileResult {
  requeueAfterMs?: number;
}

export interface Controller {
  readonly name: string;
  /** Every informer `reconcile` reads: workers start once all have synced (a partial cache would mislead them). */
  readonly informers: Informer[];
  /**
   * Subscribes to the events that concern this controller; returns the unsubscribe functions. `enqueue` with
   * `afterMs` asks for a reconcile within that time, so that the events of a burst share one.
   */
  watch(enqueue: (key: string, afterMs?: number) => void): (() => void)[];
  reconcile(key: string): Promise<ReconcileResult | undefined>;
}

const SYNC_WAIT_MS = 60_000;

/** An event handler calling `keysOf` on every added, changed or deleted object and enqueueing what it returns. */
export function enqueueKeys(
  enqueue: (key: string) => void,
  keysOf: (obj: KubeObject) => Iterable<string>,
): EventHandler {
  const handle = (obj: KubeObject) => {
    for (const key of keysOf(obj)) enqueue(key);
  };
  return { onAdd: handle, onUpdate: handle, onDelete: handle };
}

export class ControllerRunner {
  private queue?: WorkQueue;
  private unsubscribe: (() => void)[] = [];
  private worker?: Promise<void>;
  private onStop?: () => void;

  constructor(
    private readonly controller: Controller,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.queue) return;
    const queue = new WorkQueue();
    this.queue = queue;
    this.worker = this.run(queue);
  }

  private async run(queue: WorkQueue): Promise<void> {
    const { informers, name } = this.controller;
    const stopped = new Promise<false>((resolve) => {
      this.onStop = () => resolve(false);
    });
    for (;;) {
      const synced = Promise.all(informers.map((i) => i.waitForSync(SYNC_WAIT_MS))).then((r) =>
        r.every(Boolean),
      );
      if (await Promise.race([synced, stopped])) break;
      if (this.queue !== queue) return;
      this.logger.warn({ controller: name }, 'controller caches have not synced yet; waiting');
    }
    if (this.queue !== queue) return;
    this.unsubscribe = this.controller.watch((key, afterMs) =>
      afterMs ? queue.addAfter(key, afterMs) : queue.add(key),
    );
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const result = await this.controller.reconcile(key);
        queue.forget(key);
        if (result?.requeueAfterMs !== undefined) queue.addAfter(key, Math.max(0, result.requeueAfterMs));
      } catch (err) {
        this.logger[isConflict(err) ? 'debug' : 'warn'](
          { controller: name, key, err: (err as Error).message },
          'reconcile failed; retrying',
        );
        queue.retry(key);
      } finally {
        queue.done(key);
      }
    }
  }

  /** Stops taking keys; the reconcile under way finishes first. */
  async stop(): Promise<void> {
    const queue = this.queue;
    if (!queue) return;
    this.queue = undefined;
    this.onStop?.();
    for (const off of this.unsubscribe.splice(0)) off();
    queue.shutDown();
    await this.worker;
  }
}
