// Audit sinks. Both accept events synchronously and never make a request wait: the file sink hands lines to a
// write stream (dropping when the OS cannot keep up), the webhook sink queues (bounded) and POSTs in batches.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { request } from 'undici';
import type { AuditEvent } from './event.ts';

export type SinkOutcome = 'written' | 'dropped' | 'failed';
export type OutcomeCounter = (sink: string, outcome: SinkOutcome, n?: number) => void;

export interface AuditSink {
  readonly name: string;
  write(event: AuditEvent): void;
  /** Flushes what is queued (bounded by a deadline) and releases resources. */
  close(): Promise<void>;
}

/** Bytes buffered in the file stream beyond which events are dropped rather than held in memory. */
const FILE_BUFFER_LIMIT = 8 * 1024 * 1024;

/** One JSON event per line, appended to `path` (mode 0600; the directory is created). */
export class FileSink implements AuditSink {
  readonly name = 'file';
  private readonly stream: WriteStream;
  private broken = false;

  constructor(
    path: string,
    logger: Logger,
    private readonly count: OutcomeCounter,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    this.stream.on('error', (err) => {
      if (!this.broken)
        logger.error({ path, err: err.message }, 'audit log file cannot be written; events are dropped');
      this.broken = true;
    });
  }

  write(event: AuditEvent): void {
    if (this.broken || this.stream.writableLength > FILE_BUFFER_LIMIT) {
      this.count(this.name, 'dropped');
      return;
    }
    this.stream.write(`${JSON.stringify(event)}\n`);
    this.count(this.name, 'written');
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.broken || this.stream.closed) return resolve();
      this.stream.end(() => resolve());
    });
  }
}

export interface WebhookOptions {
  url: string;
  batchSize: number;
  batchIntervalMs: number;
  senders: number;
  /** Events held while the webhook is slow or down; new events past it are dropped. */
  maxQueue?: number;
  timeoutMs?: number;
}

/** POSTs `{"Items": [...]}` (KubeSphere's EventList) batches of events; no retries, failures are counted and logged. */
export class WebhookSink implements AuditSink {
  readonly name = 'webhook';
  private queue: AuditEvent[] = [];
  private inFlight = 0;
  private readonly inFlightDone = new Set<Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private lastWarn = 0;

  constructor(
    private readonly opts: WebhookOptions,
    private readonly logger: Logger,
    private readonly count: OutcomeCounter,
  ) {
    this.timer = setInterval(() => this.pump(true), Math.max(10, opts.batchIntervalMs));
    this.timer.unref();
  }

  write(event: AuditEvent): void {
    if (this.closed || this.queue.length >= (this.opts.maxQueue ?? 10_000)) {
      this.count(this.name, 'dropped');
      return;
    }
    this.queue.push(event);
    if (this.queue.length >= this.opts.batchSize) this.pump(false);
  }

  /** Sends full batches while senders are free; `partial` also sends what is left (the interval passed). */
  private pump(partial: boolean): void {
    while (this.inFlight < this.opts.senders && this.queue.length > 0) {
      if (!partial && this.queue.length < this.opts.batchSize) return;
      const batch = this.queue.splice(0, this.opts.batchSize);
      this.inFlight++;
      const done = this.send(batch).finally(() => {
        this.inFlight--;
        this.inFlightDone.delete(done);
        if (this.queue.length >= this.opts.batchSize) this.pump(false);
      });
      this.inFlightDone.add(done);
    }
  }

  private async send(batch: AuditEvent[]): Promise<void> {
    try {
      const res = await request(this.opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Items: batch }),
        headersTimeout: this.opts.timeoutMs ?? 10_000,
        bodyTimeout: this.opts.timeoutMs ?? 10_000,
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) {
        this.count(this.name, 'written', batch.length);
        return;
      }
      this.fail(batch.length, `HTTP ${res.statusCode}`);
    } catch (err) {
      this.fail(batch.length, (err as Error).message);
    }
  }

  private fail(n: number, reason: string): void {
    this.count(this.name, 'failed', n);
    const now = Date.now();
    if (now - this.lastWarn > 30_000) {
      this.lastWarn = now;
      // The URL may embed credentials; log its origin only.
      let target = 'the audit webhook';
      try {
        target = new URL(this.opts.url).origin;
      } catch {}
      this.logger.warn({ target, reason, events: n }, 'audit webhook delivery failed; events dropped');
    }
  }

  async close(deadlineMs = 3000): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const deadline = Date.now() + deadlineMs;
    while ((this.queue.length > 0 || this.inFlight > 0) && Date.now() < deadline) {
      this.pump(true);
      await Promise.race([
        Promise.all(this.inFlightDone),
        new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()))),
      ]);
    }
    if (this.queue.length > 0) this.count(this.name, 'dropped', this.queue.length);
    this.queue = [];
  }
}
