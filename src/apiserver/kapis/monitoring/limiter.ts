// At most `max` tasks at once; the others wait their turn in arrival order. Shared by every request to one Prometheus,
// so a burst of console pages (each dozens of metrics) queues in kapiserver instead of piling onto Prometheus.
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never drops below the queue's need; it starts
      // after the timers due now have fired, so a waiter whose deadline came with this task's (both timed out) is
      // not sent only to be abandoned.
      const next = this.waiting.shift();
      if (next) setImmediate(next);
      else this.running--;
    }
  }
}
